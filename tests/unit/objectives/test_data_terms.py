"""The blended data term's two ends are the predictive and the expected log-likelihood, and a
model's objective is its data term minus β times the regularisers on the same paths."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy.special import logsumexp
from scipy.stats import norm

from gpflow_deep import GPLayer
from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.objectives import (
    BlendedLogLikelihood,
    expected_log_likelihood,
    predictive_log_likelihood,
    regularised_data_term,
)
from gpflow_deep.propagation import Sampled

pytestmark = pytest.mark.shape_checks("compiled")


@pytest.fixture
def mixture_and_data(rng):
    S, B = 3, 7
    log_weights = np.log(rng.dirichlet(np.ones(S)))
    mixture = GaussianMixture(
        tf.constant(rng.normal(size=(S, B, 1))), tf.constant(rng.uniform(0.1, 1.0, (S, B, 1))), tf.constant(log_weights)
    )
    return mixture, tf.constant(rng.normal(size=(B, 2))), tf.constant(rng.normal(size=(B, 1)))


def test_blended_ends_are_the_predictive_and_the_expected_log_likelihood(mixture_and_data):
    mixture, X, Y = mixture_and_data
    args = (gpflow.likelihoods.Gaussian(variance=0.2), mixture, X, Y, 21)
    pll, ell = predictive_log_likelihood(*args), expected_log_likelihood(*args)
    means, variances, log_weights = (t.numpy() for t in mixture)
    components = norm.logpdf(Y.numpy()[None], means, np.sqrt(variances + 0.2))[..., 0]
    np.testing.assert_allclose(pll, 3 * logsumexp(components + log_weights[:, None], axis=0).sum(), rtol=1e-12)
    assert float(pll) > float(ell)  # Jensen
    np.testing.assert_array_equal(BlendedLogLikelihood(0.0)(*args), pll)
    np.testing.assert_array_equal(BlendedLogLikelihood(1.0)(*args), ell)
    np.testing.assert_allclose(BlendedLogLikelihood(0.25)(*args), 0.75 * pll + 0.25 * ell, rtol=1e-12)
    assert repr(BlendedLogLikelihood(0.25)) == "BlendedLogLikelihood(weight=0.25)"
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        BlendedLogLikelihood(-0.1)


def test_regularised_data_term_subtracts_beta_times_the_kls_on_the_same_paths(rng, mixture_and_data):
    _, X, Y = mixture_and_data
    layers = [GPLayer(gpflow.kernels.SquaredExponential(), rng.normal(size=(4, 2)), 1, q_mu=rng.normal(size=(4, 1)))]
    likelihood = gpflow.likelihoods.Gaussian(variance=0.2)
    paths = Sampled()(layers, X, 2, tf.constant([1, 2], tf.int64))
    objective = regularised_data_term(predictive_log_likelihood, 0.3, likelihood, layers, paths, X, Y, 14)
    data_term = predictive_log_likelihood(likelihood, paths.mixture(), X, Y, 14)
    np.testing.assert_allclose(objective, data_term - 0.3 * layers[0].prior_kl(), rtol=1e-12)
