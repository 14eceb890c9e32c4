"""A one-line progress report for training loops: iteration, running objective, speed, time left."""

import sys
import time
from typing import Optional, TextIO


class Progress:
    """Reports ``iteration/total`` (``total`` None: a run that ends with its ``time_budget``), the
    running objective, the iterations (and, given ``rows_per_step``, rows) per second since the
    previous report and the time left: at the average speed since the first report (which leaves
    out the first step's tracing and compilation; the first report has no estimate), or what
    remains of ``time_budget`` seconds if that is sooner.

    On a terminal the line is redrawn at most every ``interval`` seconds; elsewhere (logs, CI) a
    line is printed at every tenth of the run (of the time budget, if it ends the run sooner). The
    caller asks :meth:`due` and only then fetches the objective, so that no step waits on the device
    for a number nobody reads.
    """

    def __init__(
        self,
        total: Optional[int],
        start: int = 0,
        stream: Optional[TextIO] = None,
        interval: float = 0.5,
        rows_per_step: Optional[int] = None,
        time_budget: Optional[float] = None,
    ):
        self.total, self.start = total, start
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self.interval = interval
        self.rows_per_step, self.time_budget = rows_per_step, time_budget
        self._began = time.perf_counter()
        self._tenth = max(1, (total - start) // 10) if total is not None else None
        self._last_time, self._last_iteration = self._began, start
        self._first_report = None
        self._next = start + self._tenth if total is not None else float("inf")
        self._next_time = self._began + (time_budget or float("inf")) / 10

    def due(self, iteration: int) -> bool:
        """Whether a report is due after ``iteration`` (1-based)."""
        if self.total is not None and iteration >= self.total:
            return True
        now = time.perf_counter()
        if self.interactive:
            return now - self._last_time >= self.interval
        return iteration >= self._next or now >= self._next_time

    def report(self, iteration: int, objective: float) -> None:
        """Write the line for ``iteration``; ``objective`` is the mean since the last report."""
        now = time.perf_counter()
        rate = (iteration - self._last_iteration) / max(now - self._last_time, 1e-9)
        speed = f"{rate:.0f} it/s" if rate >= 10 else f"{rate:.2g} it/s"
        if self.rows_per_step:
            speed += f"  {rate * self.rows_per_step:,.0f} rows/s"
        seconds = None
        if self._first_report is None:
            self._first_report = (now, iteration)
        elif iteration > self._first_report[1] and self.total is not None:
            seconds = (now - self._first_report[0]) / (iteration - self._first_report[1]) * (self.total - iteration)
        if self.time_budget is not None:
            seconds = min(seconds if seconds is not None else float("inf"), self.time_budget - (now - self._began))
        left = f"  {time_left(max(seconds, 0.0))}" if seconds is not None else ""
        end = "\r" if self.interactive else "\n"
        of_total = f"/{self.total}" if self.total is not None else ""
        self.stream.write(f"iteration {iteration}{of_total}  objective {objective:.6g}  {speed}{left}{end}")
        self.stream.flush()
        self._last_time, self._last_iteration = now, iteration
        while self._next <= iteration:
            self._next += self._tenth
        while self._next_time <= now:
            self._next_time += (self.time_budget or float("inf")) / 10

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
