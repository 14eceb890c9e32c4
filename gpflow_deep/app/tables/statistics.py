"""Statistics of a column learned in one pass over a table, batch by batch: running moments that
merge exactly (Chan et al.'s pairwise update), the set of distinct class labels, and the counts of
a text column's values in bounded memory (:class:`CategoryCounts`)."""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gpflow_deep.app.tables.rows import TableError

MAX_LABELS = 1000  # distinct values a class target may have
ONE_HOT_LIMIT = 100  # categories of a text column one-hot encoded; beyond, the most frequent and "other"
TRACKED_VALUES = 10_000  # distinct values whose counts a text column keeps
IDENTIFIER_SHARE = 0.5  # a text column with more distinct values than this share of its rows is an identifier
HEAPED_ROWS, HEAPED_SHARE = 5, 0.01  # an extreme target value held by this many rows, and this share, may be a cap


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


def heaped_extremes(values: np.ndarray) -> List[Tuple[str, float, int]]:
    """The extremes of the ``[n]`` numeric ``values`` that look like a cap or a floor: each held by at
    least ``HEAPED_ROWS`` rows and ``HEAPED_SHARE`` of them, and by more rows than any value between
    the two extremes holds. Each as (``"largest"`` or ``"smallest"``, the value, its rows).

    A price recorded as 50 for every house worth 50 or more (boston's 16 of 506) is one; so are
    weeks worked per year, heaped at 0 and at 52. A scale of a few values is not read this way: an
    extreme of it is held by fewer rows than its commonest value."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) < 3:
        return []
    commonest_between = counts[1:-1].max()
    heaped = []
    for which, index in (("largest", -1), ("smallest", 0)):
        rows = int(counts[index])
        if rows >= HEAPED_ROWS and rows >= HEAPED_SHARE * len(values) and rows > commonest_between:
            heaped.append((which, float(distinct[index]), rows))
    return heaped


class DistinctValues:
    """The distinct class labels of a target seen so far, at most ``MAX_LABELS`` of them."""

    def __init__(self, where: str):
        self.where = where
        self.values = set()

    def add(self, values) -> None:
        """Add the values of a batch (a pyarrow array without nulls, or a numpy array)."""
        if isinstance(values, pa.Array):
            self.values.update(pc.unique(values).to_pylist())
        else:
            self.values.update(np.unique(values).tolist())
        if len(self.values) > MAX_LABELS:
            raise TableError(f"{self.where} has more than {MAX_LABELS} distinct values, too many for class labels")

    def sorted(self) -> List:
        return sorted(self.values)


@dataclass
class CategoryChoice:
    """What a text column becomes: ``categories`` one-hot encoded (sorted), plus an ``other`` level
    for the rest if there were more; None if the column is an identifier (left out).
    ``distinct`` is the number of distinct values, or None if more than were counted."""

    categories: Optional[List[str]]
    other: bool
    distinct: Optional[int]


class CategoryCounts:
    """How often each value of a text column occurs, in bounded memory: exact counts while there
    are at most ``capacity`` distinct values. A column exceeding that with more distinct values
    than ``IDENTIFIER_SHARE`` of its rows so far is an identifier, and no longer counted; otherwise
    the counts are pruned to the ``capacity`` most frequent by merging Misra–Gries summaries (every
    count then low by at most rows / capacity, so the most frequent values stay the most frequent)."""

    def __init__(self, capacity: int = TRACKED_VALUES):
        self.capacity = capacity
        self.values, self.counts = pa.array([], pa.string()), np.zeros(0, dtype=np.int64)
        self.rows, self.exact, self.identifier = 0, True, False

    def add(self, values: pa.Array) -> None:
        """Count the values of a batch (a pyarrow string array without nulls)."""
        if self.identifier or len(values) == 0:
            return
        self.rows += len(values)
        batch = pc.value_counts(values)
        merged = (
            pa.table(
                {
                    "value": pa.concat_arrays([self.values, batch.field("values")]),
                    "count": np.concatenate([self.counts, batch.field("counts").to_numpy()]),
                }
            )
            .group_by("value")
            .aggregate([("count", "sum")])
        )
        self.values, self.counts = merged["value"].combine_chunks(), merged["count_sum"].to_numpy()
        if len(self.values) > self.capacity:
            self._prune()

    def _prune(self) -> None:
        if self.exact and len(self.values) > IDENTIFIER_SHARE * self.rows:
            self.identifier = True
            self.values, self.counts = pa.array([], pa.string()), np.zeros(0, dtype=np.int64)
            return
        self.exact = False
        threshold = np.partition(self.counts, -(self.capacity + 1))[-(self.capacity + 1)]
        kept = self.counts > threshold
        self.values, self.counts = self.values.filter(pa.array(kept)), self.counts[kept] - threshold

    def choice(self, limit: int = ONE_HOT_LIMIT) -> CategoryChoice:
        """Every category if there are at most ``limit``; none if the column is an identifier (more
        than ``limit`` distinct values, and more than ``IDENTIFIER_SHARE`` of its rows); else the
        ``limit`` most frequent (ties to the first in sorted order) and "other"."""
        distinct = len(self.values) if self.exact and not self.identifier else None
        if distinct is not None and distinct <= limit:
            return CategoryChoice(sorted(self.values.to_pylist()), False, distinct)
        if self.identifier or (distinct is not None and distinct > IDENTIFIER_SHARE * self.rows):
            return CategoryChoice(None, False, distinct)
        ranked = pa.table({"value": self.values, "count": self.counts}).sort_by(
            [("count", "descending"), ("value", "ascending")]
        )
        return CategoryChoice(sorted(ranked["value"][:limit].to_pylist()), True, distinct)
