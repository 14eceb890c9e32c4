"""The deep GP models: each a ``gpflow.models.BayesianModel``."""

from .aep_dgp import AEPDGP
from .base import DeepMixtureModel
from .deep_gp import DeepGP
from .dspp import DSPP, gauss_hermite_sigma_points, random_sigma_points
from .parameter_count import num_trainable_parameters
from .random_feature_dgp import RandomFeatureDGP
from .sod_dgp import SoDDGP

__all__ = [
    "AEPDGP",
    "DSPP",
    "DeepGP",
    "DeepMixtureModel",
    "RandomFeatureDGP",
    "SoDDGP",
    "gauss_hermite_sigma_points",
    "num_trainable_parameters",
    "random_sigma_points",
]
