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
from .builders import build_deep_gp, build_dspp
from .layers import GPLayer
from .model_selection import select_beta
from .models import DSPP, DeepGP
from .training import FitResult, fit, restore_checkpoint

__version__ = "0.1.0"

__all__ = [
    "DSPP",
    "DeepGP",
    "FitResult",
    "GPLayer",
    "build_deep_gp",
    "build_dspp",
    "builders",
    "datasets",
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
