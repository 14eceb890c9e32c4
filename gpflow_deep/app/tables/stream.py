"""The encoded rows of a table, read from disk chunk by chunk: training rows for :func:`~gpflow_deep.fit`
and, for prediction and scoring, every usable row with its position."""

from typing import Iterator, Optional, Tuple

import numpy as np

from gpflow_deep.app.tables.encoding import Preprocessing
from gpflow_deep.app.tables.reader import TableReader
from gpflow_deep.app.tables.rows import Rows
from gpflow_deep.app.tables.split import held_out


def usable_rows(reader: TableReader, columns, required=None) -> Iterator[Tuple[int, Rows, np.ndarray]]:
    """``(first_row, rows, usable)`` for each batch of ``columns``: its rows without missing values
    in ``required`` (by default every one of ``columns``), the position of their first among the
    usable rows of the file (the others skipped), and which of the batch's rows they are
    (``[batch rows]`` bool)."""
    position = 0
    for batch in reader.batches(columns):
        missing = np.zeros(batch.num_rows, dtype=bool)
        for column in columns if required is None else required:
            missing |= batch.missing(column)
        rows = batch.select(~missing) if missing.any() else batch
        yield position, rows, ~missing
        position += rows.num_rows


def training_chunks(
    reader: TableReader, preprocessing: Preprocessing, validation_fraction: float, seed: int
) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """One pass of encoded training rows (X ``[n, D]``, Y ``[n, 1]``): every row of the file with a
    target (and every value, unless ``preprocessing.fill_missing``), but those held out for early
    stopping; as :func:`~.learning.learn_table` chose them."""
    required = [preprocessing.target] if preprocessing.fill_missing else reader.columns
    row = 0
    for batch in reader.batches():
        keep = ~held_out(row, batch.num_rows, validation_fraction, seed)
        row += batch.num_rows
        for column in required:
            keep &= ~batch.missing(column)
        rows = batch.select(keep)
        if rows.num_rows:
            yield preprocessing.inputs(rows, reader.name), preprocessing.targets(rows, reader.name)


def encoded(sample: dict, preprocessing: Preprocessing, name: str) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """A sample of rows (:meth:`Rows.as_numpy` arrays) encoded as (X, Y); None if it is empty."""
    if not sample or len(next(iter(sample.values()))) == 0:
        return None
    rows = Rows.from_numpy(sample)
    return preprocessing.inputs(rows, name), preprocessing.targets(rows, name)
