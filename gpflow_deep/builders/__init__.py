"""Builders: each model with its paper's initialisation, set up from data."""

from .deep_gp import build_deep_gp
from .dspp import build_dspp
from .initialisation import kmeans_inducing_inputs, linear_means, linear_projection
from .stack import LayerPlan, gp_layer_stack, plan_stack

__all__ = [
    "LayerPlan",
    "build_deep_gp",
    "build_dspp",
    "gp_layer_stack",
    "kmeans_inducing_inputs",
    "linear_means",
    "linear_projection",
    "plan_stack",
]
