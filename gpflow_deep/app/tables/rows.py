"""A batch of a table's rows, as the reader gives them: numeric columns as float64 arrays, text
columns as pyarrow string arrays."""

from typing import Dict, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NUMERIC, TEXT = "numeric", "text"
MISSING_TOKENS = ("", "na", "n/a", "nan", "null", "none")

Column = Union[np.ndarray, pa.Array]


class TableError(ValueError):
    """Something wrong with a user's table, said in one line."""


class Rows:
    """``num_rows`` rows by column: numeric ones ``[n]`` float64 (NaN, or ±inf, where missing), text
    ones pyarrow strings stripped of surrounding spaces (null where missing)."""

    def __init__(self, columns: Dict[str, Column], num_rows: int):
        self.columns, self.num_rows = columns, num_rows

    @classmethod
    def from_arrow(cls, batch: pa.RecordBatch, names: Dict[str, str], kinds: Dict[str, str]) -> "Rows":
        """The columns of ``batch`` (float64 or string), renamed by ``names``, of the given kinds."""
        columns = {}
        for raw, array in zip(batch.schema.names, batch.columns):
            name = names[raw]
            if kinds[name] == NUMERIC:
                columns[name] = array.to_numpy(zero_copy_only=False).astype(float, copy=False)
            else:
                columns[name] = text_values(array)
        return cls(columns, batch.num_rows)

    @classmethod
    def from_numpy(cls, columns: Dict[str, np.ndarray]) -> "Rows":
        """Rows from :meth:`as_numpy`'s arrays (floats, or str objects with None where missing)."""
        converted = {
            name: values if values.dtype.kind == "f" else pa.array(values, pa.string())
            for name, values in columns.items()
        }
        return cls(converted, len(next(iter(columns.values()))))

    def is_numeric(self, column: str) -> bool:
        return isinstance(self.columns[column], np.ndarray)

    def missing(self, column: str) -> np.ndarray:
        """``[n]`` bool: rows where ``column`` has no usable value (empty, NA, NaN or infinite)."""
        values = self.columns[column]
        if self.is_numeric(column):
            return ~np.isfinite(values)
        return values.is_null().to_numpy(zero_copy_only=False)

    def select(self, rows: np.ndarray) -> "Rows":
        """The rows where the ``[n]`` bool mask ``rows`` is True."""
        mask = pa.array(rows)
        columns = {
            name: values[rows] if isinstance(values, np.ndarray) else values.filter(mask)
            for name, values in self.columns.items()
        }
        return Rows(columns, int(np.count_nonzero(rows)))

    def as_numpy(self) -> Dict[str, np.ndarray]:
        """Every column as a numpy array: floats, or objects (str, None where missing)."""
        return {
            name: values if isinstance(values, np.ndarray) else values.to_numpy(zero_copy_only=False).astype(object)
            for name, values in self.columns.items()
        }


def text_values(column: pa.Array) -> pa.Array:
    """A string column's cells stripped of surrounding spaces, missing tokens as null."""
    trimmed = pc.utf8_trim_whitespace(column)
    missing = pc.fill_null(pc.is_in(pc.utf8_lower(trimmed), value_set=pa.array(MISSING_TOKENS)), True)
    return pc.if_else(missing, pa.scalar(None, pa.string()), trimmed)
