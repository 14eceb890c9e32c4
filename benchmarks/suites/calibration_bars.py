"""Issue 34's bars, set of ten by set of ten: for every builder's current defaults (no options, its
default learning rate, no held-out part) and the exact GP, on each data set with bars, each set of
ten fresh splits' mean test log-likelihood, worst split and mean 90% coverage, and which bars they
meet. The last two columns count the sets that meet every bar, and estimate the chance that ten
fresh splits drawn as these were meet every bar: the share of many sets of ten drawn without
replacement from all the complete sets' splits pooled that do. A set whose records are not all
there (fewer than its splits) is left blank and not counted. ``--variants`` adds a row for every
variant and older default run on a whole set (e.g. random features with ``--anneal 0.7``).

Examples::

    python -m benchmarks calibration_bars
    python -m benchmarks calibration_bars --sets 1000-1009 1010-1019
    python -m benchmarks calibration_bars --variants
"""

import argparse
import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from benchmarks.common import RESULTS_DIR
from benchmarks.suites.calibration_summary import BARS, coverage_within_band, grouped, log_likelihood_bars
from gpflow_deep.app.benchmark import parse_splits, read_results

FRESH_SETS = (
    "1000-1009",
    "1010-1019",
    "3000-3009",
    "3010-3019",
    "4000-4009",
    "4010-4019",
    "5000-5009",
    "6000-6009",
    "7000-7009",
    "7010-7019",
)
"""The sets of ten fresh splits that every builder has run on boston; concrete has 1000–1009,
3000–3009, 4000–4009, 5000–5009 and 7000–7009 (and 4010–4019 for random features)."""
RESULT_FILES = (
    "calibration.jsonl",
    "calibration_second_ten.jsonl",
    "calibration_third_set.jsonl",
    "calibration_fourth_set.jsonl",
    "calibration_fifth_set.jsonl",
    "calibration_sixth_set.jsonl",
    "calibration_seventh_set.jsonl",
)


RESAMPLED_SETS = 10_000
"""How many sets of ten :func:`chance_of_meeting_every_bar` draws."""


def bars_read(dataset: str, records: Sequence[Dict]) -> List[tuple]:
    """``[(bar, met)]``: issue 34's bars on a set's mean and worst test log-likelihood and its mean
    90% coverage."""
    scores = np.array([record["log_likelihood"] for record in records])
    return log_likelihood_bars(dataset, scores) + [("90%", coverage_within_band(records))]


def chance_of_meeting_every_bar(dataset: str, records: Sequence[Dict], draws: int = RESAMPLED_SETS) -> float:
    """The share of ``draws`` sets of ten records drawn without replacement from ``records`` (one
    per split) that meet every bar of :func:`bars_read`; the draws are seeded, so the share is the
    same on every call."""
    picks = np.argsort(np.random.default_rng(0).random((draws, len(records))), axis=1)[:, :10]  # no repeats in a row
    met = [all(met for _, met in bars_read(dataset, [records[i] for i in pick])) for pick in picks]
    return float(np.mean(met))


def set_cell(dataset: str, records: List[Dict]) -> Tuple[str, bool]:
    """``mean, worst (split), 90% coverage: the bars missed`` over one set's records, and whether
    it meets every bar."""
    scores = np.array([record["log_likelihood"] for record in records])
    worst = records[int(np.argmin(scores))]
    ninety = float(np.mean([record["coverage_90"] for record in records]))
    missed = [name for name, met in bars_read(dataset, records) if not met]
    verdict = "**" + ", ".join(missed) + " missed**" if missed else "all met"
    text = f"{scores.mean():.3f}, {worst['log_likelihood']:.3f} ({worst['split']}), {ninety:.2f}: {verdict}"
    return text.replace("-", "−"), not missed


def bars_table(records: Sequence[Dict], sets: Sequence[str], steps: int = 3000, variants: bool = False) -> str:
    """One row per builder (and with ``variants`` per variant) and data set, one column per set of
    splits (see the module's text)."""
    cells: Dict[tuple, Dict[str, Tuple[str, bool]]] = {}
    pooled: Dict[tuple, List[Dict]] = {}
    for span in sets:
        splits = parse_splits(span)
        for (label, dataset, likelihood, fraction), group in grouped(records, splits, steps).items():
            current = " " not in label and likelihood == "default"
            if (current or variants) and not fraction and dataset in BARS and len(group) == len(splits):
                cells.setdefault((dataset, label), {})[span] = set_cell(dataset, group)
                pooled.setdefault((dataset, label), []).extend(group)
    header = (
        "| builder | data set | "
        + " | ".join(sets)
        + " | sets meeting every bar | chance a set of ten meets every bar |"
    )
    header += "\n|---|---|" + "---|" * (len(sets) + 2)
    rows = []
    for (dataset, label), by_set in sorted(cells.items()):
        texts = " | ".join(by_set[span][0] if span in by_set else "" for span in sets)
        tally = f"{sum(met for _, met in by_set.values())} of {len(by_set)}"
        splits = pooled[(dataset, label)]
        chance = f"{chance_of_meeting_every_bar(dataset, splits):.2f} ({len(splits)} splits)"
        rows.append(f"| {label.removeprefix('build_')} | {dataset} | {texts} | {tally} | {chance} |")
    return "\n".join([header] + rows)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks calibration_bars",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    default_files = [os.path.join(RESULTS_DIR, name) for name in RESULT_FILES]
    parser.add_argument("--results", nargs="+", default=default_files)
    parser.add_argument("--sets", nargs="+", default=list(FRESH_SETS), help="sets of split seeds, e.g. 1000-1009")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--variants", action="store_true", help="a row for every variant and older default too")
    args = parser.parse_args(argv)
    records = [record for path in args.results for record in read_results(path)]
    print(bars_table(records, args.sets, args.steps, args.variants))
    return 0


if __name__ == "__main__":
    main()
