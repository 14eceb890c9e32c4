"""How often does a perfectly exchangeable split-conformal run land within ±band of nominal?

Issue 34 asks the calibrated option's coverage, averaged over 20 splits, to be within ±0.02 of each
nominal level. The calibration suite's splits have few rows (boston: 91 calibration rows and 51 test
rows per split with ``--calibration-fraction 0.2``), so the average moves by chance even when the
guarantee holds exactly. This simulates that chance: in each of ``--replications`` replications,
``--splits`` splits each draw ``--calibration-rows`` calibration and ``--test-rows`` test scores,
independent and uniform on [0, 1] (an exchangeable, continuous score: split-conformal's coverage
does not depend on its distribution), calibrate each level on the calibration scores as
:class:`~gpflow_deep.evaluation.conformal.ConformalLevels` does (the ⌈(n + 1) p⌉-th smallest), and
count the test scores at or below it. Printed per level: the expected coverage k/(n + 1), the
standard deviation of one split's coverage and of the average over the splits, and the fraction of
replications whose average is within ±band; then the fraction within at every level at once.

Example::

    python -m benchmarks conformal_band --calibration-rows 91 --test-rows 51 --splits 20
"""

import argparse
from typing import Dict, List, Optional, Sequence

import numpy as np

from benchmarks.common import provenance
from gpflow_deep.evaluation.conformal import ConformalLevels

LEVELS = (0.5, 0.8, 0.9, 0.95)
BATCH = 500
"""Replications simulated at once (memory: BATCH × splits × rows scores)."""


def thresholds(calibration: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """``[..., K]``: the calibrated score s* of each level from scores ``[..., n]``, the ⌈(n + 1) p⌉-th
    smallest (inf when that rank exceeds n: every new score is at or below it)."""
    n = calibration.shape[-1]
    ranks = [_rank(n, level) for level in levels]
    ordered = np.sort(calibration, axis=-1)
    return np.stack([ordered[..., k - 1] if k <= n else np.full(ordered.shape[:-1], np.inf) for k in ranks], axis=-1)


def _rank(num_rows: int, level: float) -> int:
    """⌈(n + 1) p⌉, as :meth:`ConformalLevels.rank` computes it."""
    return ConformalLevels(np.zeros(num_rows)).rank(level)


def simulate(
    calibration_rows: int,
    test_rows: int,
    splits: int,
    replications: int,
    band: float,
    levels: Sequence[float] = LEVELS,
    seed: int = 0,
) -> Dict[str, object]:
    """The chance figures of the module's docstring, for uniform scores."""
    rng = np.random.default_rng(seed)
    averages = []  # [replications, K]: coverage averaged over the splits
    per_split = []  # [replications × splits, K]
    for start in range(0, replications, BATCH):
        size = min(BATCH, replications - start)
        limits = thresholds(rng.uniform(size=(size, splits, calibration_rows)), levels)  # [size, splits, K]
        test = rng.uniform(size=(size, splits, test_rows, 1))
        coverage = np.mean(test <= limits[:, :, None, :], axis=2)  # [size, splits, K]
        per_split.append(coverage.reshape(-1, len(levels)))
        averages.append(coverage.mean(axis=1))
    averages, per_split = np.concatenate(averages), np.concatenate(per_split)
    within = np.abs(averages - np.asarray(levels)) <= band
    return dict(
        levels=list(levels),
        expected=[_rank(calibration_rows, level) / (calibration_rows + 1) for level in levels],
        mean=averages.mean(axis=0).tolist(),
        split_std=per_split.std(axis=0).tolist(),
        average_std=averages.std(axis=0).tolist(),
        within=within.mean(axis=0).tolist(),
        within_all=float(np.mean(np.all(within, axis=1))),
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks conformal_band",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--calibration-rows", type=int, default=91)
    parser.add_argument("--test-rows", type=int, default=51)
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--replications", type=int, default=20000)
    parser.add_argument("--band", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", default=None, help="a JSON-lines file to append the record to")
    args = parser.parse_args(argv)
    for name in ("calibration_rows", "test_rows", "splits", "replications"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    figures = simulate(args.calibration_rows, args.test_rows, args.splits, args.replications, args.band, seed=args.seed)
    print(
        f"{args.splits} splits of {args.calibration_rows} calibration and {args.test_rows} test rows, "
        f"{args.replications} replications:"
    )
    print("level  expected  mean    s.d. (split)  s.d. (average)  within ±band")
    for i, level in enumerate(figures["levels"]):
        print(
            f"{level:5.2f}  {figures['expected'][i]:.4f}    {figures['mean'][i]:.4f}  {figures['split_std'][i]:.4f}"
            f"        {figures['average_std'][i]:.4f}          {figures['within'][i]:.3f}"
        )
    print(f"every level within ±{args.band:g}: {figures['within_all']:.3f}")
    if args.results:
        from gpflow_deep.app.benchmark import append_result

        record = dict(kind="conformal_band", **{k: v for k, v in vars(args).items() if k != "results"}, **figures)
        append_result(args.results, dict(record, **provenance()))
    return 0


if __name__ == "__main__":
    main()
