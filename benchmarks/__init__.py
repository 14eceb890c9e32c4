"""The benchmarks of ``docs/benchmarks.md``: ``python -m benchmarks <entry> [options]`` from the
repository's root (``python -m benchmarks`` lists the entries)."""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # before any entry imports TensorFlow
