"""benchmarks rf_ensemble: the pooled mixture of independently trained copies."""

import numpy as np
import pytest
from scipy.stats import norm

from benchmarks.experiments.rf_ensemble import pooled
from benchmarks.suites.calibration import _scored


def test_pooled_copies_are_their_equal_mixture_chunk_by_chunk():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(5, 1))
    copies = []
    for _ in range(3):
        means, variances = rng.normal(size=(2, 5, 1)), rng.uniform(0.5, 2.0, size=(2, 5, 1))
        log_weights = np.log([0.25, 0.75])
        copies.append([(slice(0, 2), means[:, :2], variances[:, :2], log_weights)])
        copies[-1].append((slice(2, 5), means[:, 2:], variances[:, 2:], log_weights))
    density = np.zeros(5)
    for copy in copies:
        for rows, means, variances, log_weights in copy:
            components = norm.pdf(y[rows][None], means, np.sqrt(variances))[..., 0]  # [S, n]
            density[rows] += np.exp(log_weights) @ components / 3
    chunks = pooled(copies)
    assert [chunk[0] for chunk in chunks] == [slice(0, 2), slice(2, 5)]
    assert _scored(y, chunks)["log_likelihood"] == pytest.approx(np.mean(np.log(density)), rel=1e-10)


def test_the_experiment_pools_trained_copies_and_records_each(tmp_path):
    from benchmarks.experiments.rf_ensemble import main
    from gpflow_deep.app.benchmark import read_results

    results = tmp_path / "ensemble.jsonl"
    argv = ["--splits", "2000", "--steps", "5", "--size", "2", "--threads", "0", "--results", str(results)]
    assert main(argv) == 0
    [record] = read_results(str(results))
    assert record["size"] == 2 and len(record["copies_log_likelihood"]) == 2
    assert record["copies_log_likelihood"][0] != record["copies_log_likelihood"][1]  # own seeds
    assert np.isfinite(record["log_likelihood"]) and 0.0 <= record["coverage_90"] <= 1.0
