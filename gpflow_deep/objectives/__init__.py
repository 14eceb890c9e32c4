"""Objectives as plain functions of (paths, data, likelihood): the data terms every model chooses
from, each scaled from a batch of B points to the N of the training set, and the regularisers.

A model's objective is one data term minus (β times) the sum of its layers' regularisers
(:func:`regularised_data_term`):

    DSVI (DeepGP):    expected_log_likelihood − β Σ_l KL_l
    DSPP:             predictive_log_likelihood (or BlendedLogLikelihood) − β Σ_l KL_l
    approximate EP:   predictive_log_likelihood (log Z_n over cavity paths) − Σ_l regulariser_l

or, for subset-of-data inference, eq. 11's terms (:mod:`gpflow_deep.objectives.subset`). Any data
term goes with any propagation: DSVI's sampled paths under the predictive log-likelihood make a
deep PPGPR (``DeepGP(..., data_term=predictive_log_likelihood)``).
"""

from gpflow_deep.objectives.blended import BlendedLogLikelihood
from gpflow_deep.objectives.data_terms import (
    DataTerm,
    data_term_shapes,
    expected_log_likelihood,
    minibatch_scale,
    pointwise_expected_log_likelihood,
    predictive_log_likelihood,
)
from gpflow_deep.objectives.regularised import regularised_data_term
from gpflow_deep.objectives.regularisers import layer_inputs, total_regulariser
from gpflow_deep.objectives.subset import (
    complement_expected_log_likelihood,
    complement_weights,
    in_subset,
    subset_expected_log_likelihood,
)

__all__ = [
    "BlendedLogLikelihood",
    "DataTerm",
    "complement_expected_log_likelihood",
    "complement_weights",
    "data_term_shapes",
    "expected_log_likelihood",
    "in_subset",
    "layer_inputs",
    "minibatch_scale",
    "pointwise_expected_log_likelihood",
    "predictive_log_likelihood",
    "regularised_data_term",
    "subset_expected_log_likelihood",
    "total_regulariser",
]
