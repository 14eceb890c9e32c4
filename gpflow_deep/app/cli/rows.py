"""The rows of a table that a restored run predicts or is scored on, checked in one pass before
any output is written."""

from dataclasses import dataclass
from typing import Dict, Iterator, List, Tuple

import numpy as np

from gpflow_deep.app.cli.parsing import CommandError
from gpflow_deep.app.cli.progress import RowProgress
from gpflow_deep.app.tables import Rows, TableReader
from gpflow_deep.app.tables.missing import missing_values_message
from gpflow_deep.app.tables.stream import usable_rows

DROPPED = "were dropped"


@dataclass
class CheckedRows:
    """A table a run can read: every used column present and typed as in training, every value
    one the encoding knows. ``usable`` rows have all the ``columns`` used."""

    run: object
    reader: TableReader
    columns: List[str]
    usable: int
    with_target: bool

    def batches(self) -> Iterator[Tuple[int, Rows, np.ndarray]]:
        """``(first_row, rows, X)``: each batch's usable rows, the position of the first among the
        usable rows of the file, and their encoded inputs ``[n, D]``."""
        for first_row, rows, _ in usable_rows(self.reader, self.columns):
            if rows.num_rows:
                yield first_row, rows, self.run.preprocessing.inputs(rows, self.reader.name)

    def file_batches(self) -> Iterator[Tuple[int, np.ndarray, np.ndarray]]:
        """``(first_row, usable, X)``: every batch of the file in order, which of its rows are usable
        (``[batch rows]`` bool), the position of the first usable one among the usable rows of the
        file, and their encoded inputs ``[n, D]`` (n may be 0)."""
        for first_row, rows, usable in usable_rows(self.reader, self.columns):
            yield first_row, usable, self.run.preprocessing.inputs(rows, self.reader.name)


def checked_rows(
    run_dir: str, data: str, target_needed: bool, drop_missing: bool, skipped_as: str = DROPPED
) -> CheckedRows:
    """The run restored from ``run_dir`` and the table ``data``, read once to check it: rows with
    missing values are refused, or skipped if ``drop_missing`` (the message says they ``skipped_as``);
    unknown categories and text in a numeric column are refused."""
    from gpflow_deep.app.run_directory import load_run

    run = load_run(run_dir)
    preprocessing = run.preprocessing
    reader = TableReader(data, kinds=preprocessing.column_kinds(with_target=target_needed))
    preprocessing.check_columns(reader.name, reader.columns, target_needed)
    columns = preprocessing.input_columns + ([preprocessing.target] if target_needed else [])
    progress = RowProgress("checking", fraction=lambda: reader.fraction_read)
    total, usable, missing = 0, 0, dict.fromkeys(columns, 0)
    for batch in reader.batches(columns):
        gone = np.zeros(batch.num_rows, dtype=bool)
        for column in columns:
            column_gone = batch.missing(column)
            missing[column] += int(np.count_nonzero(column_gone))
            gone |= column_gone
        rows = batch.select(~gone)
        preprocessing.inputs(rows, reader.name)
        if target_needed:
            preprocessing.targets(rows, reader.name)
        total += batch.num_rows
        usable += rows.num_rows
        progress(total)
    progress.close()
    _check_missing(reader.name, total, usable, missing, target_needed, drop_missing, skipped_as)
    return CheckedRows(run, reader, columns, usable, target_needed)


def _check_missing(
    name: str, total: int, usable: int, per_column: Dict[str, int], target_needed: bool, drop: bool, skipped_as: str
) -> None:
    """Refuse the rows with missing values (``per_column``: rows missing each column), or report
    them skipped as ``skipped_as`` says."""
    if usable == total:
        return
    if not drop:
        hint = "; fix them or pass --drop-missing" if target_needed else "; fill them in or pass --skip-missing"
        raise CommandError(missing_values_message(name, total, total - usable, per_column) + hint)
    dropped = skipped_as == DROPPED
    message = missing_values_message(name, total, total - usable, per_column, dropped)
    print(message if dropped else f"{message}: {skipped_as}")
    if usable == 0:
        raise CommandError("no rows left after skipping those with missing values")
