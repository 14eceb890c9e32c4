"""The ``gpflow-deep`` console script (``main``); the commands themselves are in :mod:`.main`.

TensorFlow's native libraries write start-up messages (CUDA probing, CPU features) to the process's
standard error as soon as they load, before any setting made after ``import tensorflow`` can stop
them. So, unless ``--verbose`` is given, this launcher sets ``TF_CPP_MIN_LOG_LEVEL`` and points
file descriptor 2 at ``/dev/null`` *before* importing the package, while Python's ``sys.stderr``
keeps writing to the real standard error: the command's own messages and progress still show.
"""

import os
import sys


def main() -> int:
    """Run ``gpflow-deep`` with the process's arguments, TensorFlow's native messages silenced unless ``--verbose``."""
    if not {"-v", "--verbose"} & set(sys.argv[1:]):
        silence_native_stderr()
    from gpflow_deep.app.cli.main import main as run

    return run()


def silence_native_stderr() -> None:
    """Send what native code writes to fd 2 to ``/dev/null``; keep ``sys.stderr`` on the terminal."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        sys.stderr.flush()
        terminal = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
    except OSError:
        return
    sys.stderr = os.fdopen(terminal, "w", buffering=1, encoding=sys.stderr.encoding, errors="backslashreplace")
