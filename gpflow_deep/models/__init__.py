"""The deep GP models: each a ``gpflow.models.BayesianModel``."""

from gpflow_deep.models.aep_dgp import AEPDGP
from gpflow_deep.models.base import DeepMixtureModel
from gpflow_deep.models.deep_gp import DeepGP
from gpflow_deep.models.dspp import DSPP, gauss_hermite_sigma_points, random_sigma_points
from gpflow_deep.models.monte_carlo import MonteCarloModel
from gpflow_deep.models.parameter_count import num_trainable_parameters
from gpflow_deep.models.random_feature_dgp import RandomFeatureDGP
from gpflow_deep.models.sod_dgp import SoDDGP

__all__ = [
    "AEPDGP",
    "DSPP",
    "DeepGP",
    "DeepMixtureModel",
    "MonteCarloModel",
    "RandomFeatureDGP",
    "SoDDGP",
    "gauss_hermite_sigma_points",
    "num_trainable_parameters",
    "random_sigma_points",
]
