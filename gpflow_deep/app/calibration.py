"""A run's split-conformal calibration: computed from held-out rows through the run's predictive,
chunk by chunk, and kept in the run directory as ``calibration.json``.

The file holds n, the held-out rows' source and the date, and the k-th smallest conformity score
|2F(y) − 1| (:mod:`gpflow_deep.evaluation.conformal`) for every rank k = ⌈(n + 1) j / 2000⌉ of
the levels j / 2000: every score when n < 2,000, at most 2,000 numbers otherwise. A level between
those uses the next stored score, an interval at least as wide, so coverage stays ≥ the level.
"""

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Optional

import numpy as np

from gpflow_deep.app.run_directory import Run
from gpflow_deep.app.table_predictions import ChunkPrediction, predictive_chunks
from gpflow_deep.evaluation.conformal import ConformalLevels, conformity_scores

CALIBRATION_FILE = "calibration.json"
LEVEL_GRID = 2000  # levels j / 2000 are calibrated exactly, whatever n


@dataclass
class RunCalibration:
    """The conformal level map of a run, and where and when it was computed."""

    levels: ConformalLevels
    source: str
    created: str

    def to_dict(self) -> dict:
        return dict(source=self.source, created=self.created, **self.levels.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> "RunCalibration":
        return cls(ConformalLevels.from_dict(data), data["source"], data["created"])

    def describe(self) -> str:
        """``500 held-out rows of cal.csv, 2026-11-25T19:02:11+00:00``."""
        return f"{self.levels.num_rows:,} held-out rows of {self.source}, {self.created}"


def held_out_scores(run: Run, X: np.ndarray, Y: np.ndarray, first_row: int = 0) -> np.ndarray:
    """``[n]``: the conformity scores of encoded held-out rows X ``[n, D]``, Y ``[n, 1]`` (rows
    ``first_row, ...`` of their file) under the run's predictive, chunk by chunk."""
    check_regression(run)
    Y = np.asarray(Y)
    if Y.ndim != 2 or Y.shape[1] != 1 or len(Y) != len(X):
        raise ValueError(f"Y must be [n, 1] with the n = {len(X)} rows of X, got shape {Y.shape}")
    y = Y[:, 0] * run.preprocessing.target_std + run.preprocessing.target_mean
    pieces = [chunk_scores(chunk, y[chunk.rows]) for chunk in predictive_chunks(run, X, first_row)]
    return np.concatenate(pieces) if pieces else np.zeros(0)


def chunk_scores(chunk: ChunkPrediction, y: np.ndarray) -> np.ndarray:
    """``[n]``: the conformity scores of a regression chunk's targets ``y: [n]`` (original units)."""
    return conformity_scores(y, chunk.means[..., 0], chunk.variances[..., 0], chunk.log_weights)


def check_regression(run: Run) -> None:
    """Refuse a classification run: its predictive has no intervals to calibrate."""
    if run.preprocessing.is_classification:
        raise ValueError(f"{run.directory} predicts classes: conformal calibration is for regression runs")


def calibration_from_scores(scores: np.ndarray, source: str) -> RunCalibration:
    """The calibration of held-out ``scores: [n]`` from ``source``, dated now (UTC)."""
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return RunCalibration(ConformalLevels(scores).thinned(LEVEL_GRID), source, created)


def calibrate_run(
    run: Run, X: np.ndarray, Y: np.ndarray, first_row: int = 0, source: str = "held-out rows"
) -> RunCalibration:
    """The calibration of ``run`` from encoded held-out rows X ``[n, D]``, Y ``[n, 1]`` it was not
    trained on (rows ``first_row, ...`` of ``source``); :func:`save_calibration` stores it."""
    return calibration_from_scores(held_out_scores(run, X, Y, first_row), source)


def save_calibration(directory: str, calibration: RunCalibration) -> str:
    """Write ``calibration`` into the run ``directory``; returns the file's path."""
    path = os.path.join(directory, CALIBRATION_FILE)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(calibration.to_dict(), handle)
        handle.write("\n")
    return path


def load_calibration(directory: str) -> Optional[RunCalibration]:
    """The run's stored calibration, or None if it has none."""
    path = os.path.join(directory, CALIBRATION_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return RunCalibration.from_dict(json.load(handle))
