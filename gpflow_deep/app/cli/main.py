"""The ``gpflow-deep`` command: ``demo``, ``fit``, ``predict``, ``evaluate``, ``calibrate`` and ``benchmark``.

Quiet by default: TensorFlow's Python loggers and warnings are silenced (``--verbose`` brings them
back, with this package's INFO messages). The console script ``gpflow-deep``
(:func:`gpflow_deep.app.cli.main`) also silences TensorFlow's native start-up messages, which are
written before any Python code of this package can run.
"""

import argparse
import logging
import sys
import warnings
from typing import List, Optional

from gpflow_deep.app.cli import benchmark, calibrate, demo, evaluate, fit, predict
from gpflow_deep.app.cli.parsing import CommandError, OneLineErrorParser

SUBCOMMANDS = (demo, fit, predict, evaluate, calibrate, benchmark)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``gpflow-deep`` and its subcommands."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-v", "--verbose", action="store_true", help="show TensorFlow's messages and INFO logs")
    parser = OneLineErrorParser(
        prog="gpflow-deep",
        description="Deep Gaussian processes for GPflow: fit, predict, evaluate on a table; the demo; the benchmark.",
        epilog="run 'gpflow-deep COMMAND --help' for each command's options and an example",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=OneLineErrorParser)
    for module in SUBCOMMANDS:
        module.register(commands, common)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run ``gpflow-deep`` with ``argv`` (the process's arguments by default); returns the exit code."""
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # reported by the subcommand, whose --help lists what it takes
            subcommand_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as finished:  # --help, or a usage error already reported in one line
        return int(finished.code or 0)
    configure_logging(args.verbose)
    with warnings.catch_warnings():
        if not args.verbose:
            warnings.simplefilter("ignore")
        try:
            return args.run(args) or 0
        except KeyboardInterrupt:
            sys.stderr.write("gpflow-deep: interrupted\n")
            return 130
        except Exception as error:  # every failure is one line; --verbose shows the traceback
            if args.verbose:
                raise
            sys.stderr.write(f"gpflow-deep {args.command}: error: {one_line(error)}\n")
            return 1


def one_line(error: Exception) -> str:
    """The first line of an error's message; the error's type too if it is not the user's mistake."""
    lines = str(error).strip().splitlines()
    message = lines[0] if lines else ""
    if isinstance(error, (CommandError, ValueError, OSError)):
        return message or type(error).__name__
    return f"{type(error).__name__}: {message} (run with --verbose for the traceback)"


def subcommand_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of ``gpflow-deep <command>``."""
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return commands.choices[command]


def configure_logging(verbose: bool) -> None:
    """Silence TensorFlow's and absl's Python loggers, or show them and this package's INFO logs."""
    level = logging.INFO if verbose else logging.ERROR
    logging.getLogger("tensorflow").setLevel(level)
    logging.getLogger("absl").setLevel(level)
    package = logging.getLogger("gpflow_deep")
    package.setLevel(logging.INFO if verbose else logging.WARNING)
    if not package.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        package.addHandler(handler)
