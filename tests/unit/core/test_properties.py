"""Properties of every model's predictive over random small set-ups (hypothesis): documented
shapes, finite values, positive variances, a Gaussian ``predict_log_density`` equal to the density
of ``predict_mixture``, and no dependence on the prediction chunk size (Monte Carlo models
included: their noise is keyed by row, :mod:`gpflow_deep.core.row_noise`)."""

import gpflow
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import norm

import gpflow_deep as gd

LIKELIHOODS = {
    "gaussian": (lambda: gpflow.likelihoods.Gaussian(variance=0.1), lambda f, r: f + 0.1 * r.standard_normal(f.shape)),
    "bernoulli": (gpflow.likelihoods.Bernoulli, lambda f, r: (f > 0).astype(float)),
    "poisson": (gpflow.likelihoods.Poisson, lambda f, r: r.poisson(np.exp(f)).astype(float)),
    "multiclass": (lambda: gpflow.likelihoods.MultiClass(3), lambda f, r: np.digitize(f, [-0.3, 0.3]).astype(float)),
}

# builder, its size options for M (inducing points, subset or features), likelihoods it takes
MODELS = {
    "build_deep_gp": (lambda M: dict(num_inducing=M), sorted(LIKELIHOODS)),
    "build_dspp": (lambda M: dict(num_inducing=M, num_sigma_points=3), ["gaussian", "bernoulli", "poisson"]),
    "build_random_feature_dgp": (lambda M: dict(num_features=2 * M), sorted(LIKELIHOODS)),
    "build_aep_dgp": (lambda M: dict(num_inducing=M, num_samples=2), sorted(LIKELIHOODS)),
    "build_sod_dgp": (lambda M: dict(subset_size=M, num_samples=2), ["gaussian"]),
}


@st.composite
def set_ups(draw, builder):
    """A tiny problem and model options: N ≤ 30 points of width D ≤ 3, M ≤ 5, ≤ 3 layers."""
    sizes, likelihoods = MODELS[builder]
    N, D = draw(st.integers(10, 30)), draw(st.integers(1, 3))
    name = draw(st.sampled_from(likelihoods))
    r = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = r.uniform(-1, 1, size=(N, D))
    make_likelihood, targets = LIKELIHOODS[name]
    options = dict(
        sizes(draw(st.integers(2, 5))), num_layers=draw(st.integers(1, 3)), hidden_width=draw(st.integers(1, 3))
    )
    if builder != "build_sod_dgp":
        options["likelihood"] = make_likelihood()
    Y = targets(np.sin(3 * X.sum(axis=1, keepdims=True)), r)
    return dict(
        X=X,
        Y=Y,
        options=options,
        likelihood=name,
        num_samples=draw(st.integers(1, 5)),
        chunk=draw(st.integers(1, N)),
    )


def gaussian_mixture_log_density(mixture, Y, noise_variance):
    """log Σ_s w_s N(y | μ_s, σ²_s + σ²) per point, summed over output columns, in NumPy."""
    means, variances, log_weights = (np.asarray(part) for part in mixture)
    per_path = norm.logpdf(Y[None], means, np.sqrt(variances + noise_variance)).sum(axis=-1)
    return logsumexp(log_weights[:, None] + per_path, axis=0)


def perturb(model, r: np.random.Generator) -> None:
    """Move every trained variable a little (in its unconstrained space), away from the builder's
    symmetric start (zero means on the last layer give input-independent predictions)."""
    for variable in model.trainable_variables:
        variable.assign(variable + 0.3 * r.standard_normal(variable.shape))


def mixture_moments(mixture):
    """Mean and variance ``[N, P]`` of the mixture over f, in NumPy."""
    means, variances, log_weights = (np.asarray(part) for part in mixture)
    weights = np.exp(log_weights)[:, None, None]
    mean = np.sum(weights * means, axis=0)
    return mean, np.sum(weights * (variances + (means - mean) ** 2), axis=0)


# The chunk size changes float64 round-off in the products before the features, and random features
# round their angles to float32 for the trigonometry (feature_maps.cosines_and_sines), where a
# difference of 1e-16 can move an angle by one float32 step: their tolerance is float32's.
CHUNK_RTOL = {"build_random_feature_dgp": 1e-6}


def chunk_rtol(builder: str) -> float:
    """The relative tolerance of predictions made in other chunks: 1e-10, or float32's (above)."""
    return CHUNK_RTOL.get(builder, 1e-10)


def check_predictive(builder, set_up):
    X, Y, S = set_up["X"], set_up["Y"], set_up["num_samples"]
    model = getattr(gd, builder)(X, Y, seed=0, **set_up["options"])
    perturb(model, np.random.default_rng(S))
    N, P = X.shape[0], model.layers[-1].output_dim
    mixture = model.predict_mixture(X, num_samples=S, seed=1)
    paths = mixture.log_weights.shape[0]
    assert paths == S or not model.monte_carlo
    assert mixture.means.shape == mixture.variances.shape == (paths, N, P)
    assert np.isclose(logsumexp(mixture.log_weights.numpy()), 0.0)
    f_mean, f_var = mixture_moments(mixture)
    y_mean, y_var = (v.numpy() for v in model.predict_y(X, num_samples=S, seed=1))
    assert f_mean.shape == f_var.shape == (N, P) and y_mean.shape[0] == y_var.shape[0] == N
    assert all(np.all(np.isfinite(v)) for v in (f_mean, f_var, y_mean, y_var))
    assert np.all(f_var >= 0) and np.all(y_var >= 0)
    assert model.predict_f_samples(X, num_samples=S, seed=1).shape == (S, N, P)
    log_density = model.predict_log_density((X, Y), num_samples=S, seed=1).numpy()
    assert log_density.shape == (N,) and np.all(np.isfinite(log_density))
    if set_up["likelihood"] == "gaussian":
        assert np.all(y_var > 0)
        expected = gaussian_mixture_log_density(mixture, Y, model.likelihood.variance.numpy())
        np.testing.assert_allclose(log_density, expected, rtol=1e-8, atol=1e-8)
    model.prediction_batch_size = set_up["chunk"]
    for chunked, whole in zip(model.predict_y(X, num_samples=S, seed=1), (y_mean, y_var)):
        np.testing.assert_allclose(chunked.numpy(), whole, rtol=chunk_rtol(builder), atol=1e-12)


PROPERTY_SETTINGS = settings(max_examples=2, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("builder", sorted(MODELS))
def test_every_model_keeps_its_predictive_properties(builder):
    @PROPERTY_SETTINGS
    @given(set_ups(builder))
    def check(set_up):
        check_predictive(builder, set_up)

    check()


@pytest.mark.parametrize("builder", sorted(set(MODELS) - {"build_dspp"}))
def test_monte_carlo_predictions_do_not_depend_on_the_chunk_size(builder):
    """150 rows (more than two noise blocks) in one chunk, and in chunks of 37 that straddle the
    blocks: the same paths, the same noise per row, the same numbers; another seed differs."""
    r = np.random.default_rng(0)
    X = r.uniform(-1, 1, size=(150, 2))
    model = getattr(gd, builder)(X, np.sin(X[:, :1]), num_layers=2, seed=0, **MODELS[builder][0](4))
    perturb(model, r)
    data = (X, np.sin(X[:, :1]))
    whole = [model.predict_y(X, num_samples=3, seed=1)[0], model.predict_log_density(data, num_samples=3, seed=1)]
    other_seed = model.predict_y(X, num_samples=3, seed=2)[0]
    assert not np.allclose(other_seed, whole[0])
    model.prediction_batch_size = 37
    chunked = [model.predict_y(X, num_samples=3, seed=1)[0], model.predict_log_density(data, num_samples=3, seed=1)]
    for part, reference in zip(chunked, whole):
        np.testing.assert_allclose(part.numpy(), reference.numpy(), rtol=chunk_rtol(builder), atol=1e-12)
