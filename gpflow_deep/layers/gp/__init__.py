"""Sparse variational GP layers (DSVI, DSPP): ``GPLayer`` and its linear algebra."""

from gpflow_deep.layers.gp.gp_layer import GPLayer

__all__ = ["GPLayer"]
