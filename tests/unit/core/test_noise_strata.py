"""The mixture over y under Student-t noise: strata of the noise's scale, exact in variance and
close to the Student-t's CDF, for paths of equal or unequal weights."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from scipy import integrate, stats

from gpflow_deep.core.mixtures import GaussianMixture, mixture_moments
from gpflow_deep.core.noise_strata import NOISE_STRATA, WEIGHTED_PATH_STRATA, student_t_variance_multipliers, y_mixture
from gpflow_deep.evaluation.calibration import mixture_cdf


def multipliers(df: float, paths: int, shared: bool = True) -> np.ndarray:
    per_path = max(1 if shared else WEIGHTED_PATH_STRATA, -(-NOISE_STRATA // paths))
    return student_t_variance_multipliers(df, tf.constant(paths), tf.constant(per_path), shared, tf.float64).numpy()


@pytest.mark.parametrize("df", [2.5, 3.0, 10.0])
@pytest.mark.parametrize("paths", [1, 7, 100])
def test_the_strata_have_the_student_t_variance_and_nearly_its_cdf(df, paths):
    """Equal-weight strata: mean multiplier 1 (the variance s²ν/(ν − 2) exactly), CDF within 0.01
    of the Student-t's for the 64 to 100 strata a mixture uses (0.0006 for ν = 3 and 100)."""
    values = multipliers(df, paths).reshape(-1)
    assert len(values) >= NOISE_STRATA and len(values) % paths == 0
    assert np.mean(values) == pytest.approx(1.0, rel=1e-9)
    variance = df / (df - 2)  # of the standard Student-t
    z = np.linspace(0.0, 8.0, 161)
    cdf = np.mean(stats.norm.cdf(z[None] / np.sqrt(variance * values[:, None])), axis=0)
    assert np.max(np.abs(cdf - stats.t.cdf(z, df))) < 0.01


def test_equal_paths_share_the_strata_and_weighted_paths_each_take_them_all():
    """8 equal paths take 8 interleaved strata each of 64; 8 weighted paths each take the same 16,
    every path's variance exact."""
    shared = multipliers(3.0, 8)
    assert shared.shape == (8, 8)
    assert np.all(np.diff(shared.T.reshape(-1)) < 0), "strata of λ in increasing order: 1/λ decreasing"
    own = multipliers(3.0, 8, shared=False)
    assert own.shape == (8, WEIGHTED_PATH_STRATA)
    np.testing.assert_allclose(own, own[:1].repeat(8, axis=0))
    np.testing.assert_allclose(own.mean(axis=1), 1.0, rtol=1e-9)


def test_two_or_fewer_degrees_of_freedom_are_refused():
    with pytest.raises(ValueError, match="more than 2 degrees of freedom"):
        multipliers(2.0, 10)


def paths_mixture(weights, seed: int = 0, points: int = 6) -> GaussianMixture:
    rng = np.random.default_rng(seed)
    S = len(weights)
    means = rng.normal(size=(S, points, 1))
    variances = rng.uniform(0.05, 0.5, size=(S, points, 1))
    return GaussianMixture(tf.constant(means), tf.constant(variances), tf.constant(np.log(weights)))


def test_equal_weights_give_the_moments_predict_y_gives():
    likelihood = gpflow.likelihoods.StudentT(scale=0.4, df=3.0)
    mixture = paths_mixture(np.full(20, 1 / 20))
    X = tf.zeros([6, 2], tf.float64)
    over_y = y_mixture(likelihood, X, mixture)
    assert over_y.means.shape[0] == 20 * 4  # ⌈64 / 20⌉ strata per path
    np.testing.assert_allclose(np.exp(over_y.log_weights.numpy()).sum(), 1.0, rtol=1e-12)
    f_mean, f_variance = mixture_moments(*mixture)
    expected_variance = f_variance + 0.4**2 * 3.0
    mean, variance = mixture_moments(*over_y)
    np.testing.assert_allclose(mean, f_mean, rtol=1e-12)
    np.testing.assert_allclose(variance, expected_variance, rtol=1e-9)


def test_the_cdf_of_unequally_weighted_paths_is_the_convolution():
    """Three paths of weights 0.7, 0.2, 0.1 (DSPP's case): each path's own 22 strata give the exact
    variance and put the mixture's CDF within 0.01 of the exact Σ_s w_s ∫ N(f; m_s, v_s) T((y − f)/s) df."""
    weights, scale, df = np.array([0.7, 0.2, 0.1]), 0.5, 3.0
    mixture = paths_mixture(weights, seed=3, points=4)
    likelihood = gpflow.likelihoods.StudentT(scale=scale, df=df)
    over_y = y_mixture(likelihood, tf.zeros([4, 1], tf.float64), mixture, paths_equally_weighted=False)
    assert over_y.means.shape[0] == 3 * 22  # ⌈64 / 3⌉ strata per path
    mean, variance = mixture_moments(*over_y)
    f_mean, f_variance = mixture_moments(*mixture)
    np.testing.assert_allclose(variance, f_variance + scale**2 * df / (df - 2), rtol=1e-9)
    means, variances = mixture.means.numpy()[..., 0], mixture.variances.numpy()[..., 0]
    for y in (-1.5, 0.0, 0.8, 3.0):
        approximate = mixture_cdf(
            np.full(4, y), over_y.means.numpy()[..., 0], over_y.variances.numpy()[..., 0], over_y.log_weights.numpy()
        )
        for n in range(4):
            exact = sum(
                w
                * integrate.quad(
                    lambda f, m=m, v=v: stats.norm.pdf(f, m, np.sqrt(v)) * stats.t.cdf((y - f) / scale, df),
                    -np.inf,
                    np.inf,
                )[0]
                for w, m, v in zip(weights, means[:, n], variances[:, n])
            )
            assert approximate[n] == pytest.approx(exact, abs=0.01)


def test_a_gaussian_likelihood_keeps_one_component_per_path():
    mixture = paths_mixture(np.full(5, 0.2))
    over_y = y_mixture(gpflow.likelihoods.Gaussian(variance=0.3), tf.zeros([6, 1], tf.float64), mixture)
    np.testing.assert_allclose(over_y.means, mixture.means)
    np.testing.assert_allclose(over_y.variances, mixture.variances + 0.3)
    np.testing.assert_allclose(over_y.log_weights, mixture.log_weights)


def test_a_student_t_models_mixture_over_y_has_the_moments_predict_y_gives():
    """End to end: ``predict_mixture_chunks(over="y")`` of a random-feature model (Student-t, its
    default) has S·Q components whose moments are ``predict_y``'s."""
    import gpflow_deep as gd

    rng = np.random.default_rng(5)
    X = rng.standard_normal((30, 2))
    Y = np.sin(X[:, :1]) + 0.1 * rng.standard_normal((30, 1))
    model = gd.build_random_feature_dgp(X, Y, num_features=10)
    assert isinstance(model.likelihood, gpflow.likelihoods.StudentT)
    (_, over_y), *_ = model.predict_mixture_chunks(X[:7], num_samples=10, seed=3, over="y")
    assert over_y.means.shape == (10 * 7, 7, 1)  # ⌈64 / 10⌉ strata per path
    mean, variance = model.predict_y(X[:7], num_samples=10, seed=3)
    moments = mixture_moments(*over_y)
    np.testing.assert_allclose(moments[0], mean, rtol=1e-10)
    np.testing.assert_allclose(moments[1], variance, rtol=1e-6)
