"""Builders: each model with its paper's initialisation, set up from data, configured by one
frozen dataclass per paper (``.paper()``, ``.default()``, keyword overrides of its fields)."""

from gpflow_deep.builders.aep_dgp import AEPDGPConfig, build_aep_dgp
from gpflow_deep.builders.deep_gp import DeepGPConfig, build_deep_gp
from gpflow_deep.builders.dspp import DSPPConfig, build_dspp
from gpflow_deep.builders.initialisation import kmeans_inducing_inputs, linear_means, linear_projection
from gpflow_deep.builders.random_feature_dgp import RandomFeatureDGPConfig, build_random_feature_dgp
from gpflow_deep.builders.sod_dgp import SoDDGPConfig, build_sod_dgp
from gpflow_deep.builders.stack import LayerPlan, gp_layer_stack, plan_stack
from gpflow_deep.builders.subsets import kmeans_subset, random_subset, select_subset

__all__ = [
    "AEPDGPConfig",
    "DSPPConfig",
    "DeepGPConfig",
    "LayerPlan",
    "RandomFeatureDGPConfig",
    "SoDDGPConfig",
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
