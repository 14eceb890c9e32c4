"""Shared pieces of the benchmark scripts: result files, machine description, timing."""

import json
import os
import platform
import statistics
import time
from typing import Callable, Dict, Iterable, List

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine() -> str:
    """A one-line description of this machine (CPU model, cores, and any GPU TensorFlow sees)."""
    import tensorflow as tf

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    gpus = [
        tf.config.experimental.get_device_details(d).get("device_name", d.name)
        for d in tf.config.list_physical_devices("GPU")
    ]
    return f"{cpu}, {os.cpu_count()} cores" + (f", GPU: {', '.join(gpus)}" if gpus else ", no GPU")


def versions() -> Dict[str, str]:
    """Versions of the libraries that matter for the numbers."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("tensorflow", "gpflow", "gpflux", "tensorflow-probability", "torch", "gpytorch", "numpy"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def read_results(path: str) -> List[Dict]:
    """All records of a JSON-lines result file (none if it does not exist)."""
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def append_result(path: str, record: Dict) -> None:
    """Append one record and flush it, so that an interrupted run loses at most the split in hand."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    record = dict(record, date=time.strftime("%Y-%m-%d %H:%M:%S"))
    with open(path, "a") as handle:
        handle.write(json.dumps(record) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def parse_splits(text: str) -> List[int]:
    """'0-4' -> [0, 1, 2, 3, 4]; '0,3,7' -> [0, 3, 7]."""
    splits: List[int] = []
    for part in text.split(","):
        if "-" in part:
            low, high = part.split("-")
            splits.extend(range(int(low), int(high) + 1))
        elif part:
            splits.append(int(part))
    return splits


def matches(record: Dict, keys: Dict) -> bool:
    """Whether ``record`` has every key/value of ``keys``."""
    return all(record.get(key) == value for key, value in keys.items())


def first(records: Iterable[Dict], keys: Dict):
    """The first record matching ``keys``, or None."""
    return next((r for r in records if matches(r, keys)), None)


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``function()`` over ``repeats`` calls, after one untimed (tracing) call."""
    function()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def compiled_adam_step(model, data) -> Callable[[], object]:
    """One full-batch Adam step (learning rate 0.01) on ``model.training_loss`` at ``data``, as one
    ``tf.function``: the plain GPflow training step, for timing any model."""
    import tensorflow as tf
    from gpflow.keras import tf_keras

    optimizer = tf_keras.optimizers.Adam(0.01)
    loss = model.training_loss_closure(data, compile=False)
    return tf.function(lambda: optimizer.minimize(loss, model.trainable_variables))
