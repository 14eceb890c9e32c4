"""Dates and times as numbers: ISO 8601 text (``1969-01-01``, ``1969-01-01 12:30``,
``1969-01-01T00:00:00Z``, ``2020-01-01T00:00:00+02:00``, to the microsecond) becomes days since
1970-01-01 00:00 UTC as a float. Text without a zone is taken as UTC. Parquet date and timestamp
columns are read as such text first (:func:`as_text`), so that both formats encode alike."""

from typing import List, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_MICROSECONDS_PER_DAY = 86_400e6
_NAIVE, _ZONED = pa.timestamp("us"), pa.timestamp("us", tz="UTC")
_DATE_FIRST = r"^\d{4}-\d\d-\d\d"  # a quick look before parsing, whose failures are slow
_WITH_ZONE = r"\d:\d\d(:\d\d(\.\d*)?)?\s*(Z|[+-]\d\d(:?\d\d)?)$"  # a time followed by Z or an offset


def is_date_type(arrow_type: pa.DataType) -> bool:
    """Whether a Parquet column's type is a date or a timestamp."""
    return pa.types.is_date(arrow_type) or pa.types.is_timestamp(arrow_type)


def as_text(array: pa.Array) -> pa.Array:
    """A date or timestamp array as ISO 8601 text that :func:`days_since_epoch` reads back."""
    if pa.types.is_timestamp(array.type):
        zone = "UTC" if array.type.tz is not None else None
        array = pc.cast(array, pa.timestamp("us", tz=zone), safe=False)
    return pc.cast(array, pa.string())


def days_since_epoch(values: pa.Array) -> Optional[np.ndarray]:
    """``[n]`` float days since 1970-01-01 UTC of text ``values`` (NaN where null), or None if a
    present value is not an ISO 8601 date or time."""
    if pc.any(pc.invert(pc.match_substring_regex(values, _DATE_FIRST))).as_py():
        return None
    zoned = pc.fill_null(pc.match_substring_regex(values, _WITH_ZONE), False)
    null_text = pa.scalar(None, pa.string())
    try:
        naive = pc.cast(pc.if_else(zoned, null_text, values), _NAIVE)
        aware = pc.cast(pc.if_else(zoned, values, null_text), _ZONED)
    except pa.ArrowInvalid:
        return None
    microseconds = pc.coalesce(pc.cast(naive, pa.int64()), pc.cast(aware, pa.int64()))
    return microseconds.to_numpy(zero_copy_only=False).astype(float) / _MICROSECONDS_PER_DAY


def not_dates(values: pa.Array, limit: int = 3) -> List[str]:
    """Up to ``limit`` distinct present values of a text array that are not ISO 8601 dates or times."""
    bad = []
    for value in pc.unique(pc.drop_null(values)).to_pylist():
        if days_since_epoch(pa.array([value], pa.string())) is None:
            bad.append(value)
            if len(bad) == limit:
                break
    return bad
