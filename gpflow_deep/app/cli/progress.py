"""A progress line for the command line's passes over the rows of a table."""

import sys
import time
from typing import Callable, Optional, TextIO

QUIET_SECONDS = 3.0  # off a terminal, a step that ends sooner than this writes no line


class RowProgress:
    """``label: 35%  350,000 rows  120,000 rows/s  6 s left``: redrawn on a terminal (at most
    every half second); elsewhere (logs) one line at every tenth, once the step has run for
    ``QUIET_SECONDS``. The fraction done is ``rows / total``, or ``fraction()`` when the total is
    not known (a CSV file's bytes read)."""

    def __init__(
        self,
        label: str,
        total: Optional[int] = None,
        fraction: Optional[Callable[[], float]] = None,
        stream: Optional[TextIO] = None,
    ):
        self.label, self.total, self.fraction = label, total, fraction
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.began = self._last = time.perf_counter()
        self._next_tenth = 0.1
        self._open = False

    def __call__(self, rows: int) -> None:
        """Report ``rows`` rows done."""
        now = time.perf_counter()
        done = rows / max(self.total, 1) if self.total is not None else self.fraction()
        if self.interactive:
            if now - self._last < 0.5 and done < 1:
                return
        elif done < self._next_tenth or now - self.began < QUIET_SECONDS:
            return
        self._last = now
        while self._next_tenth <= done:
            self._next_tenth += 0.1
        elapsed = now - self.began
        left = elapsed / done * (1 - done) if done > 0 else 0.0
        speed = rows / max(elapsed, 1e-9)
        from gpflow_deep.training.progress import time_left  # loads TensorFlow: not at --help

        line = f"{self.label}: {100 * done:3.0f}%  {rows:,} rows  {speed:,.0f} rows/s  {time_left(left)}"
        self.stream.write(f"\r{line} " if self.interactive else f"{line}\n")
        self._open = self.interactive
        self.stream.flush()

    def close(self) -> None:
        """End the line on a terminal."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
