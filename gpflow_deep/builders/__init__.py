"""Builders: each model with its paper's initialisation, set up from data."""

from gpflow_deep.builders.aep_dgp import build_aep_dgp
from gpflow_deep.builders.deep_gp import build_deep_gp
from gpflow_deep.builders.dspp import build_dspp
from gpflow_deep.builders.initialisation import kmeans_inducing_inputs, linear_means, linear_projection
from gpflow_deep.builders.random_feature_dgp import build_random_feature_dgp
from gpflow_deep.builders.sod_dgp import build_sod_dgp
from gpflow_deep.builders.stack import LayerPlan, gp_layer_stack, plan_stack
from gpflow_deep.builders.subsets import kmeans_subset, random_subset, select_subset

__all__ = [
    "LayerPlan",
    "build_aep_dgp",
    "build_deep_gp",
    "build_dspp",
    "build_random_feature_dgp",
    "build_sod_dgp",
    "gp_layer_stack",
    "kmeans_inducing_inputs",
    "kmeans_subset",
    "linear_means",
    "linear_projection",
    "plan_stack",
    "random_subset",
    "select_subset",
]
