"""Tables of mean (standard error) over splits from the JSON-lines results of the runners.

python benchmarks/summarize.py benchmarks/results/uci.jsonl
"""

import argparse
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.common import read_results  # noqa: E402

GROUP = ("dataset", "model", "implementation", "iterations", "batch_size")


def mean_and_error(values):
    values = np.asarray(values, dtype=float)
    error = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{values.mean():.2f} ({error:.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    groups = defaultdict(list)
    for path in args.results:
        for record in read_results(path):
            groups[tuple(record.get(key) for key in GROUP)].append(record)
    print("| dataset | model | implementation | iterations | splits | test log-lik | test RMSE | train s/split |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(groups, key=lambda k: tuple(str(v) for v in k)):
        records = sorted(groups[key], key=lambda r: r["split"])
        dataset, model, implementation, iterations, _ = key
        print(
            f"| {dataset} | {model} | {implementation} | {iterations} | "
            f"{len(records)} ({records[0]['split']}–{records[-1]['split']}) | "
            f"{mean_and_error([r['test_log_likelihood'] for r in records])} | "
            f"{mean_and_error([r['test_rmse'] for r in records])} | "
            f"{np.mean([r['train_seconds'] for r in records]):.0f} |"
        )


if __name__ == "__main__":
    main()
