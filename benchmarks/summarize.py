"""Tables of mean (standard error) over splits from the JSON-lines results of the accuracy runs.

python -m benchmarks summarize benchmarks/results/uci.jsonl
"""

import argparse
from typing import List, Optional

from gpflow_deep.app.benchmark import read_results, summary_table


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks summarize", description=__doc__)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args(argv)
    print(summary_table(record for path in args.results for record in read_results(path)))
    return 0


if __name__ == "__main__":
    main()
