"""Deep Gaussian processes for GPflow: five inference methods as ``gpflow.models`` subclasses."""

from . import (
    builders,
    datasets,
    layers,
    likelihoods,
    metrics,
    mixtures,
    model_selection,
    models,
    objectives,
    propagation,
    training,
)
from .builders import build_aep_dgp, build_deep_gp, build_dspp, build_random_feature_dgp, build_sod_dgp
from .export import export
from .layers import AEPLayer, GPLayer, RandomFeatureLayer
from .model_selection import select_beta
from .models import AEPDGP, DSPP, DeepGP, RandomFeatureDGP, SoDDGP
from .training import FitResult, fit, restore_checkpoint

__version__ = "0.1.0"

__all__ = [
    "AEPDGP",
    "AEPLayer",
    "build_aep_dgp",
    "DSPP",
    "DeepGP",
    "FitResult",
    "GPLayer",
    "RandomFeatureDGP",
    "RandomFeatureLayer",
    "SoDDGP",
    "build_deep_gp",
    "build_dspp",
    "build_random_feature_dgp",
    "build_sod_dgp",
    "builders",
    "datasets",
    "export",
    "fit",
    "layers",
    "likelihoods",
    "metrics",
    "mixtures",
    "model_selection",
    "models",
    "objectives",
    "propagation",
    "restore_checkpoint",
    "select_beta",
    "training",
]
