"""Deep Gaussian processes for GPflow: five inference methods as ``gpflow.models`` subclasses.

Names are loaded on first use (PEP 562), so ``import gpflow_deep`` is quick and loads neither
TensorFlow nor the command line (:mod:`gpflow_deep.app`) until a name is asked for.
"""

import importlib
from typing import Any, Dict, List

__version__ = "0.1.0"

_SUBMODULES = (
    "builders",
    "core",
    "datasets",
    "evaluation",
    "layers",
    "likelihoods",
    "models",
    "objectives",
    "propagation",
    "registry",
    "training",
)

_MOVED_SUBMODULES: Dict[str, str] = {
    "metrics": "gpflow_deep.evaluation.metrics",
    "mixtures": "gpflow_deep.core.mixtures",
    "model_selection": "gpflow_deep.training.model_selection",
}
"""Modules that used to sit at the top level, still reachable as ``gd.<name>``."""

_NAMES: Dict[str, str] = {
    "AEPDGP": "gpflow_deep.models",
    "DSPP": "gpflow_deep.models",
    "DeepGP": "gpflow_deep.models",
    "RandomFeatureDGP": "gpflow_deep.models",
    "SoDDGP": "gpflow_deep.models",
    "AEPLayer": "gpflow_deep.layers",
    "GPLayer": "gpflow_deep.layers",
    "RandomFeatureLayer": "gpflow_deep.layers",
    "build_aep_dgp": "gpflow_deep.builders",
    "build_deep_gp": "gpflow_deep.builders",
    "build_dspp": "gpflow_deep.builders",
    "build_random_feature_dgp": "gpflow_deep.builders",
    "build_sod_dgp": "gpflow_deep.builders",
    "calibrate": "gpflow_deep.evaluation.conformal",
    "predict_interval": "gpflow_deep.evaluation.conformal",
    "export": "gpflow_deep.saved_model",
    "FitResult": "gpflow_deep.training",
    "fit": "gpflow_deep.training",
    "restore_checkpoint": "gpflow_deep.training",
    "select_beta": "gpflow_deep.training.model_selection",
}
"""Each public name at the top level and the module that defines it."""

__all__ = sorted(set(_NAMES) | set(_SUBMODULES) | set(_MOVED_SUBMODULES))


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"gpflow_deep.{name}")
    elif name in _MOVED_SUBMODULES:
        value = importlib.import_module(_MOVED_SUBMODULES[name])
    else:
        raise AttributeError(f"module 'gpflow_deep' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
