"""The rows ``gpflow-deep fit`` holds out of a table: rows to stop training early
(``--validation-fraction``) or rows to calibrate the predictive intervals on
(``--calibration-fraction``), never both.

A large regression table (more than ``IN_MEMORY_ROWS`` training rows) holds out
:data:`DEFAULT_CALIBRATION_FRACTION` of its rows for split-conformal calibration unless told
otherwise: there, 2% of the rows cost the model nothing measurable, and the intervals that
``predict`` writes then cover new rows of the same table at their nominal level, whatever the
likelihood. A small table keeps every row for training unless asked.
"""

import argparse
from dataclasses import dataclass

from gpflow_deep.app.cli.parsing import CommandError

DEFAULT_CALIBRATION_FRACTION = 0.02


@dataclass(frozen=True)
class HeldOut:
    """``fraction`` of the rows held out, to ``calibrate`` the intervals (or else to stop early);
    ``default``: chosen by ``fit``, not asked for."""

    fraction: float
    calibrate: bool = False
    default: bool = False

    @property
    def option(self) -> str:
        return "--calibration-fraction" if self.calibrate else "--validation-fraction"


NOTHING = HeldOut(0.0)


def requested_held_out(args: argparse.Namespace) -> HeldOut:
    """What the options ask to hold out, or the default calibration rows (a large regression table
    keeps them; :func:`default_applies` says which tables)."""
    validation, calibration = args.validation_fraction, args.calibration_fraction
    for name, value in (("validation", validation), ("calibration", calibration)):
        if value is not None and not 0.0 <= value < 1.0:
            raise CommandError(f"--{name}-fraction must be in [0, 1), got {value}")
    if validation and calibration:
        raise CommandError(
            "hold out rows for early stopping (--validation-fraction) or for calibration "
            "(--calibration-fraction), not both; a run can be calibrated later on a file of its own "
            "with 'gpflow-deep calibrate RUN_DIR HELD_OUT.csv'"
        )
    if validation:
        return HeldOut(validation)
    if calibration is not None:
        return HeldOut(calibration, calibrate=calibration > 0)
    return HeldOut(DEFAULT_CALIBRATION_FRACTION, calibrate=True, default=True)


def default_applies(held_out: HeldOut, training_rows: int, classification: bool, in_memory_rows: int) -> bool:
    """Whether a table read with ``held_out`` keeps it: always when it was asked for; the default
    only for a regression table of more than ``in_memory_rows`` training rows."""
    return not held_out.default or (training_rows > in_memory_rows and not classification)
