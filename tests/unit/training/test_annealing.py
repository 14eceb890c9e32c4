"""``fit(..., anneal=a)``: the share a of Adam's step taken away along a half cosine over the
iterations, and each model's ``default_anneal`` when none is given."""

import numpy as np
import pytest
import tensorflow as tf
from gpflow.keras import tf_keras

import gpflow_deep as gd
from gpflow_deep.training import FusedAdam

ITERATIONS = 6


class HalfCosine(tf_keras.optimizers.schedules.LearningRateSchedule):
    """The schedule the docs state, written out: step k (from 0) of n at r · (1 − a + a · (1 + cos(πk / n)) / 2)."""

    def __init__(self, rate: float, iterations: int, share: float = 1.0):
        self.rate, self.iterations, self.share = rate, iterations, share

    def __call__(self, step):
        fraction = tf.cast(step, tf.float32) / self.iterations
        return self.rate * (1.0 - self.share + self.share * 0.5 * (1.0 + tf.cos(np.pi * fraction)))

    def get_config(self):
        return dict(rate=self.rate, iterations=self.iterations, share=self.share)


def random_features(concrete_split):
    X, Y, _, _ = concrete_split
    return gd.build_random_feature_dgp(X[:60], Y[:60], num_features=10)


def aep_dgp(concrete_split):
    X, Y, _, _ = concrete_split
    return gd.build_aep_dgp(X[:60], Y[:60], num_inducing=10, num_samples=2)


def deep_gp(concrete_split):
    X, Y, _, _ = concrete_split
    return gd.build_deep_gp(X[:60], Y[:60], num_inducing=10)


def trained(model, concrete_split, iterations=ITERATIONS, **options):
    X, Y, _, _ = concrete_split
    gd.fit(model, (X[:60], Y[:60]), iterations, seed=3, progress=False, **options)
    return np.concatenate([v.numpy().ravel() for v in model.trainable_variables])


def by_hand(build, concrete_split, share):
    model = build(concrete_split)
    schedule = HalfCosine(model.default_learning_rate, ITERATIONS, share) if share else model.default_learning_rate
    return trained(model, concrete_split, optimizer=FusedAdam(schedule))


@pytest.mark.parametrize("build", [random_features, deep_gp])
@pytest.mark.parametrize("anneal, share", [(True, 1.0), (0.7, 0.7), (0, 0.0)])
def test_a_share_of_the_step_is_annealed_along_the_half_cosine(concrete_split, build, anneal, share):
    annealed = trained(build(concrete_split), concrete_split, anneal=anneal)
    np.testing.assert_allclose(annealed, by_hand(build, concrete_split, share))


@pytest.mark.parametrize("build, share", [(random_features, 0.7), (deep_gp, 0.0), (aep_dgp, 0.7)])
def test_without_anneal_each_model_takes_its_default_share(concrete_split, build, share):
    assert build(concrete_split).default_anneal == share
    default = trained(build(concrete_split), concrete_split)
    np.testing.assert_allclose(default, by_hand(build, concrete_split, share))
    other = 0.7 if share == 0.0 else 0.0
    assert not np.allclose(default, by_hand(build, concrete_split, other))


def test_the_default_share_gives_way_to_a_users_optimizer_and_to_a_time_bound(concrete_split):
    """Where the default cannot apply, the step is the constant one asked for, and nothing is raised."""
    X, Y, _, _ = concrete_split
    mine = trained(aep_dgp(concrete_split), concrete_split, optimizer=FusedAdam(0.003))
    np.testing.assert_array_equal(mine, by_hand(aep_dgp, concrete_split, 0.0))
    result = gd.fit(aep_dgp(concrete_split), (X[:60], Y[:60]), None, time_budget=1e-9, progress=False)
    assert result.iterations == 1


def test_a_resumed_annealed_run_carries_on_along_the_same_schedule(concrete_split, tmp_path):
    """Stopped after its first step and resumed in a fresh model (a new optimizer, its step count
    restored from the checkpoint), the run ends where an uninterrupted one does."""
    whole = trained(random_features(concrete_split), concrete_split, anneal=0.7)
    X, Y, _, _ = concrete_split
    options = dict(seed=3, progress=False, anneal=0.7, checkpoint_dir=str(tmp_path))
    first = gd.fit(random_features(concrete_split), (X[:60], Y[:60]), ITERATIONS, time_budget=1e-9, **options)
    assert first.iterations < ITERATIONS
    model = random_features(concrete_split)
    resumed = gd.fit(model, (X[:60], Y[:60]), ITERATIONS, **options)
    assert resumed.resumed_from == first.iterations and resumed.iterations == ITERATIONS
    np.testing.assert_allclose(np.concatenate([v.numpy().ravel() for v in model.trainable_variables]), whole, rtol=1e-6)


def test_annealing_needs_fits_own_adam_and_the_iterations_and_a_share_in_0_1(concrete_split):
    X, Y, _, _ = concrete_split
    model = random_features(concrete_split)
    with pytest.raises(ValueError, match="anneal=0.7 needs .* an optimizer"):
        gd.fit(model, (X[:60], Y[:60]), 2, anneal=0.7, optimizer=FusedAdam(0.01), progress=False)
    with pytest.raises(ValueError, match="anneal=True needs .* iterations=None"):
        gd.fit(model, (X[:60], Y[:60]), None, anneal=True, time_budget=1.0, progress=False)
    for share in (1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="anneal must be a share of the step in \\[0, 1\\]"):
            gd.fit(model, (X[:60], Y[:60]), 2, anneal=share, progress=False)
    with pytest.raises(TypeError, match="anneal must be a bool or a share"):
        gd.fit(model, (X[:60], Y[:60]), 2, anneal="yes", progress=False)
