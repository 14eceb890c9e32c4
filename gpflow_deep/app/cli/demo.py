"""``gpflow-deep demo``: the package's models on bundled real data, compared."""

import argparse

from gpflow_deep.app.cli.parsing import comma_separated, example_epilog, paragraph

FULL_ITERATIONS = 20_000


def register(commands, common: argparse.ArgumentParser) -> None:
    from gpflow_deep.registry import DEMO_RECIPES, default_demo_models

    parser = commands.add_parser(
        "demo",
        parents=[common],
        help="train the models on bundled real data and compare them",
        description=paragraph(
            "Train each model on one 90/10 split of a bundled UCI data set; print test log-likelihood, RMSE, "
            "CRPS, 90% interval coverage and training time; write TensorBoard logs and a plot of the "
            "test predictions. The default run takes under 3 minutes on a 2-core CPU."
        ),
        epilog=example_epilog("gpflow-deep demo", "gpflow-deep demo --models sgp,dgp2 --iterations 500"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default="concrete", choices=["concrete", "boston"])
    parser.add_argument(
        "--models",
        default=",".join(default_demo_models()),
        help=f"comma-separated, from: {', '.join(DEMO_RECIPES)} (default: %(default)s)",
    )
    parser.add_argument(
        "--iterations", type=int, default=None, help="training steps per model (default: each model's own, 1000-3000)"
    )
    parser.add_argument("--full", action="store_true", help=f"the papers' {FULL_ITERATIONS} steps per model (slow)")
    parser.add_argument("--split", type=int, default=0, help="the 90/10 split (its random seed)")
    parser.add_argument("--log-dir", default=None, help="output folder (default: a new one under ./gpflow_deep_logs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from gpflow_deep.app.demo import run_demo

    run_demo(
        dataset=args.dataset,
        models=comma_separated(args.models),
        iterations=FULL_ITERATIONS if args.full else args.iterations,
        split=args.split,
        log_dir=args.log_dir,
        seed=args.seed,
    )
    return 0
