"""Builders: each model with its paper's initialisation, set up from data."""
from .deep_gp import build_deep_gp
from .initialisation import fixed_linear_means, kmeans_inducing_inputs, linear_projection

__all__ = ["build_deep_gp", "fixed_linear_means", "kmeans_inducing_inputs", "linear_projection"]
