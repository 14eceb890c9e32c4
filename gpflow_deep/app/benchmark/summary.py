"""Markdown tables of mean (standard error) over splits, from result records."""

from collections import defaultdict
from typing import Dict, Iterable

import numpy as np

GROUP = ("dataset", "model", "implementation", "iterations", "batch_size", "beta", "float_type")
COLUMNS = (
    "dataset",
    "model",
    "implementation",
    "iterations",
    "batch",
    "float",
    "β",
    "splits",
    "test log-lik",
    "test RMSE",
    "test CRPS",
    "train s/split",
)


def mean_and_error(values: Iterable[float]) -> str:
    """``mean (standard error)`` to two decimals; the error is ``nan`` for one value."""
    values = np.asarray(list(values), dtype=float)
    error = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{values.mean():.2f} ({error:.2f})"


def summary_table(records: Iterable[Dict]) -> str:
    """One row per setting (data set, model, implementation, iterations, batch, β, float type:
    float64 unless a record says otherwise) with the number of splits, the test scores as mean
    (standard error) and the mean training time per split. A split run again counts once, with its
    latest record. Records without a test log-likelihood (speed runs) are skipped; DSPP's β is
    chosen per split, so its row lists the choices instead of grouping by them."""
    groups: Dict[tuple, Dict[int, Dict]] = defaultdict(dict)
    for record in records:
        if "test_log_likelihood" not in record:
            continue
        key = tuple(record.get(name) for name in GROUP)
        if record["model"] == "dspp2":
            key = key[:-2] + (None,) + key[-1:]
        groups[key][record["split"]] = record
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for key in sorted(groups, key=lambda k: tuple(str(v) for v in k)):
        runs = [groups[key][split] for split in sorted(groups[key])]
        dataset, model, implementation, iterations, batch, beta, float_type = key
        if model == "dspp2":
            beta = "chosen: " + ", ".join(str(r.get("beta")) for r in runs)
        crps = [r.get("test_crps") for r in runs]
        cells = (
            dataset,
            model,
            implementation,
            iterations,
            batch,
            float_type or "float64",
            "" if beta is None else beta,
            f"{len(runs)} ({runs[0]['split']}–{runs[-1]['split']})",
            mean_and_error(r["test_log_likelihood"] for r in runs),
            mean_and_error(r["test_rmse"] for r in runs),
            mean_and_error(crps) if None not in crps else "–",
            f"{np.mean([r['train_seconds'] for r in runs]):.0f}",
        )
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return "\n".join(lines)
