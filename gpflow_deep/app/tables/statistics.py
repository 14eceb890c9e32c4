"""Statistics of a column learned in one pass over a table, batch by batch: running moments that
merge exactly (Chan et al.'s pairwise update) and the set of distinct values."""

from typing import List

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gpflow_deep.app.tables.rows import TableError

MAX_CATEGORIES = 1000  # distinct values a text column (or class target) may have


class RunningMoments:
    """Count, mean and sum of squared deviations of the values seen so far."""

    def __init__(self):
        self.count, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, values: np.ndarray) -> None:
        """Merge the ``[n]`` values of a batch."""
        n = len(values)
        if n == 0:
            return
        mean = float(np.mean(values))
        m2 = float(np.sum((values - mean) ** 2))
        total = self.count + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta**2 * self.count * n / total
        self.count = total

    @property
    def std(self) -> float:
        """The population standard deviation, or 1 for constant (or no) values."""
        return float(np.sqrt(self.m2 / self.count)) if self.count and self.m2 > 0 else 1.0


class DistinctValues:
    """The distinct values of a column seen so far, at most ``MAX_CATEGORIES`` of them."""

    def __init__(self, where: str):
        self.where = where
        self.values = set()

    def add(self, values) -> None:
        """Add the values of a batch (a pyarrow array without nulls, or a numpy array)."""
        if isinstance(values, pa.Array):
            self.values.update(pc.unique(values).to_pylist())
        else:
            self.values.update(np.unique(values).tolist())
        if len(self.values) > MAX_CATEGORIES:
            raise TableError(
                f"{self.where} has more than {MAX_CATEGORIES} distinct values; a text column is one-hot "
                "encoded, so leave it out or make it numeric"
            )

    def sorted(self) -> List:
        return sorted(self.values)
