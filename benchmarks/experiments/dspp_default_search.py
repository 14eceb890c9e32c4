"""Candidate DSPP defaults against the small-data collapse: the held-out log-density along training.

Either the 50-point 1-D problem of ``tests/unit/builders/test_safe_defaults.py`` (standardised units, y = sin 2x
+ noise of sd 0.1) or a UCI split (original units), full-batch Adam at 0.01 through ``fit``, the
held-out score every tenth of the run. Builder options go in as JSON; ``"fixed_sigma_points":
true`` freezes the sigma points and weights. Examples::

    python -m benchmarks dspp_default_search --options '{"beta": 10.0}' --iterations 3000
    python -m benchmarks dspp_default_search --dataset boston --options '{"beta": 10.0}' --iterations 3000
"""

import argparse
import json
from typing import List, Optional

import gpflow
import numpy as np

import gpflow_deep as gd
from benchmarks.experiments.safe_defaults import fifty_points


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks dspp_default_search",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default="fifty-points", choices=["fifty-points", *gd.datasets.DATASETS])
    parser.add_argument("--split", type=int, default=0)
    parser.add_argument("--options", default="{}", help="build_dspp options as JSON")
    parser.add_argument("--iterations", type=int, default=500)
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    fixed = options.pop("fixed_sigma_points", False)
    if args.dataset == "fifty-points":
        X, Y, Xt, Yt, y_std = fifty_points()
    else:
        part = gd.datasets.uci_split(gd.datasets.load(args.dataset), args.split)
        X, Y, Xt, Yt, y_std = part.X_train, part.Y_train, part.X_test, part.Y_test, float(part.y_std[0])
    model = gd.build_dspp(X, Y, **options)
    if fixed:
        for parameter in [*model.sigma_points, model.weight_logits]:
            gpflow.set_trainable(parameter, False)
    result = gd.fit(
        model, (X, Y), args.iterations, validation_data=(Xt, Yt), monitor_every=args.iterations // 10, progress=False
    )
    trajectory = [round(score - np.log(y_std), 2) for _, score in result.validation]
    train = float(np.mean(model.predict_log_density((X, Y)))) - np.log(y_std)
    print(json.dumps(dict(dataset=args.dataset, options=args.options, held_out=trajectory, train=round(train, 2))))
    return 0


if __name__ == "__main__":
    main()
