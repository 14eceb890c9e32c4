"""The demo: train the package's models on bundled real data and print a comparison."""
import os
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from . import datasets, metrics
from .builders import build_deep_gp
from .training import fit


@dataclass(frozen=True)
class DemoModel:
    """A named way to build a model from standardised training data."""

    name: str
    description: str
    build: Callable[[np.ndarray, np.ndarray], object]


DEMO_MODELS: Dict[str, DemoModel] = {
    "sgp": DemoModel("sgp", "sparse variational GP (DeepGP, 1 layer)", lambda X, Y: build_deep_gp(X, Y, 1)),
    "dgp2": DemoModel("dgp2", "DeepGP, 2 layers (DSVI)", lambda X, Y: build_deep_gp(X, Y, 2)),
    "dgp3": DemoModel("dgp3", "DeepGP, 3 layers (DSVI)", lambda X, Y: build_deep_gp(X, Y, 3)),
}
DEFAULT_MODELS = ("sgp", "dgp2")


def run_demo(
    dataset: str = "concrete",
    models: Sequence[str] = DEFAULT_MODELS,
    iterations: int = 3000,
    split: int = 0,
    log_dir: Optional[str] = None,
    seed: int = 0,
    print_fn: Callable[[str], None] = print,
) -> List[Dict[str, object]]:
    """Train each model on one 90/10 split of ``dataset`` and print test scores in original units.

    TensorBoard logs go to ``log_dir/<model>`` (a fresh folder under ``./gpflow_deep_logs`` by
    default). Returns one row of results per model.
    """
    unknown = [name for name in models if name not in DEMO_MODELS]
    if unknown:
        raise ValueError(f"unknown demo models {unknown}; choose from {sorted(DEMO_MODELS)}")
    data = datasets.load(dataset)
    part = datasets.uci_split(data, split)
    log_dir = log_dir or os.path.join("gpflow_deep_logs", time.strftime("%Y%m%d-%H%M%S"))
    print_fn(
        f"{dataset}: {len(part.X_train)} training and {len(part.X_test)} test points, "
        f"{data.X.shape[1]} inputs; split {split}; {iterations} Adam iterations (lr 0.01, full batch)"
    )
    rows = []
    for name in models:
        spec = DEMO_MODELS[name]
        model = spec.build(part.X_train, part.Y_train)
        result = fit(
            model,
            (part.X_train, part.Y_train),
            iterations,
            seed=seed,
            log_dir=os.path.join(log_dir, name),
            validation_data=(part.X_test, part.Y_test),
            monitor_every=max(1, iterations // 20),
            progress=False,
        )
        scores = metrics.evaluate(model, part.X_test, part.Y_test, part.y_std, seed=seed)
        rows.append(dict(model=name, description=spec.description, seconds=result.seconds, **scores))
        print_fn(
            f"  {spec.description:<40} test log-lik {scores['log_likelihood']:7.3f}  "
            f"RMSE {scores['rmse']:6.3f}  train {result.seconds:5.1f} s "
            f"({1000 * result.seconds_per_iteration:.1f} ms/iteration)"
        )
    print_fn(f"TensorBoard logs: {os.path.abspath(log_dir)}  (view: tensorboard --logdir {log_dir})")
    return rows
