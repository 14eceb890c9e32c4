"""The ``gpflow-deep`` console command."""

import argparse
import os
import sys
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: ``gpflow-deep demo [options]``."""
    parser = argparse.ArgumentParser(prog="gpflow-deep", description="Deep Gaussian processes for GPflow.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="train the models on bundled real data and compare them")
    demo.add_argument("--dataset", default="concrete", choices=["concrete", "boston"])
    demo.add_argument("--models", default="sgp,dgp2,dspp", help="comma-separated: sgp, dgp2, dgp3, dspp")
    demo.add_argument("--iterations", type=int, default=3000)
    demo.add_argument("--split", type=int, default=0, help="the 90/10 split (its random seed)")
    demo.add_argument(
        "--log-dir", default=None, help="TensorBoard folder (default: a new one under ./gpflow_deep_logs)"
    )
    demo.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from .demo import run_demo  # after the environment is set: importing TensorFlow reads it

    run_demo(
        dataset=args.dataset,
        models=[name.strip() for name in args.models.split(",") if name.strip()],
        iterations=args.iterations,
        split=args.split,
        log_dir=args.log_dir,
        seed=args.seed,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
