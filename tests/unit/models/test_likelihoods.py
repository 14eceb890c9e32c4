"""LinearMixingGaussian against multivariate-normal densities and Monte Carlo."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from gpflow_deep.likelihoods import LinearMixingGaussian

pytestmark = pytest.mark.shape_checks("compiled")


@pytest.fixture
def likelihood(rng):
    lik = LinearMixingGaussian(2, 3, mixing=rng.normal(size=(2, 3)))
    lik.variance.assign(rng.uniform(0.1, 0.5, 3))
    return lik


def test_predict_log_density_is_the_correlated_gaussian(likelihood, rng):
    Fmu, Fvar, Y = rng.normal(size=(4, 2)), rng.uniform(0.1, 1.0, (4, 2)), rng.normal(size=(4, 3))
    A, noise = likelihood.mixing.numpy(), likelihood.variance.numpy()
    expected = [
        multivariate_normal.logpdf(Y[n], Fmu[n] @ A, A.T @ np.diag(Fvar[n]) @ A + np.diag(noise)) for n in range(4)
    ]
    np.testing.assert_allclose(likelihood.predict_log_density(None, Fmu, Fvar, Y), expected, rtol=1e-10)
    mean, var = likelihood.predict_mean_and_var(None, Fmu, Fvar)
    np.testing.assert_allclose(mean, Fmu @ A, rtol=1e-12)
    np.testing.assert_allclose(var, [np.diag(A.T @ np.diag(Fvar[n]) @ A) + noise for n in range(4)], rtol=1e-10)


def test_variational_expectations_match_monte_carlo(likelihood, rng):
    Fmu, Fvar, Y = rng.normal(size=(1, 2)), rng.uniform(0.1, 1.0, (1, 2)), rng.normal(size=(1, 3))
    F = Fmu + np.sqrt(Fvar) * rng.standard_normal((200000, 2))
    samples = likelihood.log_prob(None, F, np.broadcast_to(Y, (200000, 3))).numpy()
    expected = likelihood.variational_expectations(None, Fmu, Fvar, Y).numpy()
    assert abs(samples.mean() - expected[0]) < 5 * samples.std() / np.sqrt(len(samples))


def test_mixing_shape_is_checked():
    with pytest.raises(ValueError, match=r"mixing must be \[2, 3\]"):
        LinearMixingGaussian(2, 3, mixing=np.eye(2))
