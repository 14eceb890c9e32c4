"""``fit(..., anneal=...)``: Adam's step lowered along a half cosine over the iterations, by default
for the models whose ``anneals_learning_rate`` is set (``RandomFeatureDGP``)."""

import numpy as np
import pytest
import tensorflow as tf
from gpflow.keras import tf_keras

import gpflow_deep as gd
from gpflow_deep.training import FusedAdam

ITERATIONS = 6


class HalfCosine(tf_keras.optimizers.schedules.LearningRateSchedule):
    """The schedule the docs state, written out: step k (from 0) of n at r · (1 + cos(πk / n)) / 2."""

    def __init__(self, rate: float, iterations: int):
        self.rate, self.iterations = rate, iterations

    def __call__(self, step):
        fraction = tf.cast(step, tf.float32) / self.iterations
        return self.rate * 0.5 * (1.0 + tf.cos(np.pi * fraction))

    def get_config(self):
        return dict(rate=self.rate, iterations=self.iterations)


def random_features(concrete_split):
    X, Y, _, _ = concrete_split
    return gd.build_random_feature_dgp(X[:60], Y[:60], num_features=10)


def trained(model, concrete_split, iterations=ITERATIONS, **options):
    X, Y, _, _ = concrete_split
    gd.fit(model, (X[:60], Y[:60]), iterations, seed=3, progress=False, **options)
    return [v.numpy() for v in model.trainable_variables]


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_random_features_anneal_by_default_along_the_half_cosine(concrete_split):
    model = random_features(concrete_split)
    assert model.anneals_learning_rate and not gd.models.DeepGP.anneals_learning_rate
    default = trained(model, concrete_split)
    rate = model.default_learning_rate
    by_hand = trained(
        random_features(concrete_split), concrete_split, optimizer=FusedAdam(HalfCosine(rate, ITERATIONS))
    )
    np.testing.assert_allclose(
        np.concatenate([v.ravel() for v in default]), np.concatenate([v.ravel() for v in by_hand])
    )
    assert same(default, trained(random_features(concrete_split), concrete_split, anneal=True))
    assert not same(default, trained(random_features(concrete_split), concrete_split, anneal=False))
    constant = trained(random_features(concrete_split), concrete_split, optimizer=FusedAdam(rate))
    assert same(constant, trained(random_features(concrete_split), concrete_split, anneal=False))


def test_other_models_keep_a_constant_step_unless_told(concrete_split):
    X, Y, _, _ = concrete_split

    def deep_gp():
        return gd.build_deep_gp(X[:60], Y[:60], num_inducing=10)

    default = trained(deep_gp(), concrete_split)
    assert same(default, trained(deep_gp(), concrete_split, anneal=False))
    annealed = trained(deep_gp(), concrete_split, anneal=True)
    assert not same(default, annealed)
    by_hand = trained(deep_gp(), concrete_split, optimizer=FusedAdam(HalfCosine(0.01, ITERATIONS)))
    np.testing.assert_allclose(
        np.concatenate([v.ravel() for v in annealed]), np.concatenate([v.ravel() for v in by_hand])
    )


def test_a_resumed_run_carries_on_along_the_same_schedule(concrete_split, tmp_path):
    whole = trained(random_features(concrete_split), concrete_split)
    model = random_features(concrete_split)
    X, Y, _, _ = concrete_split
    first = gd.fit(
        model, (X[:60], Y[:60]), ITERATIONS, seed=3, progress=False, time_budget=1e-9, checkpoint_dir=str(tmp_path)
    )
    assert first.iterations < ITERATIONS
    resumed = gd.fit(model, (X[:60], Y[:60]), ITERATIONS, seed=3, progress=False, checkpoint_dir=str(tmp_path))
    assert resumed.resumed_from == first.iterations and resumed.iterations == ITERATIONS
    np.testing.assert_allclose(
        np.concatenate([v.numpy().ravel() for v in model.trainable_variables]),
        np.concatenate([v.ravel() for v in whole]),
        rtol=1e-6,
    )


def test_annealing_needs_fits_own_adam_and_the_iterations(concrete_split):
    X, Y, _, _ = concrete_split
    model = random_features(concrete_split)
    with pytest.raises(ValueError, match="anneal=True needs .* an optimizer"):
        gd.fit(model, (X[:60], Y[:60]), 2, anneal=True, optimizer=FusedAdam(0.01), progress=False)
    with pytest.raises(ValueError, match="anneal=True needs .* iterations=None"):
        gd.fit(model, (X[:60], Y[:60]), None, anneal=True, time_budget=1.0, progress=False)
    with pytest.raises(TypeError, match="anneal must be True, False or None"):
        gd.fit(model, (X[:60], Y[:60]), 2, anneal="yes", progress=False)
    # without iterations the default falls back to a constant step: nothing to anneal over
    assert gd.fit(model, (X[:60], Y[:60]), None, time_budget=1e-9, progress=False).iterations == 1
