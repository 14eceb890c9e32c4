"""A one-line progress report for training loops: iteration, running objective, speed, time left."""

import sys
import time
from typing import Optional, TextIO


class Progress:
    """Reports ``iteration/total``, the running objective, the iterations per second since the
    previous report and the time left at the average speed since the first report (which leaves
    out the first step's tracing and compilation; the first report has no estimate).

    On a terminal the line is redrawn at most every ``interval`` seconds; elsewhere (logs, CI) a
    line is printed at every tenth of the run. The caller asks :meth:`due` and only then fetches
    the objective, so that no step waits on the device for a number nobody reads.
    """

    def __init__(self, total: int, start: int = 0, stream: Optional[TextIO] = None, interval: float = 0.5):
        self.total, self.start = total, start
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.interval = interval
        self._tenth = max(1, (total - start) // 10)
        self._last_time, self._last_iteration = time.perf_counter(), start
        self._first_report = None
        self._next = start + self._tenth

    def due(self, iteration: int) -> bool:
        """Whether a report is due after ``iteration`` (1-based)."""
        if iteration >= self.total:
            return True
        if self.interactive:
            return time.perf_counter() - self._last_time >= self.interval
        return iteration >= self._next

    def report(self, iteration: int, objective: float) -> None:
        """Write the line for ``iteration``; ``objective`` is the mean since the last report."""
        now = time.perf_counter()
        rate = (iteration - self._last_iteration) / max(now - self._last_time, 1e-9)
        left = ""
        if self._first_report is None:
            self._first_report = (now, iteration)
        elif iteration > self._first_report[1]:
            seconds = (now - self._first_report[0]) / (iteration - self._first_report[1]) * (self.total - iteration)
            left = f"  {time_left(seconds)}"
        end = "\r" if self.interactive else "\n"
        self.stream.write(f"iteration {iteration}/{self.total}  objective {objective:.6g}  {rate:.0f} it/s{left}{end}")
        self.stream.flush()
        self._last_time, self._last_iteration = now, iteration
        while self._next <= iteration:
            self._next += self._tenth

    def close(self) -> None:
        """End the line on a terminal."""
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()


def time_left(seconds: float) -> str:
    """``'42 s left'``, ``'7 min left'`` or ``'2.5 h left'``."""
    if seconds < 120:
        return f"{seconds:.0f} s left"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min left"
    return f"{seconds / 3600:.1f} h left"
