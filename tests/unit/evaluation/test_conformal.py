"""Split-conformal intervals: the finite-sample coverage guarantee, the level map and the model API."""

import numpy as np
import pytest

import gpflow_deep as gd
from gpflow_deep.evaluation.calibration import central_interval, interval_coverage
from gpflow_deep.evaluation.conformal import (
    ConformalLevels,
    calibrate,
    conformity_scores,
    describe_level,
    level_of_score,
    predict_interval,
)


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
    assert levels.is_unbounded(0.9) and not levels.is_unbounded(0.5)
    assert levels.calibrated_score(0.5) == pytest.approx(0.3)  # ⌈6 · 0.5⌉ = 3rd smallest
    assert levels.calibrated_level(0.5) == pytest.approx(1 - np.exp(-0.3))


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
    for bad in (-0.5, np.nan):
        with pytest.raises(ValueError, match="at least 0"):
            ConformalLevels(np.array([0.5, bad]))
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
    assert levels.num_rows == 30 and np.all(levels.scores >= 0)
    wide = predict_interval(model, X, 0.5, calibrate=levels, num_samples=3, seed=4)
    assert interval_coverage(Y[:, 0], *wide) >= 0.5  # on its own calibration rows
    with pytest.raises(ValueError, match=r"\[n, 1\]"):
        calibrate(model, X, Y[:-1], num_samples=3, seed=4)


def test_scores_are_the_log_tail_of_the_central_interval_that_reaches_the_target():
    """s = −log(2 min(F, 1 − F)): 0 at the median, and level_of_score(s) the central level whose
    interval ends at y, against scipy's normal CDF for a one-component mixture."""
    from scipy.stats import norm

    y = np.array([0.3, -1.7, 2.0, 0.0])
    scores = conformity_scores(y, np.zeros((1, 4)), np.full((1, 4), 4.0), np.zeros(1))
    levels = [level_of_score(score) for score in scores]
    np.testing.assert_allclose(levels, np.abs(2 * norm.cdf(y / 2.0) - 1), rtol=1e-12, atol=1e-15)
    assert scores[3] == 0.0 and describe_level(scores[2]) == "68.3%"


def test_targets_far_out_keep_their_order_where_the_level_rounds_to_one():
    """Seven components of weight 1/7: 10 and 20 sds out, |2F − 1| is 1.0 in float64 for both, but
    their scores stay finite and ordered, and so does the calibrated interval (a narrow predictive
    of a discrete target puts many calibration rows that far out)."""
    log_weights = np.full(7, -np.log(7.0))
    means, variances = np.zeros((7, 3)), np.ones((7, 3))
    scores = conformity_scores(np.array([10.0, -20.0, 20.0]), means, variances, log_weights)
    assert 40 < scores[0] < scores[1] < np.inf and scores[1] == pytest.approx(scores[2])
    assert level_of_score(scores[0]) == 1.0 and describe_level(scores[0]).startswith("1 − 1.5e-23")
    levels = ConformalLevels(np.r_[np.zeros(5), scores[:1]])  # the 90% rank (⌈7 · 0.9⌉ = 7) is past n: unbounded
    assert levels.is_unbounded(0.9)
    levels = ConformalLevels(np.r_[np.zeros(8), scores[0], scores[0]])  # ⌈11 · 0.9⌉ = 10: the far score
    lower, upper = levels.interval(0.9, means, variances, log_weights)
    np.testing.assert_allclose(lower, -10.0, rtol=1e-9)
    np.testing.assert_allclose(upper, 10.0, rtol=1e-9)


def test_a_file_of_the_older_level_scores_is_read_as_log_tails():
    """Run directories written before 2026-11-30 stored the levels r = 1 − exp(−s); 1.0 was the whole line."""
    older = ConformalLevels.from_dict({"rows": 3, "scores": [0.5, 0.9, 1.0]})
    np.testing.assert_allclose(older.scores, [np.log(2.0), np.log(10.0), np.inf])
    assert older.is_unbounded(0.75) and older.calibrated_level(0.5) == pytest.approx(0.9)
