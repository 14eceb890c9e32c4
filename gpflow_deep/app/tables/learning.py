"""One pass over a training table: the encoding (:class:`Preprocessing`), the rows with missing
values, the split into training and held-out rows, and bounded random samples of both.

Each input column becomes, in this order of checks:

- numeric: one input, standardised on the training rows;
- a date or time (a Parquet date or timestamp, or text whose every value is an ISO 8601 date or
  time, e.g. ``1969-01-01`` or ``1969-01-01T00:00:00Z``): one input, days since 1970-01-01,
  standardised on the training rows;
- text with at most ``ONE_HOT_LIMIT`` (100) distinct values: one-hot, one input per value;
- an identifier, text with more distinct values than that and than half its rows: left out;
- other text: one-hot of its 100 most frequent values and one "other" input for the rest.

The text values are counted in bounded memory (:class:`~.statistics.CategoryCounts`), over the
rows where the column has a value.

Rows without a target value are left out. A missing input value is filled (the mean of a number
or date, no category for text) and, in a column that has any, marked by one more input
(:class:`~.encoding.Preprocessing`); a column with no value at all is left out. With
``drop_missing`` every row missing any value is left out instead.

What was done to a column other than the first three is a line of :attr:`LearnedTable.notes`, for
the caller to show once (``gpflow-deep fit`` logs it at WARNING), as is a regression target's
extreme that looks like a cap or a floor (:func:`~.statistics.heaped_extremes`).

``likelihood="auto"`` picks the likelihood from the target: text with 2 labels is ``"bernoulli"``,
with more ``"multiclass"``; numbers that are all 0 or 1 (both present) are ``"bernoulli"``; any
other numbers are a regression target, standardised, and ``preprocessing.likelihood`` stays
``"auto"`` for the caller to choose (and set) a regression likelihood. The choice is
``table.preprocessing.likelihood``.
"""

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import numpy as np
import pyarrow.compute as pc

from gpflow_deep.app.tables.dates import days_since_epoch
from gpflow_deep.app.tables.encoding import Preprocessing, label_text
from gpflow_deep.app.tables.missing import missing_values_message
from gpflow_deep.app.tables.reader import ColumnKindChanged, TableReader
from gpflow_deep.app.tables.rows import NUMERIC, TEXT, Rows, TableError
from gpflow_deep.app.tables.split import held_out
from gpflow_deep.app.tables.statistics import (
    IDENTIFIER_SHARE,
    ONE_HOT_LIMIT,
    TRACKED_VALUES,
    CategoryChoice,
    CategoryCounts,
    DistinctValues,
    RunningMoments,
    heaped_extremes,
)
from gpflow_deep.evaluation.reservoir import Reservoir
from gpflow_deep.registry import CLASSIFICATION_LIKELIHOODS, LIKELIHOODS

AUTO = "auto"


@dataclass
class LearnedTable:
    """What :func:`learn_table` found.

    :ivar rows: the rows of the file; ``missing_rows`` of them lack the target (or, with
        ``drop_missing``, any value) and were left out of everything else (``missing_columns``: how
        many rows of the file lack a value in each column that lacks any).
    :ivar filled_columns: how many of the other rows lack a value of each input column that lacks
        any: values filled, and marked by an input.
    :ivar training_rows: the other rows, but those held out for early stopping.
    :ivar held_out_rows: the rows held out.
    :ivar sample: a uniform sample of at most ``sample_rows`` training rows, every column as numpy
        (floats, or str objects).
    :ivar held_out_sample: the same of the held-out rows.
    :ivar notes: one line per input column whose encoding the user should know of (left out, or
        cut to its most frequent values), and per extreme of a regression target that looks like a
        cap or a bound; ``gpflow-deep fit`` logs them at WARNING.
    """

    preprocessing: Preprocessing
    rows: int
    missing_rows: int
    missing_columns: Dict[str, int]
    filled_columns: Dict[str, int]
    training_rows: int
    held_out_rows: int
    sample: Dict[str, np.ndarray]
    held_out_sample: Dict[str, np.ndarray]
    notes: List[str] = field(default_factory=list)

    def missing_message(self, table_name: str, dropped: bool = False) -> Optional[str]:
        """One line naming the columns with missing values and the row count (``dropped``: saying
        they were dropped), or None if there are none."""
        return missing_values_message(table_name, self.rows, self.missing_rows, self.missing_columns, dropped)

    def filled_message(self, table_name: str) -> Optional[str]:
        """One line naming the input columns whose missing values were filled, or None if none were."""
        if not self.filled_columns:
            return None
        rows = self.rows - self.missing_rows
        columns = ", ".join(f"{column} {count:,}" for column, count in self.filled_columns.items())
        return (
            f"{table_name}: missing input values filled (rows per column, of {rows:,}: {columns}): numbers and dates "
            "with the training mean, text with no category, each such column marked by one more input; "
            "--drop-missing drops those rows instead"
        )


def learn_table(
    reader: TableReader,
    target: str,
    likelihood: str,
    *,
    validation_fraction: float = 0.0,
    seed: int = 0,
    sample_rows: int = 10_000,
    drop_missing: bool = False,
    on_batch: Optional[Callable[[int], None]] = None,
) -> LearnedTable:
    """Learn the encoding of every column but ``target`` and of ``target`` in one pass over the
    file (numeric and date means and standard deviations from the training rows, categories and
    class labels from all rows; missing values filled, or their rows dropped if ``drop_missing``);
    ``on_batch(rows so far)`` reports progress. A pass that finds text
    in a column it took for numeric starts again with the column as text. ``likelihood`` is one of
    :data:`~gpflow_deep.registry.LIKELIHOODS` or ``"auto"`` (see the module's docstring)."""
    if likelihood != AUTO and likelihood not in LIKELIHOODS:
        raise TableError(f"unknown likelihood {likelihood!r}; choose from {', '.join(LIKELIHOODS + (AUTO,))}")
    if target not in reader.columns:
        raise TableError(f"{reader.name} has no column {target!r} (columns: {', '.join(reader.columns)})")
    if len(reader.columns) < 2:
        raise TableError(f"{reader.name} has no input columns besides the target {target!r}")
    while True:
        try:
            table = _Pass(reader, target, likelihood, validation_fraction, seed, sample_rows, drop_missing)
            return table.run(on_batch)
        except ColumnKindChanged:
            continue


class _Pass:
    def __init__(
        self, reader: TableReader, target: str, likelihood: str, fraction: float, seed: int, sample: int, drop: bool
    ):
        self.reader, self.target, self.likelihood = reader, target, likelihood
        self.fraction, self.seed, self.drop_missing = fraction, seed, drop
        self.required = set(reader.columns) if drop else {target}  # a row missing one of these is left out
        text_target = reader.kinds[target] == TEXT
        self.classification = likelihood in CLASSIFICATION_LIKELIHOODS or (likelihood == AUTO and text_target)
        self.zeros_and_ones = likelihood == AUTO and not text_target  # until a target is neither 0 nor 1
        self.inputs = [column for column in reader.columns if column != target]
        self.moments = {column: RunningMoments() for column in reader.columns if reader.kinds[column] == NUMERIC}
        text_inputs = [column for column in self.inputs if reader.kinds[column] == TEXT]
        self.categories = {column: CategoryCounts() for column in text_inputs}
        self.dates = {column: RunningMoments() for column in text_inputs}  # until a value is not a date
        self.labels = DistinctValues(f"{reader.name}: target {target!r}")
        self.missing = dict.fromkeys(reader.columns, 0)
        self.filled = dict.fromkeys(self.inputs, 0)
        self.rows = self.missing_rows = self.training_rows = self.held_out_rows = 0
        self.sample, self.held_out_sample = Reservoir(sample, seed), Reservoir(sample, seed + 1)
        self.notes: List[str] = []

    def run(self, on_batch: Optional[Callable[[int], None]]) -> LearnedTable:
        for batch in self.reader.batches():
            self.add(batch)
            if on_batch is not None:
                on_batch(self.rows)
        missing_columns = {column: count for column, count in self.missing.items() if count}
        preprocessing = self.preprocessing()
        filled = {column: self.filled[column] for column in preprocessing.input_columns if self.filled[column]}
        return LearnedTable(
            preprocessing,
            self.rows,
            self.missing_rows,
            missing_columns,
            filled,
            self.training_rows,
            self.held_out_rows,
            self.sample.sample,
            self.held_out_sample.sample,
            self.notes,
        )

    def add(self, batch: Rows) -> None:
        if not self.classification and not batch.is_numeric(self.target):
            self._not_numeric_target(batch)
        missing = np.zeros(batch.num_rows, dtype=bool)
        gone = {column: batch.missing(column) for column in self.reader.columns}
        for column in self.reader.columns:
            self.missing[column] += int(np.count_nonzero(gone[column]))
            if column in self.required:
                missing |= gone[column]
        for column in self.inputs:
            self.filled[column] += int(np.count_nonzero(gone[column] & ~missing))
        held = held_out(self.rows, batch.num_rows, self.fraction, self.seed)
        self.rows += batch.num_rows
        self.missing_rows += int(np.count_nonzero(missing))
        kept = batch.select(~missing)
        training = batch.select(~missing & ~held)
        self.training_rows += training.num_rows
        self.held_out_rows += kept.num_rows - training.num_rows
        for column, moments in self.moments.items():
            values = training.columns[column]
            moments.add(values[np.isfinite(values)])
        for column, categories in self.categories.items():
            categories.add(pc.drop_null(kept.columns[column]))
        self._add_dates(kept, ~held[~missing])
        values = kept.columns[self.target]
        self.zeros_and_ones = self.zeros_and_ones and bool(np.all((values == 0) | (values == 1)))
        if self.classification or self.zeros_and_ones:
            self.labels.add(values)
        elif self.likelihood == "poisson" and np.any((values < 0) | (values != np.round(values))):
            raise TableError(f"the poisson likelihood needs non-negative whole counts in {self.target!r}")
        self.sample.offer(training.as_numpy())
        self.held_out_sample.offer(batch.select(~missing & held).as_numpy())

    def _add_dates(self, kept: Rows, training: np.ndarray) -> None:
        """Add the days of the ``training`` ``[n]`` rows of ``kept`` to the columns still all dates."""
        for column in list(self.dates):
            days = days_since_epoch(kept.columns[column])
            if days is None:
                del self.dates[column]
            else:
                days = days[training]
                self.dates[column].add(days[np.isfinite(days)])

    def _not_numeric_target(self, batch: Rows) -> None:
        example = next(
            text for text in batch.columns[self.target].to_pylist() if text is not None and not _number(text)
        )
        raise TableError(
            f"target {self.target!r} is not numeric (e.g. {example!r}); for class labels use "
            "--likelihood bernoulli or multiclass"
        )

    def preprocessing(self) -> Preprocessing:
        result = Preprocessing(
            self.target, self.likelihood, left_out=list(self.reader.ignored), fill_missing=not self.drop_missing
        )
        kept_rows = self.training_rows + self.held_out_rows
        for column in self.inputs:
            marked = dict(missing=True) if self.filled[column] else {}
            if kept_rows and self.filled[column] == kept_rows:
                result.left_out.append(column)
                self.notes.append(f"column {column!r} left out: it has no value in any row with a target")
                continue
            if column in self.moments:
                moments = self.moments[column]
                result.features.append(dict(name=column, kind="numeric", mean=moments.mean, std=moments.std, **marked))
                continue
            if column in self.dates and self.dates[column].count:
                days = self.dates[column]
                result.features.append(dict(name=column, kind="date", mean=days.mean, std=days.std, **marked))
                continue
            choice = self.categories[column].choice()
            if choice.categories is None:
                result.left_out.append(column)
            else:
                feature = dict(name=column, kind="categorical", categories=choice.categories)
                result.features.append(dict(feature, **(dict(other=True) if choice.other else {}), **marked))
            self._note(column, choice)
        if not result.features:
            identifiers = ", ".join(column for column in result.left_out if column not in self.reader.ignored)
            raise TableError(f"{self.reader.name} has no input columns left: {identifiers} are identifiers")
        labels = [label_text(label) for label in self.labels.sorted()]
        if self.zeros_and_ones and len(labels) == 2:
            self.classification = True
        if self.classification:
            result.likelihood = self.likelihood if self.likelihood != AUTO else _class_likelihood(labels)
            result.labels = labels
            self._check_classes(labels)
        elif self.likelihood != "poisson":
            result.target_mean, result.target_std = self.moments[self.target].mean, self.moments[self.target].std
            self._note_heaped_target()
        return result

    def _note(self, column: str, choice: CategoryChoice) -> None:
        """Keep a note of what was done to a text column with more than ``ONE_HOT_LIMIT`` values."""
        distinct = f"{choice.distinct:,}" if choice.distinct is not None else f"more than {TRACKED_VALUES:,}"
        if choice.categories is None:
            share = f"{IDENTIFIER_SHARE:.0%}"
            note = (
                f"column {column!r} left out: an identifier ({distinct} distinct values, over {share} of the rows "
                "with no missing value)"
            )
        elif choice.other:
            note = (
                f"column {column!r}: {distinct} distinct values; one-hot of the {len(choice.categories)} most "
                f"frequent and one 'other' input for the rest (at most {ONE_HOT_LIMIT} are kept)"
            )
        else:
            return
        self.notes.append(note)

    def _note_heaped_target(self) -> None:
        """Keep a note of each extreme of a regression target that looks like a cap or a floor."""
        values = self.sample.sample.get(self.target)
        if values is None:
            return
        rows_read = "sampled training rows" if self.training_rows > len(values) else "training rows"
        for which, value, rows in heaped_extremes(values):
            self.notes.append(
                f"target {self.target!r}: {rows:,} of {len(values):,} {rows_read} ({rows / len(values):.1%}) hold "
                f"its {which} value, {value:g}, more than any value between its extremes: a cap (every value "
                f"beyond it recorded as {value:g}) or a bound that many rows reach. The likelihood reads those "
                f"rows as exact values of a smooth density with no mass at {value:g}, so intervals near it are "
                "less reliable"
            )

    def _check_classes(self, labels: List[str]) -> None:
        if self.likelihood == "bernoulli" and len(labels) != 2:
            raise TableError(
                f"the bernoulli likelihood needs 2 classes, target {self.target!r} has {len(labels)}"
                + ("" if len(labels) < 2 else "; use --likelihood multiclass")
            )
        if len(labels) < 2:
            raise TableError(f"target {self.target!r} has a single class; classification needs at least 2")


def _class_likelihood(labels: List[str]) -> str:
    """The likelihood ``"auto"`` resolves to for class ``labels``."""
    return "bernoulli" if len(labels) == 2 else "multiclass"


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
