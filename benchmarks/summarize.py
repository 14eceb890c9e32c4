"""Tables of mean (standard error) over splits from the JSON-lines results of the runners.

python benchmarks/summarize.py benchmarks/results/uci.jsonl
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gpflow_deep.app.benchmark import read_results, summary_table  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    print(summary_table(record for path in args.results for record in read_results(path)))


if __name__ == "__main__":
    main()
