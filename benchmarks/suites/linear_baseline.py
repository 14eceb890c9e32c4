"""A check of the protocol itself: ordinary least squares with a Gaussian noise estimate on the
same 20 splits, standardisation and original units as every other run here. Its numbers should
match the "Linear" column of Salimbeni & Deisenroth (2017, Tables 7 and 8).

    python -m benchmarks linear_baseline
"""

import argparse
from typing import List, Optional

import numpy as np
from scipy.stats import norm

from gpflow_deep import datasets

PAPER = {"boston": "-2.89 (0.03) / 4.24 (0.16)", "concrete": "-3.78 (0.01) / 10.54 (0.13)"}


def main(argv: Optional[List[str]] = None) -> int:
    argparse.ArgumentParser(prog="python -m benchmarks linear_baseline", description=__doc__).parse_args(argv)
    print("| dataset | test log-lik (20 splits) | test RMSE | paper (log-lik / RMSE) |")
    print("|---|---|---|---|")
    for name in datasets.DATASETS:
        data = datasets.load(name)
        log_likelihoods, rmses = [], []
        for split in range(20):
            part = datasets.uci_split(data, split)
            design = np.c_[part.X_train, np.ones(len(part.X_train))]
            weights, *_ = np.linalg.lstsq(design, part.Y_train, rcond=None)
            noise = np.std(part.Y_train - design @ weights)
            prediction = np.c_[part.X_test, np.ones(len(part.X_test))] @ weights
            scale = part.y_std[0]
            log_likelihoods.append(np.mean(norm.logpdf(part.Y_test, prediction, noise)) - np.log(scale))
            rmses.append(np.sqrt(np.mean((prediction - part.Y_test) ** 2)) * scale)
        error = lambda v: np.std(v, ddof=1) / np.sqrt(len(v))  # noqa: E731
        print(
            f"| {name} | {np.mean(log_likelihoods):.2f} ({error(log_likelihoods):.2f}) | "
            f"{np.mean(rmses):.2f} ({error(rmses):.2f}) | {PAPER[name]} |"
        )
    return 0


if __name__ == "__main__":
    main()
