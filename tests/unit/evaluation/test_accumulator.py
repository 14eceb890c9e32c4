"""Scores summed chunk by chunk equal the scores of the whole mixture; the reservoir's sample."""

import numpy as np
import pytest

from gpflow_deep.evaluation.accumulator import ScoreAccumulator
from gpflow_deep.evaluation.calibration import central_interval, mixture_cdf
from gpflow_deep.evaluation.moments import mixture_mean_and_std
from gpflow_deep.evaluation.pointwise import crps, log_predictive_density
from gpflow_deep.evaluation.reservoir import Reservoir


def mixture(rng, S=5, N=30, P=1):
    return rng.normal(size=(S, N, P)), rng.uniform(0.1, 2.0, (S, N, P)), np.log(rng.dirichlet(np.ones(S)))


def test_chunked_scores_equal_whole_array_scores(rng):
    means, variances, log_weights = mixture(rng)
    y = rng.normal(size=(30, 1))
    levels = (0.5, 0.9)
    scores = ScoreAccumulator(levels)
    for rows in (slice(0, 7), slice(7, 8), slice(8, 30)):
        scores.add(y[rows], means[:, rows], variances[:, rows], log_weights)
    mean, _ = mixture_mean_and_std(means, variances, log_weights)
    result = scores.scores()
    np.testing.assert_allclose(
        result["log_likelihood"], np.mean(log_predictive_density(y, means, variances, log_weights))
    )
    np.testing.assert_allclose(result["rmse"], np.sqrt(np.mean((y - mean) ** 2)))
    np.testing.assert_allclose(result["crps"], np.mean(crps(y, means, variances, log_weights)))
    for level, coverage in zip(levels, scores.coverage()):
        lower, upper = central_interval(level, means[..., 0], variances[..., 0], log_weights)
        assert coverage == pytest.approx(np.mean((lower <= y[:, 0]) & (y[:, 0] <= upper)))
    np.testing.assert_allclose(scores.pit(), mixture_cdf(y[:, 0], means[..., 0], variances[..., 0], log_weights))


def test_given_log_densities_replace_the_gaussian_ones(rng):
    means, variances, log_weights = mixture(rng, N=4)
    scores = ScoreAccumulator()
    scores.add(np.zeros((4, 1)), means, variances, log_weights, log_density=np.full(4, -2.0))
    assert scores.scores()["log_likelihood"] == -2.0


def test_moments_by_the_law_of_total_variance(rng):
    means, variances, log_weights = mixture(rng, S=4, N=3, P=2)
    mean, std = mixture_mean_and_std(means, variances, log_weights)
    weights = np.exp(log_weights)[:, None, None]
    np.testing.assert_allclose(mean, np.sum(weights * means, 0))
    np.testing.assert_allclose(std**2, np.sum(weights * (variances + means**2), 0) - mean**2, rtol=1e-10)


def test_reservoir_keeps_every_row_until_full_then_a_uniform_sample():
    small = Reservoir(10)
    small.offer({"i": np.arange(4)})
    small.offer({"i": np.arange(4, 7)})
    np.testing.assert_array_equal(small.sample["i"], np.arange(7))
    counts = np.zeros(1000)
    for seed in range(400):
        reservoir = Reservoir(50, seed)
        for start in range(0, 1000, 130):  # batches larger and smaller than the capacity
            reservoir.offer({"i": np.arange(start, min(start + 130, 1000)), "x": np.zeros((min(130, 1000 - start), 2))})
        assert len(np.unique(reservoir.sample["i"])) == 50 and reservoir.sample["x"].shape == (50, 2)
        counts[reservoir.sample["i"]] += 1
    expected = 400 * 50 / 1000  # 20 per row
    assert abs(counts[:500].mean() - expected) < 1 and abs(counts[500:].mean() - expected) < 1
    assert counts.std() < 2 * np.sqrt(expected)
