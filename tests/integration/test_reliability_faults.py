"""Faults injected into training and prediction: a NaN objective, a failed Cholesky, damaged
checkpoints and float32 on real data. Each ends in a clear error or a recovery, never in silent NaN."""

import dataclasses

import gpflow
import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep.core.numerics import NumericalError, checked_prediction
from gpflow_deep.training.nonfinite import MAX_ROLLBACKS, Rollback

rng = np.random.default_rng(11)
X = rng.uniform(-1, 1, size=(40, 2))
Y = np.sin(2 * X[:, :1]) + 0.1 * rng.standard_normal((40, 1))

CALLS = tf.Variable(0, dtype=tf.int64)  # outside any model, so that a rollback does not rewind it


class NaNAtCall(gpflow.likelihoods.Gaussian):
    """A Gaussian likelihood whose expected log-likelihood is NaN on its ``poisoned_call``-th call."""

    def __init__(self, poisoned_call: int, **options):
        super().__init__(**options)
        self.poisoned_call = poisoned_call

    def _variational_expectations(self, X, Fmu, Fvar, Y):
        CALLS.assign_add(1)
        expectations = super()._variational_expectations(X, Fmu, Fvar, Y)
        return tf.where(CALLS == self.poisoned_call, tf.constant(np.nan, expectations.dtype), expectations)


def deep_gp(likelihood=None):
    return gd.build_deep_gp(X, Y, num_inducing=5, likelihood=likelihood)


def trained(model):
    return [v.numpy() for v in model.trainable_variables]


def test_a_nan_objective_stops_fit_naming_the_iteration_with_the_last_good_parameters():
    CALLS.assign(0)
    model = deep_gp(NaNAtCall(15, variance=0.01))
    with pytest.raises(NumericalError) as raised:
        gd.fit(model, (X, Y), 30, seed=0, progress=False)
    assert str(raised.value).startswith(
        "fit: the objective was nan at iteration 15; at fault: the DeepGP model. The model is back at iteration 10, "
        "the last good state; on_nonfinite='rollback' retries from there with half the learning rate. "
        "Try more jitter (gpflow.config.set_default_jitter(1e-4); now 1e-06), float64"
    )
    assert raised.value.iteration == 15
    clean = deep_gp(gpflow.likelihoods.Gaussian(variance=0.01))
    gd.fit(clean, (X, Y), 10, seed=0, progress=False)
    for ours, theirs in zip(trained(model), trained(clean)):
        np.testing.assert_array_equal(ours, theirs)


def test_a_nan_objective_with_rollback_halves_the_learning_rate_and_finishes():
    CALLS.assign(0)
    model = deep_gp(NaNAtCall(15, variance=0.01))
    result = gd.fit(model, (X, Y), 30, seed=0, learning_rate=0.01, on_nonfinite="rollback", progress=False)
    assert result.rollbacks == [Rollback(15, 10, pytest.approx(0.005))]
    assert result.iterations == 30 and result.objectives.shape == (30,) and np.all(np.isfinite(result.objectives))
    assert all(np.all(np.isfinite(value)) for value in trained(model))


def test_rollback_halves_the_natural_gradient_step_as_well():
    CALLS.assign(0)
    model = deep_gp(NaNAtCall(30, variance=0.01))  # two objective calls per step: the second of step 15
    result = gd.fit(model, (X, Y), 30, seed=0, natgrad_gamma=0.1, on_nonfinite="rollback", progress=False)
    assert result.rollbacks == [Rollback(15, 10, pytest.approx(0.005), pytest.approx(0.05))]
    assert np.all(np.isfinite(result.objectives)) and all(np.all(np.isfinite(v)) for v in trained(model))


def failing_cholesky_model():
    """Layer 1's inducing inputs all at one point: with no jitter its Kuu has rank 1."""
    model = deep_gp()
    Z = model.layers[1].inducing_variable.inducing_variable.Z
    Z.assign(np.repeat(Z.numpy()[:1], 5, axis=0))
    return model


@pytest.fixture
def no_jitter():
    with gpflow.config.as_context(dataclasses.replace(gpflow.config.config(), jitter=0.0)):
        yield


CHOLESKY_AT_LAYER_1 = (
    "; at fault: layer 1 (layer_1, GPLayer): the Cholesky factorisation of its inducing-point covariance Kuu failed. "
)


def test_a_cholesky_failure_in_prediction_names_the_layer_and_the_fix(no_jitter):
    with pytest.raises(NumericalError) as raised:
        failing_cholesky_model().predict_f(X)
    assert str(raised.value) == (
        f"predict_f gave NaN{CHOLESKY_AT_LAYER_1}Try more jitter (gpflow.config.set_default_jitter(1e-4); now 0), "
        "float64 (gpflow.config.set_default_float(np.float64); the model is float64), or a smaller learning rate."
    )
    assert raised.value.layer == 1


def test_a_cholesky_failure_in_fit_names_the_layer_in_both_modes(no_jitter):
    with pytest.raises(NumericalError) as raised:
        gd.fit(failing_cholesky_model(), (X, Y), 5, progress=False)
    assert str(raised.value).startswith(f"fit: the objective was nan at iteration 1{CHOLESKY_AT_LAYER_1}")
    with pytest.raises(NumericalError) as raised:
        gd.fit(failing_cholesky_model(), (X, Y), 5, on_nonfinite="rollback", progress=False)
    assert f"The model is back at iteration 0, the last good state after {MAX_ROLLBACKS} rollbacks." in str(
        raised.value
    )


def test_a_tensorflow_cholesky_error_is_explained():
    """TensorFlow versions and devices that raise instead of returning NaN get the same explanation."""

    def raising():
        raise tf.errors.InvalidArgumentError(None, None, "Cholesky decomposition was not successful.")

    with pytest.raises(NumericalError, match=r"^predict_y failed: Cholesky decomposition was not successful.; at"):
        checked_prediction(deep_gp(), "predict_y", tf.constant(X), raising)


def damage(path, how: str) -> None:
    with open(path, "r+b") as handle:
        if how == "truncate":
            handle.truncate(handle.seek(0, 2) // 2)
        else:
            handle.seek(-20, 2)
            handle.write(b"\0" * 8)


def test_a_damaged_newest_checkpoint_falls_back_to_the_previous_one(tmp_path):
    straight = deep_gp()
    gd.fit(straight, (X, Y), 20, batch_size=16, seed=1, progress=False)
    gd.fit(
        deep_gp(), (X, Y), 10, batch_size=16, seed=1, checkpoint_dir=str(tmp_path), checkpoint_every=5, progress=False
    )
    damage(tmp_path / "ckpt-10.data-00000-of-00001", "overwrite")
    assert gd.restore_checkpoint(deep_gp(), str(tmp_path)) == 5  # a checksum mismatch
    damage(tmp_path / "ckpt-10.data-00000-of-00001", "truncate")
    resumed = deep_gp()
    result = gd.fit(resumed, (X, Y), 20, batch_size=16, seed=1, checkpoint_dir=str(tmp_path), progress=False)
    assert result.resumed_from == 5
    for ours, theirs in zip(trained(resumed), trained(straight)):
        np.testing.assert_array_equal(ours, theirs)


def test_a_directory_of_unreadable_checkpoints_is_refused(tmp_path):
    gd.fit(deep_gp(), (X, Y), 2, checkpoint_dir=str(tmp_path), progress=False)
    damage(tmp_path / "ckpt-2.data-00000-of-00001", "truncate")
    with pytest.raises(ValueError, match=r"checkpoint_dir=.*: none of its checkpoints can be read in full"):
        gd.restore_checkpoint(deep_gp(), str(tmp_path))


FLOAT32_BUILDS = {
    "build_deep_gp": dict(num_inducing=10),
    "build_dspp": dict(num_inducing=10),
    "build_random_feature_dgp": dict(num_features=20),
    "build_aep_dgp": dict(num_inducing=10, num_samples=5),
    "build_sod_dgp": dict(subset_size=10, num_samples=2),
}


@pytest.fixture(scope="module")
def boston():
    part = gd.datasets.uci_split(gd.datasets.load("boston"), split=0)
    return part.X_train[:100], part.Y_train[:100], part.X_test[:50]


@pytest.mark.parametrize("builder", sorted(FLOAT32_BUILDS))
def test_float32_on_boston_stays_finite(builder, boston):
    X_train, Y_train, X_test = boston
    with gpflow.config.as_context(dataclasses.replace(gpflow.config.config(), float=np.float32)):
        model = getattr(gd, builder)(X_train, Y_train, 2, seed=0, **FLOAT32_BUILDS[builder])
        result = gd.fit(model, (X_train, Y_train), 25, batch_size=50, seed=0, learning_rate=0.02, progress=False)
        mean, var = (v.numpy() for v in model.predict_y(X_test, num_samples=10, seed=0))
    assert model.dtype == tf.float32 and mean.dtype == np.float32
    assert np.all(np.isfinite(result.objectives)) and result.objectives[-1] > result.objectives[0]
    assert np.all(np.isfinite(mean)) and np.all(var > 0)
