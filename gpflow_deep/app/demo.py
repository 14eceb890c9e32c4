"""The demo: train the package's models on bundled real data and print a comparison."""

import os
import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from gpflow_deep import datasets
from gpflow_deep.app.plots import predictions_plot
from gpflow_deep.builders import build_aep_dgp, build_deep_gp, build_random_feature_dgp, build_sod_dgp
from gpflow_deep.evaluation.scores import regression_scores
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.training import FitResult, fit
from gpflow_deep.training.model_selection import select_beta

Data = Tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class DemoModel:
    """A named way to build and train a model on standardised training data; ``steps`` is its
    length in the default run, sized so that every model trains in under half a minute on a
    2-core CPU."""

    name: str
    description: str
    train: Callable[[Data, int, int, str, bool], Tuple[DeepMixtureModel, FitResult]]
    steps: int


def _deep_gp(num_layers: int):
    def train(data: Data, iterations: int, seed: int, log_dir: str, progress: bool):
        model = build_deep_gp(*data, num_layers, seed=seed)
        return model, fit(
            model,
            data,
            iterations,
            seed=seed,
            log_dir=log_dir,
            monitor_every=max(1, iterations // 20),
            progress=progress,
        )

    return train


def _dspp(data: Data, iterations: int, seed: int, log_dir: str, progress: bool):
    """β = 1 with early stopping on a sixth of the training data held out (the paper's 15:3
    proportions): :func:`~gpflow_deep.select_beta` with one β."""
    selection = select_beta(
        *data,
        betas=(1.0,),
        iterations=iterations,
        seed=seed,
        builder_options=dict(num_inducing=100),
        log_dir=log_dir,
        progress=progress,
    )
    return selection.model, selection.fits[1.0]


def _sod_dgp(data: Data, iterations: int, seed: int, log_dir: str, progress: bool):
    """The paper's SoD-DGP with a k-means subset of 50 and 2 paths per step (10 in the paper) to
    keep the demo quick."""
    model = build_sod_dgp(*data, 2, 50, num_samples=2, seed=seed)
    return model, fit(
        model, data, iterations, seed=seed, log_dir=log_dir, monitor_every=max(1, iterations // 20), progress=progress
    )


def _random_feature_dgp(data: Data, iterations: int, seed: int, log_dir: str, progress: bool):
    """DGP-RBF in the paper's UCI setting: 1 hidden layer of 3, 100 features, batch 200,
    hyperparameters fixed for the first 3/5 of the iterations."""
    model = build_random_feature_dgp(*data, 2, seed=seed)
    return model, fit(
        model,
        data,
        iterations,
        batch_size=200,
        fixed_hyperparameters_for=iterations * 3 // 5,
        seed=seed,
        log_dir=log_dir,
        monitor_every=max(1, iterations // 20),
        progress=progress,
    )


def _aep_dgp(data: Data, iterations: int, seed: int, log_dir: str, progress: bool):
    """AEPDGP with M=50 inducing inputs, 5 cavity paths per step (20 in the public code) and the
    public code's minibatch of 100."""
    model = build_aep_dgp(*data, 2, num_inducing=50, num_samples=5, seed=seed)
    return model, fit(
        model,
        data,
        iterations,
        batch_size=100,
        seed=seed,
        log_dir=log_dir,
        monitor_every=max(1, iterations // 20),
        progress=progress,
    )


DEMO_MODELS: Dict[str, DemoModel] = {
    "sgp": DemoModel("sgp", "sparse variational GP (DeepGP, 1 layer)", _deep_gp(1), steps=1500),
    "dgp2": DemoModel("dgp2", "DeepGP, 2 layers (DSVI)", _deep_gp(2), steps=1200),
    "dgp3": DemoModel("dgp3", "DeepGP, 3 layers (DSVI)", _deep_gp(3), steps=1000),
    "dspp": DemoModel("dspp", "DSPP, 2 layers (early stopping)", _dspp, steps=1000),
    "rf": DemoModel("rf", "RandomFeatureDGP, 1 hidden layer (DGP-RBF)", _random_feature_dgp, steps=3000),
    "aep2": DemoModel("aep2", "AEPDGP, 2 layers (approximate EP)", _aep_dgp, steps=1000),
    "sod2": DemoModel("sod2", "SoD-DGP, 2 layers (subset of 50)", _sod_dgp, steps=1000),
}
DEFAULT_MODELS = ("sgp", "dgp2", "dspp", "rf", "aep2", "sod2")


def run_demo(
    dataset: str = "concrete",
    models: Sequence[str] = DEFAULT_MODELS,
    iterations: Optional[int] = None,
    split: int = 0,
    log_dir: Optional[str] = None,
    seed: int = 0,
    print_fn: Callable[[str], None] = print,
) -> List[Dict[str, object]]:
    """Train each model on one 90/10 split of ``dataset`` and print a table of test scores in
    original units: log-likelihood, RMSE, CRPS, coverage of the central 90% interval, training
    time and time per step.

    ``iterations`` per model defaults to each model's ``steps``. TensorBoard logs go to
    ``log_dir/<model>`` (a fresh folder under ``./gpflow_deep_logs`` by default) and a plot of
    the test predictions with their 90% intervals to ``log_dir/predictions.png``. Returns one row
    of results per model.
    """
    unknown = [name for name in models if name not in DEMO_MODELS]
    if unknown:
        raise ValueError(f"unknown demo models {unknown}; choose from {sorted(DEMO_MODELS)}")
    data = datasets.load(dataset)
    part = datasets.uci_split(data, split)
    log_dir = log_dir or os.path.join("gpflow_deep_logs", time.strftime("%Y%m%d-%H%M%S"))
    print_fn(
        f"{dataset}: {len(part.X_train)} training and {len(part.X_test)} test points, "
        f"{data.X.shape[1]} inputs; split {split}"
    )
    columns = ("log-lik", 8), ("RMSE", 7), ("CRPS", 7), ("90% cov", 8), ("steps", 6), ("train s", 8), ("ms/step", 8)
    print_fn(f"{'model':<46} " + " ".join(f"{name:>{width}}" for name, width in columns))
    rows, intervals = [], {}
    for name in models:
        spec = DEMO_MODELS[name]
        steps = iterations or spec.steps
        data = (part.X_train, part.Y_train)
        model, result = spec.train(data, steps, seed, os.path.join(log_dir, name), sys.stderr.isatty())
        scores = regression_scores(model, part.X_test, part.Y_test, part.y_mean, part.y_std, seed=seed)
        intervals[name] = {key: scores.pop(key) for key in ("mean", "lower", "upper", "y")}
        rows.append(
            dict(
                model=name,
                description=spec.description,
                seconds=result.seconds,
                seconds_per_iteration=result.seconds_per_iteration,
                iterations=result.iterations,
                **scores,
            )
        )
        print_fn(
            f"{spec.description:<46} {scores['log_likelihood']:8.3f} {scores['rmse']:7.3f} {scores['crps']:7.3f} "
            f"{100 * scores['coverage_90']:7.0f}% {result.iterations:6d} {result.seconds:8.1f} "
            f"{1000 * result.seconds_per_iteration:8.1f}"
        )
    plot = os.path.join(log_dir, "predictions.png")
    predictions_plot(plot, intervals, units=f"({dataset}, original units)")
    print_fn(f"TensorBoard logs: {os.path.abspath(log_dir)}  (view: tensorboard --logdir {log_dir})")
    print_fn(f"test predictions with 90% intervals: {os.path.abspath(plot)}")
    return rows
