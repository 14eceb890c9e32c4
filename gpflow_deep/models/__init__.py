"""The deep GP models: each a ``gpflow.models.BayesianModel``."""

from .base import DeepMixtureModel
from .deep_gp import DeepGP
from .dspp import DSPP, gauss_hermite_sigma_points, random_sigma_points

__all__ = ["DSPP", "DeepGP", "DeepMixtureModel", "gauss_hermite_sigma_points", "random_sigma_points"]
