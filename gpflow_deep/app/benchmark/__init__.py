"""The papers' UCI regression protocol as a library: runs, resumable result files, summaries.

``gpflow-deep benchmark`` and ``python -m benchmarks accuracy`` both run it.
"""

from gpflow_deep.app.benchmark.protocol import PROTOCOL_MODELS, run_keys, run_split
from gpflow_deep.app.benchmark.results import append_result, first, parse_splits, read_results
from gpflow_deep.app.benchmark.summary import summary_table

__all__ = [
    "PROTOCOL_MODELS",
    "append_result",
    "first",
    "parse_splits",
    "read_results",
    "run_keys",
    "run_split",
    "summary_table",
]
