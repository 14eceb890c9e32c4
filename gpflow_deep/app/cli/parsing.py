"""Argument parsing that reports every mistake in one line."""

import argparse
import sys
import textwrap
from typing import List, NoReturn


class CommandError(Exception):
    """A user's mistake, reported as one line without a traceback."""


class OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line naming the command and pointing to ``--help``."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def example_epilog(*lines: str) -> str:
    """The ``--help`` footer showing example commands."""
    return "example:\n" + "\n".join(f"  {line}" for line in lines)


def paragraph(text: str) -> str:
    """A ``--help`` description wrapped to the terminal's usual width (the formatter keeps it as is)."""
    return textwrap.fill(text, width=88)


def comma_separated(text: str) -> List[str]:
    """``'sgp, dgp2,'`` -> ``['sgp', 'dgp2']``: the names of a comma-separated option."""
    return [name.strip() for name in text.split(",") if name.strip()]


def share(text: str) -> float:
    """A share in [0, 1] from ``'0.7'``; a one-line error for anything else (e.g. a data file that
    followed an option whose value may be left out)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share in [0, 1] (e.g. 0.7)")
    return value
