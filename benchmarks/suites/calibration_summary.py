"""The tables of ``docs/benchmarks.md`` §12 from ``benchmarks/results/calibration.jsonl``: per
builder, data set, likelihood and calibration fraction, over the splits run, the mean test
log-likelihood (standard error), the worst split, the mean RMSE, the mean coverage of the central
50/80/90/95% intervals (and of the calibrated ones), the range of the 90% coverage, and issue 34's
bars; then the PIT histograms of the runs without calibration, summed over the splits, with their
χ² against flat; those runs split by split (test log-likelihood and 90% coverage); every variant
paired split by split with its builder's defaults of the same time; and every run without
calibration paired with the exact GP's on the same splits (and with the defaults of each
``--against`` builder). ``--results`` takes several files, read as one.

Examples::

    python -m benchmarks calibration_summary
    python -m benchmarks calibration_summary --splits 1000-1009 --steps 3000
    python -m benchmarks calibration_summary --results benchmarks/results/calibration.jsonl \
        benchmarks/results/calibration_second_ten.jsonl --splits 1000-1019 --against build_deep_gp
"""

import argparse
import json
import os
from collections import defaultdict
from typing import Dict, List, Optional, Sequence

import numpy as np

from benchmarks.common import RESULTS_DIR
from benchmarks.defaults_history import anneals_as_today, older_defaults
from benchmarks.suites.calibration import EXACT_GP, LINEAR
from gpflow_deep.app.benchmark import parse_splits, read_results

REFERENCE_NAMES = {EXACT_GP: "exact GP", LINEAR: "linear"}

LEVELS = (50, 80, 90, 95)
BARS = {"boston": (-2.45, -2.8), "concrete": (-3.15, -3.4)}
"""Issue 34's bars on the test log-likelihood of the defaults: (mean over splits, worst split)."""
COVERAGE_BAND = (0.87, 0.93)
"""Issue 34's band for the mean 90% coverage over splits."""


def grouped(records: Sequence[Dict], splits: Optional[Sequence[int]], steps: int) -> Dict[tuple, List[Dict]]:
    """Records keyed by (builder, data set, likelihood, calibration fraction), one per split (the
    latest), sorted by split; a variant's builder is named with its options, learning rate and
    annealed share (unless its model's default today); only ``splits`` (all if None) and runs of
    ``steps`` steps."""
    latest: Dict[tuple, Dict] = {}
    for record in records:
        if record["steps"] != steps or (splits is not None and record["split"] not in splits):
            continue
        likelihood = record.get("likelihood", "default")
        options = record.get("options")
        builder = record["builder"] + (" " + json.dumps(options, sort_keys=True) if options else "")
        if record.get("learning_rate") is not None:
            builder += f" at Adam {record['learning_rate']:g}"
        if record.get("anneal") is not None and not anneals_as_today(record):
            builder += f" with {float(record['anneal']):g} of Adam's step annealed"
        builder += _older_suffix(record)
        if record.get("validation_fraction"):
            builder += f" stopped on {record['validation_fraction']:g} held out, {record['steps']} steps at most"
        key = (builder, record["dataset"], likelihood, record["calibration_fraction"], record["split"])
        latest[key] = record
    groups: Dict[tuple, List[Dict]] = defaultdict(list)
    for key in sorted(latest, key=lambda k: (k[1], k[0], k[2], k[3], k[4])):
        groups[key[:4]].append(latest[key])
    return groups


def row(key: tuple, records: List[Dict]) -> str:
    """One markdown row: the group's figures over its splits."""
    builder, dataset, likelihood, fraction = key
    scores = np.array([record["log_likelihood"] for record in records])
    coverage = " / ".join(f"{np.mean([r[f'coverage_{level}'] for r in records]):.2f}" for level in LEVELS)
    if fraction:
        calibrated = [np.mean([r[f"calibrated_coverage_{level}"] for r in records]) for level in LEVELS]
        coverage += " (calibrated " + " / ".join(f"{value:.3f}" for value in calibrated) + ")"
    ninety = [record["coverage_90"] for record in records]
    splits = [record["split"] for record in records]
    return (
        f"| {builder.removeprefix('build_')} | {dataset} | {likelihood} | {fraction:g} | {len(records)} "
        f"({_span(splits)}) | {score_cells(records)} | {_mean_rmse(records)} | {coverage} "
        f"| {min(ninety):.2f}–{max(ninety):.2f} "
        f"| {_verdict(dataset, scores, records, fraction)} |"
    )


def score_cells(records: List[Dict]) -> str:
    """``mean (s.e.) | worst (split)`` of the records' test log-likelihoods (s.e. nan for one)."""
    scores = np.array([record["log_likelihood"] for record in records])
    worst = records[int(np.argmin(scores))]
    error = scores.std(ddof=1) / np.sqrt(len(scores)) if len(scores) > 1 else float("nan")
    return f"{scores.mean():.3f} ({error:.3f}) | {worst['log_likelihood']:.3f} ({worst['split']})"


def _mean_rmse(records: List[Dict]) -> str:
    """The records' mean test RMSE in original units; blank if a record has none."""
    errors = [record.get("rmse") for record in records]
    return "" if None in errors else f"{np.mean(errors):.2f}"


def _span(splits: List[int]) -> str:
    """Sorted split seeds as runs: "1000–1019, 3005"."""
    runs: List[List[int]] = []
    for split in splits:
        if runs and split == runs[-1][-1] + 1:
            runs[-1].append(split)
        else:
            runs.append([split])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)


def log_likelihood_bars(dataset: str, scores: np.ndarray) -> List[tuple]:
    """``[("mean", met), ("worst", met)]``: issue 34's bars on the test log-likelihoods ``scores``
    of a set of splits (none for a data set without bars)."""
    if dataset not in BARS:
        return []
    mean_bar, worst_bar = BARS[dataset]
    return [("mean", scores.mean() >= mean_bar), ("worst", scores.min() >= worst_bar)]


def coverage_within_band(records: List[Dict]) -> bool:
    """Whether the records' mean 90% coverage is within issue 34's band."""
    low, high = COVERAGE_BAND
    return bool(low <= np.mean([record["coverage_90"] for record in records]) <= high)


def _verdict(dataset: str, scores: np.ndarray, records: List[Dict], fraction: float) -> str:
    """Issue 34's bars: the log-likelihood's mean and worst split, and the mean 90% coverage, or for
    a calibrated run the mean calibrated coverage at every level (each within ±0.02 of it)."""
    parts = [f"{name} " + ("met" if met else "not met") for name, met in log_likelihood_bars(dataset, scores)]
    if fraction:
        outside = [
            f"{level}%"
            for level in LEVELS
            if abs(np.mean([record[f"calibrated_coverage_{level}"] for record in records]) - level / 100) > 0.02
        ]
        parts.append("calibrated " + (f"{', '.join(outside)} outside" if outside else "every level within") + " ±0.02")
    else:
        parts.append("90% " + ("within" if coverage_within_band(records) else "outside") + " 0.87–0.93")
    return ", ".join(parts)


def table(groups: Dict[tuple, List[Dict]]) -> str:
    header = (
        "| builder | data set | likelihood | held out | splits | test log-lik, mean (s.e.) | worst (split) "
        "| RMSE, mean | coverage 50 / 80 / 90 / 95% | 90%, range | issue 34's bars |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|"
    )
    return "\n".join([header] + [row(key, records) for key, records in groups.items()])


def _uncalibrated(groups: Dict[tuple, List[Dict]]) -> Dict[tuple, List[Dict]]:
    """The groups of runs without calibration (calibration fraction 0)."""
    return {key: records for key, records in groups.items() if not key[3]}


def pit_table(groups: Dict[tuple, List[Dict]]) -> str:
    """The PIT histograms of the runs without calibration, summed over each group's splits: the
    count of test targets whose F(y) falls in each tenth, beside the count each tenth expects and
    Pearson's χ² of the counts against it (9 degrees of freedom: a calibrated predictive exceeds
    16.9 one time in twenty, if the test targets are independent)."""
    header = (
        "| builder | data set | likelihood | splits | test points | targets per tenth of F(y), summed "
        "| expected per tenth | χ² (9 d.f.) |\n|---|---|---|---|---|---|---|---|"
    )
    rows = []
    for (builder, dataset, likelihood, _), records in _uncalibrated(groups).items():
        counts = np.sum([record["pit_histogram"] for record in records], axis=0)
        expected = counts.sum() / len(counts)
        chi_square = np.sum((counts - expected) ** 2) / expected
        rows.append(
            f"| {builder.removeprefix('build_')} | {dataset} | {likelihood} | {len(records)} | {counts.sum()} "
            f"| {', '.join(str(int(count)) for count in counts)} | {expected:.1f} | {chi_square:.1f} |"
        )
    return "\n".join([header] + rows)


def split_table(groups: Dict[tuple, List[Dict]]) -> str:
    """Every run without calibration, split by split: its test log-likelihood and, in brackets,
    its 90% coverage; one row per group, one column per split seed that any group ran."""
    plain = _uncalibrated(groups)
    seeds = sorted({record["split"] for records in plain.values() for record in records})
    header = "| builder | data set | likelihood | " + " | ".join(map(str, seeds)) + " |"
    rows = [header, "|---|---|---|" + "---|" * len(seeds)]
    for (builder, dataset, likelihood, _), records in plain.items():
        by_split = {record["split"]: record for record in records}
        cells = [
            f"{by_split[seed]['log_likelihood']:.2f} ({by_split[seed]['coverage_90']:.2f})" if seed in by_split else ""
            for seed in seeds
        ]
        rows.append(f"| {builder.removeprefix('build_')} | {dataset} | {likelihood} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _older_suffix(record: Dict) -> str:
    """What a label says of a record run with its builder's older defaults ("" for the current)."""
    older = older_defaults(record)
    return f" (older defaults: {older})" if older else ""


def _defaults_label(record: Dict) -> str:
    """The label :func:`grouped` gives the defaults of ``record``'s builder at ``record``'s time."""
    return record["builder"] + _older_suffix(record)


def _paired_cells(records: List[Dict], reference: Optional[List[Dict]]) -> Optional[str]:
    """``| splits in common | mean difference (s.e.) | higher on |`` of ``records`` minus ``reference``
    over the splits both ran; None without a reference other than ``records`` themselves, or below
    two splits in common."""
    if reference is None or reference is records:
        return None
    theirs = {record["split"]: record["log_likelihood"] for record in reference}
    differences = np.array([r["log_likelihood"] - theirs[r["split"]] for r in records if r["split"] in theirs])
    if len(differences) < 2:
        return None
    error = differences.std(ddof=1) / np.sqrt(len(differences))
    return (
        f"| {len(differences)} | {differences.mean():+.3f} ({error:.3f}) "
        f"| {int(np.sum(differences > 0))} of {len(differences)} |"
    )


def paired_table(groups: Dict[tuple, List[Dict]]) -> str:
    """Each variant (options, learning rate, likelihood, held-out stopping) beside its builder's
    defaults of the same time (older defaults beside older defaults), and older defaults beside the
    current ones, on the same data set and held-out fraction, over the splits both ran: the mean of
    the variant's test log-likelihood minus the defaults' (standard error), and on how many of those
    splits the variant is higher."""
    header = (
        "| variant | data set | held out | splits in common | test log-lik, variant − defaults (s.e.) "
        "| variant higher on |\n|---|---|---|---|---|---|"
    )
    rows = []
    for (label, dataset, likelihood, fraction), records in groups.items():
        defaults = _defaults_label(records[0])
        if label == defaults and likelihood == "default":  # older defaults: beside the current ones
            defaults = records[0]["builder"]
        cells = _paired_cells(records, groups.get((defaults, dataset, "default", fraction)))
        if cells is not None:
            name = label.removeprefix("build_") + ("" if likelihood == "default" else f", {likelihood} likelihood")
            rows.append(f"| {name} | {dataset} | {fraction:g} {cells}")
    return "\n".join([header] + rows)


def reference_table(groups: Dict[tuple, List[Dict]], reference: str = EXACT_GP) -> str:
    """Every run without calibration beside the ``reference``'s (the exact GP, least squares:
    ``linear``, or a builder's defaults, e.g. ``build_deep_gp``) on the same data set, over the
    splits both ran: the mean of its test log-likelihood minus the reference's (standard error),
    and on how many of those splits it is higher. Empty when the reference has no runs."""
    header = (
        f"| builder | data set | likelihood | splits in common | test log-lik, builder − {_reference_name(reference)} "
        "(s.e.) | builder higher on |\n|---|---|---|---|---|---|"
    )
    rows = []
    for (label, dataset, likelihood, _), records in _uncalibrated(groups).items():
        cells = _paired_cells(records, groups.get((reference, dataset, "default", 0.0)))
        if cells is not None:
            rows.append(f"| {label.removeprefix('build_')} | {dataset} | {likelihood} {cells}")
    return "\n".join([header] + rows) if rows else ""


def _reference_name(reference: str) -> str:
    """How a reference's column names it: "exact GP", "linear", or the builder without ``build_``."""
    return REFERENCE_NAMES.get(reference, reference.removeprefix("build_"))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks calibration_summary",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--results", nargs="+", default=[os.path.join(RESULTS_DIR, "calibration.jsonl")])
    parser.add_argument("--splits", default=None, help="only these split seeds, e.g. 1000-1009 (default: all)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument(
        "--against",
        nargs="+",
        default=[],
        metavar="BUILDER",
        help="also pair every run with these builders' defaults, e.g. build_deep_gp",
    )
    args = parser.parse_args(argv)
    splits = None if args.splits is None else parse_splits(args.splits)
    groups = grouped([record for path in args.results for record in read_results(path)], splits, args.steps)
    print(table(groups))
    print()
    print(pit_table(groups))
    print()
    print(split_table(groups))
    print()
    print(paired_table(groups))
    print()
    print(reference_table(groups))
    for reference in [LINEAR] + args.against:
        paired = reference_table(groups, reference)
        if paired:
            print()
            print(paired)
    return 0


if __name__ == "__main__":
    main()
