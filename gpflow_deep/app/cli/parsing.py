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
