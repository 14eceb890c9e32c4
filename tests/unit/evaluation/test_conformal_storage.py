"""A conformal level map kept at the ranks of a grid of levels (a run's calibration file), and
calibrated intervals of mixtures whose quantiles are hard to solve."""

import numpy as np
import pytest

from gpflow_deep.evaluation.calibration import mixture_cdf
from gpflow_deep.evaluation.conformal import ConformalLevels


def test_fewer_rows_than_the_grid_keep_every_score(rng):
    levels = ConformalLevels(rng.uniform(size=150))
    thinned = levels.thinned(200)
    np.testing.assert_array_equal(thinned.scores, levels.scores)
    for level in (0.1, 0.5, 0.9, 0.95, 0.99):
        assert thinned.calibrated_level(level) == levels.calibrated_level(level)


def test_a_thinned_map_is_exact_on_the_grid_and_wider_between(rng):
    levels = ConformalLevels(rng.uniform(size=5000))
    thinned = ConformalLevels.from_dict(levels.thinned(100).to_dict())
    assert thinned.num_rows == 5000 and thinned.scores.size == 100
    for j in range(1, 100):
        assert thinned.calibrated_level(j / 100) == levels.calibrated_level(j / 100)
    for level in rng.uniform(0.01, 0.99, size=200):
        assert thinned.calibrated_level(level) >= levels.calibrated_level(level)
        assert level <= thinned.expected_coverage(level) < level + 0.01 + 1 / 5001
    assert levels.expected_coverage(0.9) == np.ceil(5001 * 0.9) / 5001
    with pytest.raises(ValueError, match="already thinned"):
        thinned.thinned(10)
    with pytest.raises(ValueError, match="ranks"):
        ConformalLevels(np.array([0.1, 0.2]), ranks=np.array([3, 2]), num_rows=3)


@pytest.mark.parametrize(
    "components",
    [
        "far apart",  # modes 1,000 sds apart: a flat CDF between them
        "tiny variances",  # nearly a step function
        "one repeated",  # every component the same
    ],
)
def test_calibrated_intervals_solve_the_cdf_of_hard_mixtures(rng, components):
    S, N = 50, 300
    if components == "far apart":
        means, variances = rng.normal(size=(S, N)) * 1e3, rng.uniform(1e-6, 1, size=(S, N))
    elif components == "tiny variances":
        means, variances = rng.normal(size=(S, N)), np.full((S, N), 1e-14)
    else:
        means, variances = np.ones((S, N)), np.ones((S, N))
    log_weights = np.log(rng.dirichlet(np.ones(S)))
    levels = ConformalLevels(rng.uniform(size=99))
    reach = levels.calibrated_level(0.8)
    bounds = levels.interval(0.8, means, variances, log_weights)
    step = 1e-10 * (np.ptp(means, axis=0) + np.sqrt(variances).max(axis=0))  # the root is within this of each bound
    for bound, probability in zip(bounds, ((1 - reach) / 2, (1 + reach) / 2)):
        assert np.all(mixture_cdf(bound - step, means, variances, log_weights) <= probability + 1e-12)
        assert np.all(mixture_cdf(bound + step, means, variances, log_weights) >= probability - 1e-12)
