"""Result files: one JSON object per line, appended and flushed per finished run."""

import json
import os
import time
from typing import Dict, Iterable, List, Optional


def read_results(path: str) -> List[Dict]:
    """All records of a JSON-lines result file (none if it does not exist)."""
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def append_result(path: str, record: Dict) -> None:
    """Append one record and flush it to disk, so that an interrupted run loses at most the run in hand."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    record = dict(record, date=time.strftime("%Y-%m-%d %H:%M:%S"))
    with open(path, "a") as handle:
        handle.write(json.dumps(record) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def parse_splits(text: str) -> List[int]:
    """``'0-4'`` -> [0, 1, 2, 3, 4]; ``'0,3,7'`` -> [0, 3, 7]."""
    splits: List[int] = []
    try:
        for part in text.split(","):
            if "-" in part:
                low, high = part.split("-")
                splits.extend(range(int(low), int(high) + 1))
            elif part.strip():
                splits.append(int(part))
    except ValueError:
        raise ValueError(f"splits: expected numbers and ranges such as '0-4' or '0,3,7', got {text!r}") from None
    if not splits or min(splits) < 0:
        raise ValueError(f"splits: expected non-negative split numbers, got {text!r}")
    return splits


def matches(record: Dict, keys: Dict) -> bool:
    """Whether ``record`` has every key/value of ``keys``."""
    return all(record.get(key) == value for key, value in keys.items())


def first(records: Iterable[Dict], keys: Dict) -> Optional[Dict]:
    """The first record matching ``keys``, or None."""
    return next((record for record in records if matches(record, keys)), None)
