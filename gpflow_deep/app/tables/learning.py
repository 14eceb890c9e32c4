"""One pass over a training table: the encoding (:class:`Preprocessing`), the rows with missing
values, the split into training and held-out rows, and bounded random samples of both."""

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import numpy as np

from gpflow_deep.app.tables.encoding import Preprocessing, label_text
from gpflow_deep.app.tables.reader import ColumnKindChanged, TableReader
from gpflow_deep.app.tables.rows import Rows, TableError
from gpflow_deep.app.tables.split import held_out
from gpflow_deep.app.tables.statistics import DistinctValues, RunningMoments
from gpflow_deep.evaluation.reservoir import Reservoir
from gpflow_deep.registry import CLASSIFICATION_LIKELIHOODS, LIKELIHOODS


@dataclass
class LearnedTable:
    """What :func:`learn_table` found.

    :ivar rows: the rows of the file; ``missing_rows`` of them lack a value (in ``missing_columns``)
        and were left out of everything else.
    :ivar training_rows: the other rows, but those held out for early stopping.
    :ivar held_out_rows: the rows held out.
    :ivar sample: a uniform sample of at most ``sample_rows`` training rows, every column as numpy
        (floats, or str objects).
    :ivar held_out_sample: the same of the held-out rows.
    """

    preprocessing: Preprocessing
    rows: int
    missing_rows: int
    missing_columns: List[str]
    training_rows: int
    held_out_rows: int
    sample: Dict[str, np.ndarray]
    held_out_sample: Dict[str, np.ndarray]

    def missing_message(self, table_name: str) -> Optional[str]:
        """One line naming the columns with missing values and the row count, or None if there are none."""
        if not self.missing_rows:
            return None
        columns = ", ".join(self.missing_columns)
        return f"{table_name}: {self.missing_rows} of {self.rows} rows have missing values (columns: {columns})"


def learn_table(
    reader: TableReader,
    target: str,
    likelihood: str,
    *,
    validation_fraction: float = 0.0,
    seed: int = 0,
    sample_rows: int = 10_000,
    on_batch: Optional[Callable[[int], None]] = None,
) -> LearnedTable:
    """Learn the encoding of every column but ``target`` and of ``target`` in one pass over the
    file (numeric means and standard deviations from the training rows, categories and class
    labels from all rows); ``on_batch(rows so far)`` reports progress. A pass that finds text in a
    column it took for numeric starts again with the column as text."""
    if likelihood not in LIKELIHOODS:
        raise TableError(f"unknown likelihood {likelihood!r}; choose from {', '.join(LIKELIHOODS)}")
    if target not in reader.columns:
        raise TableError(f"{reader.name} has no column {target!r} (columns: {', '.join(reader.columns)})")
    if len(reader.columns) < 2:
        raise TableError(f"{reader.name} has no input columns besides the target {target!r}")
    while True:
        try:
            return _Pass(reader, target, likelihood, validation_fraction, seed, sample_rows).run(on_batch)
        except ColumnKindChanged:
            continue


class _Pass:
    def __init__(self, reader: TableReader, target: str, likelihood: str, fraction: float, seed: int, sample: int):
        self.reader, self.target, self.likelihood = reader, target, likelihood
        self.fraction, self.seed = fraction, seed
        self.classification = likelihood in CLASSIFICATION_LIKELIHOODS
        self.inputs = [column for column in reader.columns if column != target]
        self.moments = {column: RunningMoments() for column in reader.columns if reader.kinds[column] == "numeric"}
        self.categories = {
            column: DistinctValues(f"{reader.name}: column {column!r}")
            for column in self.inputs
            if reader.kinds[column] == "text"
        }
        self.labels = DistinctValues(f"{reader.name}: target {target!r}")
        self.missing = dict.fromkeys(reader.columns, 0)
        self.rows = self.missing_rows = self.training_rows = self.held_out_rows = 0
        self.sample, self.held_out_sample = Reservoir(sample, seed), Reservoir(sample, seed + 1)

    def run(self, on_batch: Optional[Callable[[int], None]]) -> LearnedTable:
        for batch in self.reader.batches():
            self.add(batch)
            if on_batch is not None:
                on_batch(self.rows)
        missing_columns = [column for column in self.reader.columns if self.missing[column]]
        return LearnedTable(
            self.preprocessing(),
            self.rows,
            self.missing_rows,
            missing_columns,
            self.training_rows,
            self.held_out_rows,
            self.sample.sample,
            self.held_out_sample.sample,
        )

    def add(self, batch: Rows) -> None:
        if not self.classification and not batch.is_numeric(self.target):
            self._not_numeric_target(batch)
        missing = np.zeros(batch.num_rows, dtype=bool)
        for column in self.reader.columns:
            gone = batch.missing(column)
            self.missing[column] += int(np.count_nonzero(gone))
            missing |= gone
        held = held_out(self.rows, batch.num_rows, self.fraction, self.seed)
        self.rows += batch.num_rows
        self.missing_rows += int(np.count_nonzero(missing))
        kept = batch.select(~missing)
        training = batch.select(~missing & ~held)
        self.training_rows += training.num_rows
        self.held_out_rows += kept.num_rows - training.num_rows
        for column, moments in self.moments.items():
            moments.add(training.columns[column])
        for column, categories in self.categories.items():
            categories.add(kept.columns[column])
        values = kept.columns[self.target]
        if self.classification:
            self.labels.add(values)
        elif self.likelihood == "poisson" and np.any((values < 0) | (values != np.round(values))):
            raise TableError(f"the poisson likelihood needs non-negative whole counts in {self.target!r}")
        self.sample.offer(training.as_numpy())
        self.held_out_sample.offer(batch.select(~missing & held).as_numpy())

    def _not_numeric_target(self, batch: Rows) -> None:
        example = next(
            text for text in batch.columns[self.target].to_pylist() if text is not None and not _number(text)
        )
        raise TableError(
            f"target {self.target!r} is not numeric (e.g. {example!r}); for class labels use "
            "--likelihood bernoulli or multiclass"
        )

    def preprocessing(self) -> Preprocessing:
        features = []
        for column in self.inputs:
            if column in self.moments:
                moments = self.moments[column]
                features.append(dict(name=column, kind="numeric", mean=moments.mean, std=moments.std))
            else:
                features.append(dict(name=column, kind="categorical", categories=self.categories[column].sorted()))
        result = Preprocessing(self.target, self.likelihood, features)
        if self.classification:
            result.labels = [label_text(label) for label in self.labels.sorted()]
            self._check_classes(result.labels)
        elif self.likelihood != "poisson":
            result.target_mean, result.target_std = self.moments[self.target].mean, self.moments[self.target].std
        return result

    def _check_classes(self, labels: List[str]) -> None:
        if self.likelihood == "bernoulli" and len(labels) != 2:
            raise TableError(
                f"the bernoulli likelihood needs 2 classes, target {self.target!r} has {len(labels)}"
                + ("" if len(labels) < 2 else "; use --likelihood multiclass")
            )
        if len(labels) < 2:
            raise TableError(f"target {self.target!r} has a single class; classification needs at least 2")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
