"""How a table's rows become model inputs ``X`` and targets ``Y``: numeric columns standardised,
date and time columns as days since 1970-01-01 standardised alike, text columns one-hot encoded
with their categories saved (the most frequent and an "other" level if there were too many),
regression targets standardised, class labels mapped to 0…K−1. A missing input value is filled
(:attr:`Preprocessing.fill_missing`): a number or date with the training mean (0 once
standardised), text with no category (every one-hot input 0), and a column that had missing values
in training has one more input, 1 where the value is missing. A :class:`Preprocessing` is plain data
that round-trips through JSON, so that a run directory applies it again to new rows, batch by batch;
those saved before dates, "other" levels, left-out columns and filled values existed load
unchanged (they fill nothing: their callers refuse or drop rows with missing values)."""

from dataclasses import asdict, dataclass, field
from typing import List, Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gpflow_deep.app.tables.dates import days_since_epoch, not_dates
from gpflow_deep.app.tables.rows import NUMERIC, TEXT, Rows, TableError
from gpflow_deep.registry import CLASSIFICATION_LIKELIHOODS

OTHER = "(other)"  # the one-hot level of the values of a text column not among its categories
MISSING = "(missing)"  # the input marking a column's missing values


def label_text(value) -> str:
    """A class label as text: numbers without a trailing ``.0``."""
    if isinstance(value, (float, np.floating)):
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    return str(value)


@dataclass
class Preprocessing:
    """How a table becomes model inputs ``X`` and targets ``Y``, learned from training rows.

    :ivar target: the target column.
    :ivar likelihood: the likelihood's name (:data:`~gpflow_deep.registry.LIKELIHOODS`), or
        ``"auto"`` for a numeric regression target whose likelihood is still to be chosen.
    :ivar features: per input column, in order: ``{"name", "kind": "numeric", "mean", "std"}``,
        ``{"name", "kind": "date", "mean", "std"}`` (in days since 1970-01-01) or
        ``{"name", "kind": "categorical", "categories", "other"}`` (``other``: whether the values not
        among ``categories`` share one more input; if not, or absent, they are refused); each may
        have ``"missing": True``, one more input marking the rows where the column is missing.
    :ivar target_mean: the mean subtracted from a regression target (Gaussian, Student-t, auto).
    :ivar target_std: the standard deviation a regression target is divided by.
    :ivar labels: class labels (as text) in the order of the classes 0…K−1.
    :ivar left_out: columns of the training table that are not inputs (identifiers, those the
        user ignored, those with no value); a table may have them or not.
    :ivar fill_missing: whether rows with missing input values are filled and used (the run's
        default since 2026-11-30); if not, they are dropped or refused, as ``--drop-missing`` asks.
    """

    target: str
    likelihood: str
    features: List[dict] = field(default_factory=list)
    target_mean: float = 0.0
    target_std: float = 1.0
    labels: Optional[List[str]] = None
    left_out: List[str] = field(default_factory=list)
    fill_missing: bool = False

    @property
    def input_columns(self) -> List[str]:
        """The columns of the table the model reads, in order."""
        return [feature["name"] for feature in self.features]

    @property
    def encoded_names(self) -> List[str]:
        """One name per model input: the column, or ``column=category`` for one-hot columns (and
        ``column=(other)`` for their "other" level), then ``column=(missing)`` if it marks missing
        values."""
        names = []
        for feature in self.features:
            if feature["kind"] == "categorical":
                names += [f"{feature['name']}={category}" for category in _levels(feature)]
            else:
                names.append(feature["name"])
            if feature.get("missing", False):
                names.append(f"{feature['name']}={MISSING}")
        return names

    @property
    def is_classification(self) -> bool:
        return self.likelihood in CLASSIFICATION_LIKELIHOODS

    def column_kinds(self, with_target: bool) -> dict:
        """``{column: "numeric" | "text"}`` the inputs (and a regression target) must have in a table
        (dates are read as text)."""
        kinds = {feature["name"]: NUMERIC if feature["kind"] == "numeric" else TEXT for feature in self.features}
        if with_target and not self.is_classification:
            kinds[self.target] = NUMERIC
        return kinds

    def check_columns(self, table_name: str, columns: Sequence[str], target_needed: bool) -> None:
        """A table of ``columns`` has exactly the training columns (the target too if
        ``target_needed``; the target may be there otherwise)."""
        expected = self.input_columns + self.left_out + [self.target]
        lacking = [column for column in self.input_columns if column not in columns]
        if target_needed and self.target not in columns:
            lacking.append(self.target)
        if lacking:
            raise TableError(f"{table_name} lacks columns the model was trained on: {', '.join(lacking)}")
        unknown = [column for column in columns if column not in expected]
        if unknown:
            raise TableError(f"{table_name} has columns the model was not trained on: {', '.join(unknown)}")

    def inputs(self, rows: Rows, table_name: str) -> np.ndarray:
        """``[n, D]`` float64 model inputs of the rows, missing values filled (the mean, no
        category) and marked where the feature has a ``missing`` input."""
        parts = []
        for feature in self.features:
            missing = rows.missing(feature["name"])
            values = rows.columns[feature["name"]]
            where = f"{table_name}: column {feature['name']!r}"
            if feature["kind"] == "date":
                values = _days(values, where)
            if feature["kind"] == "categorical":
                present = pc.drop_null(values)
                index = _category_index(present, feature["categories"], where, other=feature.get("other", False))
                one_hot = np.zeros((rows.num_rows, len(_levels(feature))))
                one_hot[np.flatnonzero(~missing), index] = 1.0
                parts.append(one_hot)
            else:
                parts.append(np.where(missing, 0.0, (values - feature["mean"]) / feature["std"])[:, None])
            if feature.get("missing", False):
                parts.append(missing.astype(float)[:, None])
        return np.concatenate(parts, axis=1)

    def targets(self, rows: Rows, table_name: str) -> np.ndarray:
        """``[n, 1]`` model targets: standardised values, counts, or class indices."""
        values = rows.columns[self.target]
        if self.is_classification:
            where = f"{table_name}: target {self.target!r}"
            return _category_index(label_texts(values), self.labels, where, "labels").astype(float)[:, None]
        return ((values - self.target_mean) / self.target_std)[:, None]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Preprocessing":
        return cls(**data)


def label_texts(values) -> pa.Array:
    """Class labels as text: a text column as it is, numbers through :func:`label_text`."""
    if not isinstance(values, np.ndarray):
        return values
    distinct, index = np.unique(values, return_inverse=True)
    return pa.array(np.array([label_text(value) for value in distinct], dtype=object)[index.reshape(-1)])


def _levels(feature: dict) -> List[str]:
    """The one-hot levels of a categorical feature: its categories, then ``(other)`` if it has one."""
    return feature["categories"] + ([OTHER] if feature.get("other", False) else [])


def _days(values: pa.Array, where: str) -> np.ndarray:
    """``[n]`` days since 1970-01-01 of a date column's text; an error naming values that are not dates."""
    days = days_since_epoch(values)
    if days is None:
        raise TableError(f"{where} has values that are not dates: {', '.join(map(repr, not_dates(values)))}")
    return days


def _category_index(
    values: pa.Array, categories: List[str], where: str, what: str = "categories", other: bool = False
) -> np.ndarray:
    """``[n]`` the index of each value among ``categories``, those not among them ``len(categories)``
    if ``other``, else an error naming them."""
    index = pc.index_in(values, value_set=pa.array(categories, pa.string()))
    if other:
        index = pc.fill_null(index, len(categories))
    elif index.null_count:
        unseen = pc.unique(pc.drop_null(pc.filter(values, pc.is_null(index)))).to_pylist()
        raise TableError(f"{where} has {what} not seen in training: {', '.join(sorted(unseen))}")
    return index.to_numpy(zero_copy_only=False)
