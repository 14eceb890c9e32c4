"""TensorBoard logs written by fit, read back with TensorBoard's own event reader."""

import gpflow
import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import gpflow_deep as gd


def read_events(log_dir):
    accumulator = EventAccumulator(str(log_dir), size_guidance={"tensors": 0, "images": 0})
    accumulator.Reload()
    scalars = {
        tag: [(event.step, float(tf.make_ndarray(event.tensor_proto))) for event in accumulator.Tensors(tag)]
        for tag in accumulator.Tags()["tensors"]
        if tag != "predictive"
    }
    images = [tag for tag in accumulator.Tags()["tensors"] if tag == "predictive"] + accumulator.Tags()["images"]
    return scalars, images


def test_fit_writes_the_promised_scalars(concrete_split, tmp_path):
    X, Y, X_test, Y_test = concrete_split
    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=20)
    model.num_prediction_samples = 10  # the held-out scores are Monte Carlo estimates; keep them cheap
    result = gd.fit(
        model,
        (X, Y),
        25,
        log_dir=str(tmp_path),
        monitor_every=10,
        validation_data=(X_test, Y_test),
        progress=False,
    )
    scalars, _ = read_events(tmp_path)
    for tag in ("objective", "kl/layer_0", "kl/layer_1", "validation/log_density", "validation/rmse"):
        assert [step for step, _ in scalars[tag]] == [10, 20, 25], tag
    np.testing.assert_allclose(scalars["objective"][-1][1], result.objectives[-1], rtol=1e-6)
    np.testing.assert_allclose(scalars["kl/layer_1"][-1][1], model.layers[1].prior_kl(), rtol=1e-6)
    np.testing.assert_allclose(scalars["likelihood.variance"][-1][1], model.likelihood.variance.numpy(), rtol=1e-6)
    lengthscale_tags = [tag for tag in scalars if tag.startswith("layers[0].kernel") and "lengthscales" in tag]
    assert len(lengthscale_tags) == 8  # one per input dimension (ARD)
    rmse = scalars["validation/rmse"][-1][1]
    mean = model.predict_y(X_test)[0].numpy()
    assert abs(rmse - np.sqrt(np.mean((mean - Y_test) ** 2))) < 0.05  # a fresh Monte Carlo estimate


def test_one_dimensional_inputs_get_an_image_of_the_predictive(rng, tmp_path):
    X = np.sort(rng.uniform(-3, 3, (40, 1)), axis=0)
    Y = np.sign(X) + 0.1 * rng.normal(size=X.shape)
    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=10)
    gd.fit(model, (X, Y), 10, log_dir=str(tmp_path), monitor_every=5, progress=False)
    _, images = read_events(tmp_path)
    assert images


def test_monitor_tasks_work_in_a_users_own_loop(concrete_split, tmp_path):
    X, Y, _, _ = concrete_split
    model = gd.build_deep_gp(X, Y, num_layers=2, num_inducing=20)
    monitor = gpflow.monitor.Monitor(
        gpflow.monitor.MonitorTaskGroup(gd.training.monitor_tasks(str(tmp_path), model), period=2)
    )
    for step in range(4):
        monitor(step, objective=float(model.elbo((X, Y))))
    scalars, _ = read_events(tmp_path)
    assert [step for step, _ in scalars["objective"]] == [0, 2]
