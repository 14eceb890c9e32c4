"""The demo: train the package's models on bundled real data and print a comparison."""

import os
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import datasets, metrics
from .builders import build_deep_gp
from .model_selection import select_beta
from .models import DeepMixtureModel
from .training import FitResult, fit

Data = Tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class DemoModel:
    """A named way to build and train a model on standardised training data."""

    name: str
    description: str
    train: Callable[[Data, int, int, str], Tuple[DeepMixtureModel, FitResult]]


def _deep_gp(num_layers: int):
    def train(data: Data, iterations: int, seed: int, log_dir: str):
        model = build_deep_gp(*data, num_layers, seed=seed)
        return model, fit(
            model, data, iterations, seed=seed, log_dir=log_dir, monitor_every=max(1, iterations // 20), progress=False
        )

    return train


def _dspp(data: Data, iterations: int, seed: int, log_dir: str):
    """β = 1 with early stopping on a sixth of the training data held out (the paper's 15:3
    proportions): :func:`~gpflow_deep.select_beta` with one β."""
    selection = select_beta(
        *data,
        betas=(1.0,),
        iterations=iterations,
        seed=seed,
        builder_options=dict(num_inducing=100),
        log_dir=log_dir,
        progress=False,
    )
    return selection.model, selection.fits[1.0]


DEMO_MODELS: Dict[str, DemoModel] = {
    "sgp": DemoModel("sgp", "sparse variational GP (DeepGP, 1 layer)", _deep_gp(1)),
    "dgp2": DemoModel("dgp2", "DeepGP, 2 layers (DSVI)", _deep_gp(2)),
    "dgp3": DemoModel("dgp3", "DeepGP, 3 layers (DSVI)", _deep_gp(3)),
    "dspp": DemoModel("dspp", "DSPP, 2 layers (early stopping)", _dspp),
}
DEFAULT_MODELS = ("sgp", "dgp2", "dspp")


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
        f"{data.X.shape[1]} inputs; split {split}; up to {iterations} Adam iterations (lr 0.01, full batch)"
    )
    rows = []
    for name in models:
        spec = DEMO_MODELS[name]
        model, result = spec.train((part.X_train, part.Y_train), iterations, seed, os.path.join(log_dir, name))
        scores = metrics.evaluate(model, part.X_test, part.Y_test, part.y_std)
        rows.append(
            dict(
                model=name, description=spec.description, seconds=result.seconds, iterations=result.iterations, **scores
            )
        )
        print_fn(
            f"  {spec.description:<40} test log-lik {scores['log_likelihood']:7.3f}  RMSE {scores['rmse']:6.3f}  "
            f"train {result.seconds:5.1f} s ({result.iterations} iterations, "
            f"{1000 * result.seconds_per_iteration:.1f} ms each)"
        )
    print_fn(f"TensorBoard logs: {os.path.abspath(log_dir)}  (view: tensorboard --logdir {log_dir})")
    return rows
