"""Figures the command line writes: calibration of a predictive, and predictions against targets."""

from typing import Dict, Sequence

import numpy as np

RELIABILITY_BINS = 10
PANELS_PER_ROW = 3


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def calibration_plot(
    path: str, levels: Sequence[float], observed: Sequence[float], pit: np.ndarray, title: str
) -> None:
    """Left: the fraction of targets inside each central interval against the interval's level
    (on the diagonal when calibrated). Right: the histogram of the probability integral transform
    F(y) (flat when calibrated)."""
    plt = _pyplot()
    figure, (coverage, histogram) = plt.subplots(1, 2, figsize=(10, 4.2))
    coverage.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    coverage.plot(levels, observed, "o-", color="C0", label="observed")
    coverage.set(xlim=(0, 1), ylim=(0, 1), xlabel="central interval level", ylabel="fraction of targets inside")
    coverage.set_title("interval coverage")
    coverage.legend(loc="upper left")
    histogram.hist(pit, bins=20, range=(0, 1), density=True, color="C0", alpha=0.7)
    histogram.axhline(1.0, color="0.6", lw=1, ls="--")
    histogram.set(xlim=(0, 1), xlabel="F(y): predictive CDF at the target", ylabel="density")
    histogram.set_title("probability integral transform")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def reliability_plot(path: str, confidence: np.ndarray, correct: np.ndarray, title: str) -> None:
    """Accuracy against the predicted probability of the chosen class, in bins (on the diagonal
    when calibrated), with the number of rows per bin."""
    plt = _pyplot()
    edges = np.linspace(0, 1, RELIABILITY_BINS + 1)
    which = np.clip(np.digitize(confidence, edges) - 1, 0, RELIABILITY_BINS - 1)
    counts = np.bincount(which, minlength=RELIABILITY_BINS)
    used = counts > 0
    accuracy = np.bincount(which, weights=correct.astype(float), minlength=RELIABILITY_BINS)[used] / counts[used]
    mean_confidence = np.bincount(which, weights=confidence, minlength=RELIABILITY_BINS)[used] / counts[used]
    figure, axis = plt.subplots(figsize=(5.5, 4.5))
    axis.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="calibrated")
    axis.plot(mean_confidence, accuracy, "o-", color="C0", label="observed")
    for x, y, n in zip(mean_confidence, accuracy, counts[used]):
        axis.annotate(str(n), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=8)
    axis.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="predicted probability of the chosen class", ylabel="accuracy")
    axis.set_title(title)
    axis.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def predictions_plot(path: str, results: Dict[str, Dict[str, np.ndarray]], units: str = "") -> None:
    """One panel per model (three to a row): predictive mean with its central 90% interval against
    the target, points sorted by target."""
    plt = _pyplot()
    columns = min(len(results), PANELS_PER_ROW)
    rows = -(-len(results) // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(4.2 * columns, 4 * rows), squeeze=False, sharex=True, sharey=True
    )
    for axis in axes.flat[len(results) :]:
        axis.set_visible(False)
    for axis, (name, result) in zip(axes.flat, results.items()):
        y = result["y"]
        order = np.argsort(y)
        low, high = result["lower"][order], result["upper"][order]
        axis.vlines(y[order], low, high, color="C0", alpha=0.3, lw=1, label="90% interval")
        axis.plot(y[order], result["mean"][order], ".", color="C0", ms=4, label="mean")
        limits = [min(y.min(), low.min()), max(y.max(), high.max())]
        axis.plot(limits, limits, color="0.5", lw=1, ls="--")
        inside = np.mean((low <= y[order]) & (y[order] <= high))
        axis.set_title(f"{name}: {100 * inside:.0f}% inside")
        axis.set_xlabel(f"target {units}".strip())
    for axis in axes[:, 0]:
        axis.set_ylabel(f"prediction {units}".strip())
    axes[0, 0].legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
