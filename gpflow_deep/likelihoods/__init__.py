"""Likelihoods that GPflow does not ship."""

from gpflow_deep.likelihoods.linear_mixing import LinearMixingGaussian
from gpflow_deep.likelihoods.softmax import Softmax

__all__ = ["LinearMixingGaussian", "Softmax"]
