"""A user's table (CSV, or Parquet with pandas and pyarrow) turned into model inputs and targets.

Numeric columns are standardised on the training rows; string columns are one-hot encoded with
their categories saved; regression targets are standardised, class labels mapped to 0…K−1. The
:class:`Preprocessing` is plain data that round-trips through JSON, so that a run directory can
apply it again to new rows.
"""

import csv
import os
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from gpflow_deep.registry import CLASSIFICATION_LIKELIHOODS, LIKELIHOODS

MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none"})
PARQUET_SUFFIXES = (".parquet", ".pq")


class TableError(ValueError):
    """Something wrong with a user's table, said in one line."""


@dataclass
class Table:
    """Columns by name: float arrays (NaN where missing) or object arrays of strings (None where missing)."""

    name: str
    columns: Dict[str, np.ndarray]

    @property
    def num_rows(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def is_numeric(self, column: str) -> bool:
        return self.columns[column].dtype.kind == "f"

    def missing(self, column: str) -> np.ndarray:
        """``[N]`` bool: rows where ``column`` has no usable value (empty, NA, NaN or infinite)."""
        values = self.columns[column]
        if self.is_numeric(column):
            return ~np.isfinite(values)
        return np.array([value is None for value in values], dtype=bool)

    def rows(self, selected: np.ndarray) -> "Table":
        """The table restricted to ``selected`` rows (a mask or indices)."""
        return Table(self.name, {name: values[selected] for name, values in self.columns.items()})


def read_table(path: str) -> Table:
    """Read a CSV file (first line: column names) or a Parquet file into a :class:`Table`."""
    name = os.path.basename(path)
    if not os.path.isfile(path):
        raise TableError(f"{path}: no such file")
    if path.lower().endswith(PARQUET_SUFFIXES):
        return _read_parquet(path, name)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        try:
            lines = [line for line in csv.reader(handle) if any(cell.strip() for cell in line)]
        except (csv.Error, UnicodeDecodeError) as error:
            raise TableError(f"{name}: not a readable CSV file ({error})") from None
    if not lines:
        raise TableError(f"{name} is empty")
    header, body = [cell.strip() for cell in lines[0]], lines[1:]
    _check_header(name, header)
    if not body:
        raise TableError(f"{name} has column names but no data rows")
    for number, line in enumerate(body, start=2):
        if len(line) != len(header):
            raise TableError(f"{name}: line {number} has {len(line)} fields, the header has {len(header)}")
    return Table(name, {column: _typed_column([line[i] for line in body]) for i, column in enumerate(header)})


def _read_parquet(path: str, name: str) -> Table:
    try:
        import pandas
    except ImportError:
        raise TableError("reading Parquet files needs pandas and pyarrow (pip install pandas pyarrow)") from None
    try:
        frame = pandas.read_parquet(path)
    except (ImportError, ValueError, OSError) as error:
        raise TableError(f"{name}: cannot read it as Parquet ({str(error).splitlines()[0]})") from None
    header = [str(column) for column in frame.columns]
    _check_header(name, header)
    if len(frame) == 0:
        raise TableError(f"{name} has column names but no data rows")
    columns = {}
    for column, values in zip(header, (frame[c] for c in frame.columns)):
        if pandas.api.types.is_numeric_dtype(values) and not pandas.api.types.is_bool_dtype(values):
            columns[column] = values.to_numpy(dtype=float, na_value=np.nan)
        else:
            columns[column] = _typed_column(["" if pandas.isna(v) else str(v) for v in values])
    return Table(name, columns)


def _check_header(name: str, header: List[str]) -> None:
    if not header or not any(header):
        raise TableError(f"{name} has no column names")
    repeated = sorted({column for column in header if header.count(column) > 1})
    if repeated:
        raise TableError(f"{name}: repeated column names: {', '.join(repeated)}")
    if "" in header:
        raise TableError(f"{name}: column {header.index('') + 1} has no name")


def _typed_column(cells: Sequence[str]) -> np.ndarray:
    """Floats if every present cell is a number, else strings; missing cells as NaN or None."""
    cells = [cell.strip() for cell in cells]
    missing = [cell.lower() in MISSING_TOKENS for cell in cells]
    try:
        return np.array([np.nan if gone else float(cell) for cell, gone in zip(cells, missing)])
    except ValueError:
        return np.array([None if gone else cell for cell, gone in zip(cells, missing)], dtype=object)


def rows_with_missing(table: Table, columns: Sequence[str]) -> Tuple[np.ndarray, List[str]]:
    """A ``[N]`` mask of the rows missing a value in any of ``columns``, and those columns."""
    masks = {column: table.missing(column) for column in columns}
    affected = [column for column, mask in masks.items() if mask.any()]
    rows = np.zeros(table.num_rows, dtype=bool)
    for column in affected:
        rows |= masks[column]
    return rows, affected


def missing_values_message(table: Table, columns: Sequence[str]) -> Optional[str]:
    """One line naming the columns with missing values and the row count, or None if there are none."""
    rows, affected = rows_with_missing(table, columns)
    if not affected:
        return None
    return (
        f"{table.name}: {int(rows.sum())} of {table.num_rows} rows have missing values (columns: {', '.join(affected)})"
    )


def label_text(value) -> str:
    """A class label as text: numbers without a trailing ``.0``."""
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return str(value)


@dataclass
class Preprocessing:
    """How a table becomes model inputs ``X`` and targets ``Y``, fitted on training rows.

    :ivar target: the target column.
    :ivar likelihood: the likelihood's name (:data:`~gpflow_deep.registry.LIKELIHOODS`).
    :ivar features: per input column, in order: ``{"name", "kind": "numeric", "mean", "std"}`` or
        ``{"name", "kind": "categorical", "categories"}``.
    :ivar target_mean: the mean subtracted from a Gaussian or Student-t target.
    :ivar target_std: the standard deviation a Gaussian or Student-t target is divided by.
    :ivar labels: class labels (as text) in the order of the classes 0…K−1.
    """

    target: str
    likelihood: str
    features: List[dict] = field(default_factory=list)
    target_mean: float = 0.0
    target_std: float = 1.0
    labels: Optional[List[str]] = None

    @classmethod
    def fit(
        cls, table: Table, target: str, likelihood: str = "gaussian", all_rows: Optional[Table] = None
    ) -> "Preprocessing":
        """Learn the encoding of every column but ``target`` and of ``target``: means and standard
        deviations from the training rows ``table``, categories and class labels from ``all_rows``
        (the training and held-out rows; ``table`` by default)."""
        all_rows = all_rows if all_rows is not None else table
        if likelihood not in LIKELIHOODS:
            raise TableError(f"unknown likelihood {likelihood!r}; choose from {', '.join(LIKELIHOODS)}")
        if target not in table.columns:
            raise TableError(f"{table.name} has no column {target!r} (columns: {', '.join(table.columns)})")
        inputs = [column for column in table.columns if column != target]
        if not inputs:
            raise TableError(f"{table.name} has no input columns besides the target {target!r}")
        preprocessing = cls(target, likelihood, [_fit_feature(table, all_rows, column) for column in inputs])
        preprocessing._fit_target(table, all_rows)
        return preprocessing

    def _fit_target(self, table: Table, all_rows: Table) -> None:
        values = table.columns[self.target]
        if self.likelihood in CLASSIFICATION_LIKELIHOODS:
            every = all_rows.columns[self.target]
            labels = sorted(set(every), key=float) if table.is_numeric(self.target) else sorted(set(every))
            self.labels = [label_text(label) for label in labels]
            if self.likelihood == "bernoulli" and len(self.labels) != 2:
                raise TableError(
                    f"the bernoulli likelihood needs 2 classes, target {self.target!r} has {len(self.labels)}"
                    + ("" if len(self.labels) < 2 else "; use --likelihood multiclass")
                )
            if len(self.labels) < 2:
                raise TableError(f"target {self.target!r} has a single class; classification needs at least 2")
            return
        if not table.is_numeric(self.target):
            example = next(value for value in values if value is not None)
            raise TableError(
                f"target {self.target!r} is not numeric (e.g. {example!r}); for class labels use "
                "--likelihood bernoulli or multiclass"
            )
        if self.likelihood == "poisson":
            if np.any(values < 0) or np.any(values != np.round(values)):
                raise TableError(f"the poisson likelihood needs non-negative whole counts in {self.target!r}")
            return
        self.target_mean = float(np.mean(values))
        self.target_std = float(np.std(values)) or 1.0

    @property
    def input_columns(self) -> List[str]:
        """The columns of the table the model reads, in order."""
        return [feature["name"] for feature in self.features]

    @property
    def encoded_names(self) -> List[str]:
        """One name per model input: the column, or ``column=category`` for one-hot columns."""
        names = []
        for feature in self.features:
            if feature["kind"] == "numeric":
                names.append(feature["name"])
            else:
                names += [f"{feature['name']}={category}" for category in feature["categories"]]
        return names

    @property
    def is_classification(self) -> bool:
        return self.likelihood in CLASSIFICATION_LIKELIHOODS

    def check_columns(self, table: Table, target_needed: bool) -> None:
        """The table has exactly the training columns (the target too if ``target_needed``;
        the target may be there otherwise)."""
        expected = self.input_columns + [self.target]
        lacking = [column for column in self.input_columns if column not in table.columns]
        if target_needed and self.target not in table.columns:
            lacking.append(self.target)
        if lacking:
            raise TableError(f"{table.name} lacks columns the model was trained on: {', '.join(lacking)}")
        unknown = [column for column in table.columns if column not in expected]
        if unknown:
            raise TableError(f"{table.name} has columns the model was not trained on: {', '.join(unknown)}")

    def inputs(self, table: Table) -> np.ndarray:
        """``[N, D]`` float64 model inputs of the table's rows."""
        parts = []
        for feature in self.features:
            values = table.columns[feature["name"]]
            if feature["kind"] == "numeric":
                if not table.is_numeric(feature["name"]):
                    example = next(value for value in values if value is not None and not _is_number(value))
                    raise TableError(
                        f"{table.name}: column {feature['name']!r} was numeric in training, has {example!r}"
                    )
                parts.append(((values - feature["mean"]) / feature["std"])[:, None])
            else:
                parts.append(_one_hot(table.name, feature, values))
        return np.concatenate(parts, axis=1)

    def targets(self, table: Table) -> np.ndarray:
        """``[N, 1]`` model targets: standardised values, counts, or class indices."""
        values = table.columns[self.target]
        if self.is_classification:
            index = {label: i for i, label in enumerate(self.labels)}
            texts = [label_text(value) for value in values]
            unknown = sorted({text for text in texts if text not in index})
            if unknown:
                raise TableError(
                    f"{table.name}: target {self.target!r} has labels not seen in training: {', '.join(unknown)}"
                )
            return np.array([index[text] for text in texts], dtype=float)[:, None]
        if not table.is_numeric(self.target):
            raise TableError(f"{table.name}: target {self.target!r} is not numeric")
        return ((values - self.target_mean) / self.target_std)[:, None]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Preprocessing":
        return cls(**data)


def _fit_feature(table: Table, all_rows: Table, column: str) -> dict:
    values = table.columns[column]
    if table.is_numeric(column):
        return dict(name=column, kind="numeric", mean=float(np.mean(values)), std=float(np.std(values)) or 1.0)
    return dict(name=column, kind="categorical", categories=sorted(set(all_rows.columns[column])))


def _one_hot(table_name: str, feature: dict, values: np.ndarray) -> np.ndarray:
    categories = feature["categories"]
    texts = [label_text(value) for value in values]
    unseen = sorted({text for text in texts if text not in categories})
    if unseen:
        raise TableError(
            f"{table_name}: column {feature['name']!r} has categories not seen in training: {', '.join(unseen)}"
        )
    return (np.array(texts, dtype=object)[:, None] == np.array(categories, dtype=object)[None, :]).astype(float)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
