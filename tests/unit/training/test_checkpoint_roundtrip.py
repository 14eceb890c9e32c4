"""Checkpoints of every model: a fresh model (same builder, same arguments) restored from one
predicts as the saved model did, and a run resumed in it equals an uninterrupted run."""

import logging

import numpy as np
import pytest
import tensorflow as tf

import gpflow_deep as gd
from gpflow_deep.registry import MODEL_BUILDERS
from gpflow_deep.training import checkpoints

pytestmark = pytest.mark.shape_checks("off")

OPTIONS = {"deep_gp": dict(num_inducing=5), "dspp": dict(num_inducing=5), "aep_dgp": dict(num_inducing=5)}
STEPS = 3
TRAINING = dict(batch_size=16, seed=3, progress=False, anneal=0)
"""A constant step: a run extended to more iterations anneals over the new total (the killed-and-
restarted annealed run is in test_annealing.py)."""

SLOW = pytest.mark.slow  # the default run keeps the cheapest model; DeepGP's resume is also in test_fit.py


@pytest.mark.parametrize(
    "name", [name if name == "random_feature_dgp" else pytest.param(name, marks=SLOW) for name in MODEL_BUILDERS]
)
def test_a_resumed_run_continues_exactly(name, tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(40, 1))

    def build():
        return getattr(gd, MODEL_BUILDERS[name])(X, Y, 2, **OPTIONS.get(name, {}))

    straight = build()
    gd.fit(straight, (X, Y), 2 * STEPS, **TRAINING)
    interrupted = build()
    gd.fit(interrupted, (X, Y), STEPS, checkpoint_dir=str(tmp_path), **TRAINING)

    resumed = build()
    assert gd.restore_checkpoint(resumed, str(tmp_path)) == STEPS
    for ours, theirs in zip(interrupted.predict_y(X, 5, seed=1), resumed.predict_y(X, 5, seed=1)):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(interrupted.rng.state, resumed.rng.state)

    result = gd.fit(resumed, (X, Y), 2 * STEPS, checkpoint_dir=str(tmp_path), **TRAINING)
    assert result.resumed_from == STEPS and result.iterations == 2 * STEPS
    for ours, theirs in zip(straight.trainable_variables, resumed.trainable_variables):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=ours.name)
    initial = build().trainable_variables
    assert any(not np.array_equal(a.numpy(), b.numpy()) for a, b in zip(initial, straight.trainable_variables))


def test_a_checkpoint_with_the_earlier_iterator_resumes_with_a_fresh_epoch_and_a_warning(tmp_path, monkeypatch, caplog):
    """Checkpoints written before 2026-11-26 hold the minibatch iterator as ``data``, of another
    dataset: the model, optimizer and iteration resume, the batches restart, and the user is told."""
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(40, 2)), rng.normal(size=(40, 1))
    interrupted = gd.build_random_feature_dgp(X, Y, 2)
    monkeypatch.setattr(checkpoints, "ITERATOR_NAME", checkpoints.EARLIER_ITERATOR_NAME)
    gd.fit(interrupted, (X, Y), STEPS, checkpoint_dir=str(tmp_path), **TRAINING)
    monkeypatch.undo()
    resumed = gd.build_random_feature_dgp(X, Y, 2)
    with caplog.at_level(logging.WARNING, logger="gpflow_deep"):
        result = gd.fit(resumed, (X, Y), 2 * STEPS, checkpoint_dir=str(tmp_path), **TRAINING)
    assert result.resumed_from == STEPS and result.iterations == 2 * STEPS
    assert "written by an earlier gpflow_deep" in caplog.text and "fresh epoch" in caplog.text
    assert any(name.startswith("batches/") for name, _ in tf.train.list_variables(tf.train.latest_checkpoint(tmp_path)))
