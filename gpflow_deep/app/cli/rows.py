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


def add_drop_missing(parser) -> None:
    """``--drop-missing`` for a command that scores a run on rows with targets (evaluate, calibrate)."""
    parser.add_argument(
        "--drop-missing",
        action="store_true",
        help="skip rows with missing values instead of filling them as fit did (or, for a run that drops them, "
        "instead of failing); rows without a target are always skipped",
    )


@dataclass
class CheckedRows:
    """A table a run can read: every used column present and typed as in training, every value
    one the encoding knows. ``usable`` rows have all the ``required`` columns of the ``columns`` read
    (the others' missing values are filled as in training)."""

    run: object
    reader: TableReader
    columns: List[str]
    required: List[str]
    usable: int
    with_target: bool

    def batches(self) -> Iterator[Tuple[int, Rows, np.ndarray]]:
        """``(first_row, rows, X)``: each batch's usable rows, the position of the first among the
        usable rows of the file, and their encoded inputs ``[n, D]``."""
        for first_row, rows, _ in usable_rows(self.reader, self.columns, self.required):
            if rows.num_rows:
                yield first_row, rows, self.run.preprocessing.inputs(rows, self.reader.name)

    def file_batches(self) -> Iterator[Tuple[int, np.ndarray, np.ndarray]]:
        """``(first_row, usable, X)``: every batch of the file in order, which of its rows are usable
        (``[batch rows]`` bool), the position of the first usable one among the usable rows of the
        file, and their encoded inputs ``[n, D]`` (n may be 0)."""
        for first_row, rows, usable in usable_rows(self.reader, self.columns, self.required):
            yield first_row, usable, self.run.preprocessing.inputs(rows, self.reader.name)


def checked_rows(
    run_dir: str, data: str, target_needed: bool, drop_missing: bool, skipped_as: str = DROPPED
) -> CheckedRows:
    """The run restored from ``run_dir`` and the table ``data``, read once to check it. A run that
    fills missing inputs (``Preprocessing.fill_missing``) fills them here too and skips the rows
    without a target; with ``drop_missing``, or for a run that does not fill, rows with missing
    values are skipped (the message says they ``skipped_as``), or else refused. Unknown categories
    and text in a numeric column are refused."""
    from gpflow_deep.app.run_directory import load_run

    run = load_run(run_dir)
    preprocessing = run.preprocessing
    reader = TableReader(data, kinds=preprocessing.column_kinds(with_target=target_needed))
    preprocessing.check_columns(reader.name, reader.columns, target_needed)
    target = [preprocessing.target] if target_needed else []
    columns = preprocessing.input_columns + target
    fill = preprocessing.fill_missing and not drop_missing
    required = target if fill else columns
    progress = RowProgress("checking", fraction=lambda: reader.fraction_read)
    total, usable, filled, missing = 0, 0, 0, dict.fromkeys(columns, 0)
    for batch in reader.batches(columns):
        gone, filled_here = np.zeros(batch.num_rows, dtype=bool), np.zeros(batch.num_rows, dtype=bool)
        for column in columns:
            column_gone = batch.missing(column)
            missing[column] += int(np.count_nonzero(column_gone))
            if column in required:
                gone |= column_gone
            else:
                filled_here |= column_gone
        rows = batch.select(~gone)
        preprocessing.inputs(rows, reader.name)
        if target_needed:
            preprocessing.targets(rows, reader.name)
        total += batch.num_rows
        usable += rows.num_rows
        filled += int(np.count_nonzero(filled_here & ~gone))
        progress(total)
    progress.close()
    if fill:
        _report_filled(reader.name, total, usable, filled, missing, target)
    else:
        _check_missing(reader.name, total, usable, missing, target_needed, drop_missing, skipped_as)
    return CheckedRows(run, reader, columns, required, usable, target_needed)


def _report_filled(name: str, total: int, usable: int, filled: int, per_column: Dict[str, int], target) -> None:
    """Say how many rows had inputs filled (``per_column``: rows missing each column) and how many
    had no ``target`` and were skipped."""
    if filled:
        inputs = {column: count for column, count in per_column.items() if column not in target}
        print(missing_values_message(name, total, filled, inputs) + ": filled as in training")
    if usable < total:
        print(
            f"{name}: {total - usable:,} of {total:,} rows have no value of the target {target[0]!r} and were skipped"
        )
    if usable == 0:
        raise CommandError("no rows left after skipping those without a target")


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
