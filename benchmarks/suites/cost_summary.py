"""Issue 35's table over several runs of ``python -m benchmarks cost_table``: for each row, the
ratio (or share of the matmul peak) of every run whose label starts with ``--label``, their
median, and whether the median meets the row's goal. Example::

    python -m benchmarks cost_summary --label "one-thread run"
"""

import argparse
import os
import re
import statistics
from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

from benchmarks.common import RESULTS_DIR
from gpflow_deep.app.benchmark import read_results


def figures(record: Dict) -> List[Tuple[str, float, str, List[float]]]:
    """``[(figure, value, goal, ms)]`` of one cost-table record: its ratio with the milliseconds of
    its two sides, or one share of the peak per precision with that precision's milliseconds (and,
    when recorded, the share with only the triangles of q_sqrt counted)."""
    if "share" in record:
        goals = dict(re.findall(r"(float\d+) (>= [\d.]+)", record["goal"]))
        shares = [(f"{record['figure']}, {name}", name, value) for name, value in record["share"].items()]
        shares += [
            (f"{record['figure']}, {name}, triangles counted", name, value)
            for name, value in record.get("share_of_needed", {}).items()
        ]
        return [(figure, value, goals[name], [record["ms"][name]]) for figure, name, value in shares]
    if "ratio" not in record:
        return []
    return [(record["figure"], record["ratio"], record["goal"], list(record["ms"].values()))]


def meets(value: float, goal: str) -> bool:
    """Whether ``value`` meets a goal written ``"<= x"`` or ``">= x"``."""
    sign, bound = goal.split()
    return value <= float(bound) if sign == "<=" else value >= float(bound)


Runs = Dict[str, Tuple[float, List[float]]]
"""Each run's (value, milliseconds of each side), by label."""


def collected(records: Sequence[Dict], label: str) -> Dict[Tuple[str, str, str], Runs]:
    """``{(figure, setting, goal): {run label: (value, ms)}}`` over the records whose label starts
    with ``label`` (a run's later record of a row replaces its earlier one)."""
    table: Dict[Tuple[str, str, str], Runs] = defaultdict(dict)
    for record in records:
        if record.get("kind") == "cost_table" and record.get("label", "").startswith(label):
            for figure, value, goal, ms in figures(record):
                table[(figure, record["setting"], goal)][record["label"]] = (value, ms)
    return table


def markdown(table: Dict[Tuple[str, str, str], Runs]) -> str:
    """One markdown row per figure, in the order the records first name them: the runs' values,
    their median, the median milliseconds of each side over the runs, and the verdict."""
    lines = ["| figure | setting | runs | median | ms per step (medians) | goal | met |"]
    lines.append("|---|---|---|---|---|---|---|")
    for (figure, setting, goal), runs in table.items():
        values = [runs[label][0] for label in sorted(runs)]
        median = statistics.median(values)
        sides = zip(*(runs[label][1] for label in sorted(runs)))
        ms = " vs ".join(f"{statistics.median(side):.1f}" for side in sides)
        shown = ", ".join(f"{value:.2f}" for value in values)
        verdict = "yes" if meets(median, goal) else "no"
        lines.append(f"| {figure} | {setting} | {shown} | {median:.2f} | {ms} | {goal} | {verdict} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks cost_summary",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--label", required=True, help="the runs' labels begin with this")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "cost_table.jsonl"))
    args = parser.parse_args(argv)
    table = collected(read_results(args.results), args.label)
    if not table:
        print(f"no cost_table records labelled {args.label!r}... in {args.results}")
        return 1
    print(markdown(table))
    return 0
