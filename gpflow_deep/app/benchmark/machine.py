"""What a benchmark record says about where it ran: the CPU (and any GPU) and library versions."""

import os
import platform
from typing import Dict

VERSIONED = ("tensorflow", "gpflow", "gpflux", "tensorflow-probability", "torch", "gpytorch", "numpy")


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
        tf.config.experimental.get_device_details(device).get("device_name", device.name)
        for device in tf.config.list_physical_devices("GPU")
    ]
    return f"{cpu}, {os.cpu_count()} cores" + (f", GPU: {', '.join(gpus)}" if gpus else ", no GPU")


def versions() -> Dict[str, str]:
    """Versions of the installed libraries that matter for the numbers."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in VERSIONED:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found
