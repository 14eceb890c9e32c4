"""Objectives as plain functions of (paths, data, likelihood): the data terms every model chooses
from, each scaled from a batch of B points to the N of the training set, and the regulariser.

A model's objective is one data term minus (β times) the sum of its layers' regularisers:

    DSVI (DeepGP):    expected_log_likelihood − β Σ_l KL_l
    DSPP:             predictive_log_likelihood − β Σ_l KL_l
    approximate EP:   predictive_log_likelihood (log Z_n over cavity paths) − Σ_l regulariser_l

Any data term goes with any propagation: DSVI's sampled paths under the predictive log-likelihood
make a deep PPGPR (``DeepGP(..., data_term=predictive_log_likelihood)``).
"""

from gpflow_deep.objectives.data_terms import (
    DataTerm,
    data_term_shapes,
    expected_log_likelihood,
    minibatch_scale,
    predictive_log_likelihood,
)
from gpflow_deep.objectives.regularisers import layer_inputs, total_regulariser

__all__ = [
    "DataTerm",
    "data_term_shapes",
    "expected_log_likelihood",
    "layer_inputs",
    "minibatch_scale",
    "predictive_log_likelihood",
    "total_regulariser",
]
