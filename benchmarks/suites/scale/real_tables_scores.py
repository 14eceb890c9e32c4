"""Held-out scores of the baselines (Gaussian predictive or class probability), and reading
``gpflow-deep evaluate``'s printed scores."""

from typing import Dict

import numpy as np
from scipy.stats import norm

INTERVAL_Z = norm.ppf(0.95)  # the central 90% interval is mean +- 1.645 std


def gaussian_scores(y: np.ndarray, mean: np.ndarray, std: np.ndarray) -> Dict[str, float]:
    """Mean log-density, RMSE, closed-form CRPS and the 90% interval's coverage of ``y`` under
    N(mean, std^2); all ``[N]`` arrays in the target's units."""
    z = (y - mean) / std
    crps = std * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))
    return dict(
        test_log_likelihood=float(np.mean(norm.logpdf(y, mean, std))),
        rmse=float(np.sqrt(np.mean((y - mean) ** 2))),
        crps=float(np.mean(crps)),
        coverage_90=float(np.mean(np.abs(z) <= INTERVAL_Z)),
    )


def class_scores(y: np.ndarray, probability: np.ndarray) -> Dict[str, float]:
    """Mean log-probability of the labels ``y`` (0/1, ``[N]``), accuracy at 0.5, and AUC, given the
    positive class's probability ``[N]``."""
    from sklearn.metrics import roc_auc_score

    p = np.clip(probability, 1e-12, 1 - 1e-12)
    return dict(
        test_log_likelihood=float(np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))),
        accuracy=float(np.mean((p > 0.5) == (y > 0.5))),
        auc=float(roc_auc_score(y, probability)),
    )


def labels_scores(y: np.ndarray, probabilities: np.ndarray) -> Dict[str, float]:
    """Mean log-probability of the labels ``y`` (0…K−1, ``[N]``) and the accuracy of the most
    probable class, given every class's probability ``[N, K]``."""
    labels = y.astype(int)
    chosen = np.clip(probabilities[np.arange(len(labels)), labels], 1e-12, 1.0)
    return dict(
        test_log_likelihood=float(np.mean(np.log(chosen))),
        accuracy=float(np.mean(np.argmax(probabilities, axis=1) == labels)),
    )


def parse_evaluate_output(text: str) -> Dict[str, object]:
    """``{name: value}`` from the ``name  value`` lines ``gpflow-deep evaluate`` prints (numbers
    become floats; the calibration plot's line is skipped)."""
    scores: Dict[str, object] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 2 or line.startswith("calibration plot"):
            continue
        try:
            scores[parts[0]] = float(parts[1])
        except ValueError:
            scores[parts[0]] = parts[1]
    return scores
