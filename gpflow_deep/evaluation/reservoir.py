"""A uniform random sample of bounded size from a stream of rows (reservoir sampling)."""

from typing import Dict, Optional

import numpy as np


class Reservoir:
    """At most ``capacity`` rows drawn uniformly from all rows offered so far (Vitter's algorithm R,
    one batch at a time). Rows are columns of equal length, any dtype: ``{name: [n, ...]}``. While
    fewer than ``capacity`` rows have been offered, the sample is every row, in order."""

    def __init__(self, capacity: int, seed: int = 0):
        self.capacity = int(capacity)
        self.seen = 0
        self._rng = np.random.default_rng(seed)
        self._columns: Optional[Dict[str, np.ndarray]] = None
        self._filled = 0

    def offer(self, columns: Dict[str, np.ndarray]) -> None:
        """Consider the ``n`` rows of ``columns`` (each ``[n, ...]``) for the sample."""
        n = len(next(iter(columns.values())))
        if self._columns is None:
            self._columns = {
                name: np.empty((self.capacity,) + np.shape(values)[1:], dtype=np.asarray(values).dtype)
                for name, values in columns.items()
            }
        taken = min(n, self.capacity - self._filled)
        for name, values in columns.items():
            self._columns[name][self._filled : self._filled + taken] = values[:taken]
        self._filled += taken
        rest = np.arange(taken, n)
        slots = np.floor(self._rng.random(len(rest)) * (self.seen + rest + 1)).astype(np.int64)
        replacing = slots < self.capacity
        rows, slots = rest[replacing], slots[replacing]
        if len(slots):  # a slot taken twice in the batch keeps the later row, as one row at a time would
            last = len(slots) - 1 - np.unique(slots[::-1], return_index=True)[1]
            for name, values in columns.items():
                self._columns[name][slots[last]] = np.asarray(values)[rows[last]]
        self.seen += n

    @property
    def sample(self) -> Dict[str, np.ndarray]:
        """The sampled rows, ``{name: [min(seen, capacity), ...]}``."""
        if self._columns is None:
            return {}
        return {name: values[: self._filled] for name, values in self._columns.items()}
