"""The deep GP models: each a ``gpflow.models.BayesianModel``."""
from .base import DeepMixtureModel
from .deep_gp import DeepGP

__all__ = ["DeepMixtureModel", "DeepGP"]
