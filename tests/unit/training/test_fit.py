"""Training: fit, natural gradients, seeds, checkpoints, and the plain GPflow way."""

import gpflow
import numpy as np
import pytest
import tensorflow as tf
from gpflow.keras import tf_keras

import gpflow_deep as gd


def build(concrete_split, **options):
    X, Y, _, _ = concrete_split
    return gd.build_deep_gp(X, Y, num_layers=2, num_inducing=20, **options)


def parameters(model):
    return [v.numpy() for v in model.trainable_variables]


def test_fit_improves_the_elbo(concrete_split):
    X, Y, _, _ = concrete_split
    model = build(concrete_split)
    before = np.mean([model.elbo((X, Y)) for _ in range(5)])
    result = gd.fit(model, (X, Y), iterations=100, seed=0, progress=False)
    assert result.iterations == 100 and result.objectives.shape == (100,)
    assert np.mean([model.elbo((X, Y)) for _ in range(5)]) > before + 50
    assert result.seconds > result.first_step_seconds > 0 and result.seconds_per_iteration > 0


def test_same_seed_same_run(concrete_split):
    X, Y, _, _ = concrete_split
    runs = []
    for _ in range(2):
        model = build(concrete_split)
        result = gd.fit(model, (X, Y), iterations=15, batch_size=32, seed=4, progress=False)
        runs.append((result.objectives, parameters(model)))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_array_equal(a, b)
    other = build(concrete_split)
    assert not np.array_equal(gd.fit(other, (X, Y), 15, batch_size=32, seed=5, progress=False).objectives, runs[0][0])


@pytest.mark.parametrize(
    "builder, options, rate",
    [
        (gd.build_deep_gp, {"num_inducing": 10}, 0.01),
        (gd.build_aep_dgp, {"num_inducing": 10}, 0.003),
        (gd.build_random_feature_dgp, {"num_features": 10}, 0.003),
    ],
)
def test_without_a_learning_rate_fit_takes_the_models_own(concrete_split, builder, options, rate):
    """``learning_rate=None`` is the model's ``default_learning_rate``: the same two steps as
    passing it, and not the steps of another rate."""
    X, Y, _, _ = concrete_split
    runs = {}
    for given in (None, rate, 2 * rate):
        model = builder(X[:60], Y[:60], **options)
        gd.fit(model, (X[:60], Y[:60]), iterations=2, learning_rate=given, seed=1, progress=False)
        runs[given] = parameters(model)
    assert builder(X[:60], Y[:60], **options).default_learning_rate == rate
    for default, same in zip(runs[None], runs[rate]):
        np.testing.assert_array_equal(default, same)
    assert any(not np.array_equal(a, b) for a, b in zip(runs[None], runs[2 * rate]))


def test_natural_gradients_on_the_last_layer(concrete_split):
    X, Y, _, _ = concrete_split
    model = build(concrete_split)
    q_mu = model.layers[-1].q_mu.numpy().copy()
    result = gd.fit(model, (X, Y), iterations=40, natgrad_gamma=0.1, seed=0, progress=False)
    assert not np.allclose(model.layers[-1].q_mu.numpy(), q_mu)
    assert result.objectives[-5:].mean() > result.objectives[:5].mean()


def test_natural_gradients_need_a_full_q_sqrt(concrete_split):
    X, Y, _, _ = concrete_split
    with pytest.raises(ValueError, match="full q_sqrt"):
        gd.fit(build(concrete_split, q_diag=True), (X, Y), 5, natgrad_gamma=0.1, progress=False)
    with pytest.raises(ValueError, match="natgrad_gamma must be positive"):
        gd.fit(build(concrete_split), (X, Y), 5, natgrad_gamma=0.0, progress=False)


def test_xla_compiled_steps_train_the_same_model(concrete_split):
    """A one-layer model has a deterministic objective, so both runs follow the same path."""
    X, Y, _, _ = concrete_split
    plain, compiled = (gd.build_deep_gp(X, Y, num_layers=1, num_inducing=20) for _ in range(2))
    a = gd.fit(plain, (X, Y), 10, progress=False).objectives
    b = gd.fit(compiled, (X, Y), 10, progress=False, jit_compile=True).objectives
    np.testing.assert_allclose(a, b, rtol=1e-9)


def test_checkpoint_restored_into_a_fresh_model_gives_identical_predictions(concrete_split, tmp_path):
    X, Y, X_test, _ = concrete_split
    model = build(concrete_split)
    gd.fit(model, (X, Y), 30, checkpoint_dir=str(tmp_path), checkpoint_every=10, progress=False)
    fresh = build(concrete_split)
    assert gd.restore_checkpoint(fresh, str(tmp_path)) == 30
    for ours, theirs in zip(model.predict_y(X_test, seed=3), fresh.predict_y(X_test, seed=3)):
        np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        gd.restore_checkpoint(fresh, str(tmp_path / "missing"))


def test_resumed_run_equals_an_uninterrupted_run(concrete_split, tmp_path):
    X, Y, _, _ = concrete_split
    straight = build(concrete_split)
    gd.fit(straight, (X, Y), 20, batch_size=50, seed=2, progress=False)
    interrupted = build(concrete_split)
    gd.fit(interrupted, (X, Y), 10, batch_size=50, seed=2, checkpoint_dir=str(tmp_path), progress=False)
    resumed = build(concrete_split)
    result = gd.fit(resumed, (X, Y), 20, batch_size=50, seed=2, checkpoint_dir=str(tmp_path), progress=False)
    assert result.resumed_from == 10 and result.iterations == 20 and len(result.objectives) == 10
    for a, b in zip(parameters(straight), parameters(resumed)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_the_plain_gpflow_way(concrete_split, tmp_path):
    X, Y, _, _ = concrete_split
    model = build(concrete_split)
    dataset = tf.data.Dataset.from_tensor_slices((X, Y)).repeat().shuffle(200, seed=0).batch(64)
    loss = model.training_loss_closure(iter(dataset))
    optimizer = tf_keras.optimizers.Adam(0.01)
    step = tf.function(lambda: optimizer.minimize(loss, model.trainable_variables))
    monitor = gpflow.monitor.Monitor(
        gpflow.monitor.MonitorTaskGroup(gpflow.monitor.ModelToTensorBoard(str(tmp_path), model), period=10)
    )
    before = np.mean([loss() for _ in range(10)])
    for iteration in range(60):
        step()
        monitor(iteration)
    assert np.mean([loss() for _ in range(10)]) < before
    assert list(tmp_path.iterdir())


def test_fit_rejects_bad_input_before_training(concrete_split):
    X, Y, _, _ = concrete_split
    model = build(concrete_split)
    bad_Y = Y.copy()
    bad_Y[3] = np.nan
    with pytest.raises(ValueError, match="Y contains NaN or Inf"):
        gd.fit(model, (X, bad_Y), 5, progress=False)
    with pytest.raises(ValueError, match="X must have 8 columns"):
        gd.fit(model, (X[:, :3], Y), 5, progress=False)
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        gd.fit(model, (X, Y), 0, progress=False)
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        gd.fit(model, (X, Y), 5, batch_size=0, progress=False)
    with pytest.raises(TypeError, match="data must be a pair"):
        gd.fit(model, X, 5, progress=False)
    with pytest.raises(TypeError, match="model must be a gpflow_deep model"):
        gd.fit(gpflow.models.GPR((X, Y), gpflow.kernels.SquaredExponential()), (X, Y), 5, progress=False)


def test_progress_line(concrete_split, capsys):
    X, Y, _, _ = concrete_split
    gd.fit(build(concrete_split), (X, Y), 20, progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 10 and lines[-1].startswith("iteration 20/20  objective -")
