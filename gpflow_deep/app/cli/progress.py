"""A progress bar for the command line's loops over chunks of rows."""

import sys
import time
from typing import Optional, TextIO

from gpflow_deep.training.progress import time_left


class RowProgress:
    """``label: done/total rows, N s left``, redrawn on a terminal, silent elsewhere."""

    def __init__(self, label: str, total: int, stream: Optional[TextIO] = None):
        self.label, self.total = label, total
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.began = time.perf_counter()

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.began
        left = elapsed / max(done, 1) * (self.total - done)
        width = 30
        filled = int(width * done / max(self.total, 1))
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} rows, {time_left(left)} ")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
