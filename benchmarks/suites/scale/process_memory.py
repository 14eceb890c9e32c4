"""Run a command and measure its wall time and the peak resident memory of its whole process tree."""

import dataclasses
import os
import subprocess
import tempfile
import time
from typing import Dict, List, Optional


@dataclasses.dataclass
class Measured:
    """A finished command: exit code, everything it printed, seconds, peak tree RSS in MB."""

    returncode: int
    output: str
    seconds: float
    peak_mb: float


def _children() -> Dict[int, List[int]]:
    children: Dict[int, List[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    return children


def tree_rss_kb(pid: int) -> int:
    """Resident memory (kB) of ``pid`` and all its descendants now."""
    children, total, todo = _children(), 0, [pid]
    while todo:
        process = todo.pop()
        try:
            with open(f"/proc/{process}/status") as handle:
                total += next((int(line.split()[1]) for line in handle if line.startswith("VmRSS:")), 0)
        except OSError:
            pass
        todo += children.get(process, [])
    return total


def run_measured(command: List[str], env: Optional[Dict[str, str]] = None, interval: float = 0.5) -> Measured:
    """Run ``command`` to its end, polling its process tree's memory every ``interval`` seconds."""
    began = time.perf_counter()
    with open(os.devnull) as nothing, tempfile.TemporaryFile("w+") as output:
        process = subprocess.Popen(command, stdin=nothing, stdout=output, stderr=subprocess.STDOUT, env=env)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss_kb(process.pid))
            time.sleep(interval)
        output.seek(0)
        return Measured(process.returncode, output.read(), time.perf_counter() - began, peak / 1024)
