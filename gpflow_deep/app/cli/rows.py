"""The rows of a table that a restored run predicts or is scored on."""

from typing import Tuple

import numpy as np

from gpflow_deep.app.cli.parsing import CommandError
from gpflow_deep.app.tables import Table, missing_values_message, read_table, rows_with_missing


def load_rows(run_dir: str, data: str, target_needed: bool, drop_missing: bool) -> Tuple[object, Table, np.ndarray]:
    """The run restored from ``run_dir``, the table ``data`` (rows with missing values dropped if
    ``drop_missing``, refused otherwise) and its model inputs."""
    from gpflow_deep.app.run_directory import load_run

    table = read_table(data)
    run = load_run(run_dir)
    run.preprocessing.check_columns(table, target_needed)
    used = run.preprocessing.input_columns + ([run.preprocessing.target] if target_needed else [])
    message = missing_values_message(table, used)
    if message is not None:
        if not drop_missing:
            hint = "; fix them or pass --drop-missing" if target_needed else "; fill them in first"
            raise CommandError(message + hint)
        table = table.rows(~rows_with_missing(table, used)[0])
        print(message.replace(" have missing values", " had missing values and were dropped"))
        if table.num_rows == 0:
            raise CommandError("no rows left after dropping those with missing values")
    return run, table, run.preprocessing.inputs(table)
