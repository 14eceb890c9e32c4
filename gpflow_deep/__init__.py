"""Deep Gaussian processes for GPflow: five inference methods as ``gpflow.models`` subclasses."""
from . import builders, datasets, layers, metrics, mixtures, models, training
from .builders import build_deep_gp
from .layers import GPLayer
from .models import DeepGP
from .training import FitResult, fit, restore_checkpoint

__version__ = "0.1.0"

__all__ = ["DeepGP", "FitResult", "GPLayer", "build_deep_gp", "fit", "restore_checkpoint"]
