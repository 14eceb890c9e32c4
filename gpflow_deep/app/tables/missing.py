"""The one line that reports a table's rows with missing values, for ``fit``, ``predict`` and
``evaluate`` alike."""

from typing import Dict, Optional


def missing_values_message(
    table_name: str, rows: int, missing_rows: int, per_column: Dict[str, int], dropped: bool = False
) -> Optional[str]:
    """``"<table>: m of n rows have missing values (rows per column: a 2, b 1)"`` (``dropped``: "had
    missing values and were dropped"), naming the columns whose count is positive, or None when
    ``missing_rows`` is 0."""
    if not missing_rows:
        return None
    columns = ", ".join(f"{column} {count:,}" for column, count in per_column.items() if count)
    what = "had missing values and were dropped" if dropped else "have missing values"
    return f"{table_name}: {missing_rows:,} of {rows:,} rows {what} (rows per column: {columns})"
