"""Builders: each model with its paper's initialisation, set up from data."""

from .deep_gp import build_deep_gp
from .dspp import build_dspp
from .initialisation import kmeans_inducing_inputs, linear_means, linear_projection

__all__ = ["build_deep_gp", "build_dspp", "kmeans_inducing_inputs", "linear_means", "linear_projection"]
