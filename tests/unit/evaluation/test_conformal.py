"""Split-conformal intervals: the finite-sample coverage guarantee, the level map and the model API."""

import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.evaluation.calibration import central_interval, interval_coverage
from gpflow_deep.evaluation.conformal import ConformalLevels, calibrate, conformity_scores, predict_interval


def overconfident_scores(rng, n):
    """Scores of N(0, 0.5²) predictives for targets drawn from N(0, 1)."""
    y = rng.normal(size=n)
    return conformity_scores(y, np.zeros((1, n)), np.full((1, n), 0.25), np.zeros(1))


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95])
def test_coverage_is_the_conformal_rank_over_n_plus_one(rng, level):
    """Over many calibration/test draws, coverage is ⌈(n+1)p⌉/(n+1) (continuous scores), so at least
    p and below p + 1/(n+1), although the predictive's own interval covers far less."""
    n, tests, repeats = 40, 200, 400
    covered, raw = [], []
    for _ in range(repeats):
        levels = ConformalLevels(overconfident_scores(rng, n))
        y = rng.normal(size=tests)
        components = (np.zeros((1, tests)), np.full((1, tests), 0.25), np.zeros(1))
        covered.append(interval_coverage(y, *levels.interval(level, *components)))
        raw.append(interval_coverage(y, *central_interval(level, *components)))
    expected = np.ceil((n + 1) * level) / (n + 1)
    standard_error = np.std(covered) / np.sqrt(repeats)
    assert level <= expected < level + 1 / (n + 1)
    assert abs(np.mean(covered) - expected) < 4 * standard_error
    assert np.mean(raw) < level - 0.1


def test_too_few_rows_give_the_whole_line():
    levels = ConformalLevels(np.linspace(0.1, 0.5, 5))
    assert levels.calibrated_level(0.9) == 1.0  # ⌈6 · 0.9⌉ = 6 > 5
    lower, upper = levels.interval(0.9, np.zeros((1, 3)), np.ones((1, 3)), np.zeros(1))
    assert np.all(np.isneginf(lower)) and np.all(np.isposinf(upper))
    assert levels.calibrated_level(0.5) == pytest.approx(0.3)  # ⌈6 · 0.5⌉ = 3rd smallest


def test_the_calibrated_interval_is_the_mixtures_own_central_interval():
    """A bimodal mixture keeps its shape: the interval is its central interval of level r*."""
    levels = ConformalLevels(np.linspace(0.0, 1.0, 101)[1:-1])
    components = (np.array([[-2.0], [3.0]]), np.array([[0.3], [0.5]]), np.log([0.3, 0.7]))
    r = levels.calibrated_level(0.8)
    np.testing.assert_allclose(levels.interval(0.8, *components), central_interval(r, *components))


def test_scores_round_trip_and_bad_scores_are_refused():
    levels = ConformalLevels(np.array([0.3, 0.1, 0.2]))
    assert ConformalLevels.from_dict(levels.to_dict()).scores.tolist() == [0.1, 0.2, 0.3]
    with pytest.raises(ValueError, match="at least one"):
        ConformalLevels(np.array([]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ConformalLevels(np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match="level"):
        levels.calibrated_level(1.0)


def test_model_intervals_are_the_predictive_mixtures(rng):
    X = rng.normal(size=(30, 2))
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(30, 1))
    model = gd.build_deep_gp(X, Y, 1)
    model.prediction_batch_size = 7  # several chunks
    lower, upper = predict_interval(model, X, 0.9, num_samples=3, seed=4)
    mixture = model.predict_mixture(X, num_samples=3, seed=4)
    y_means, y_variances = (
        mixture.means.numpy()[..., 0],
        mixture.variances.numpy()[..., 0] + float(model.likelihood.variance.numpy()),
    )
    expected = central_interval(0.9, y_means, y_variances, mixture.log_weights.numpy())
    np.testing.assert_allclose((lower, upper), expected, rtol=1e-10)
    levels = calibrate(model, X, Y, num_samples=3, seed=4)
    assert levels.num_rows == 30 and np.all((levels.scores >= 0) & (levels.scores <= 1))
    wide = predict_interval(model, X, 0.5, calibrate=levels, num_samples=3, seed=4)
    assert interval_coverage(Y[:, 0], *wide) >= 0.5  # on its own calibration rows
    with pytest.raises(ValueError, match=r"\[n, 1\]"):
        calibrate(model, X, Y[:-1], num_samples=3, seed=4)


def test_a_target_far_out_scores_one_even_where_the_weights_sum_rounds_above_one():
    """Seven components of weight 1/7: far out, 1 − F would be the rounding of their sum (±2e-16,
    by the order of the summation); the far tail itself is 0."""
    log_weights = np.full(7, -np.log(7.0))
    means, variances = np.zeros((7, 2)), np.ones((7, 2))
    scores = conformity_scores(np.array([50.0, -50.0]), means, variances, log_weights)
    np.testing.assert_array_equal(scores, [1.0, 1.0])
    assert ConformalLevels(scores).calibrated_level(0.5) == 1.0
