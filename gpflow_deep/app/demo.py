"""The demo: train the package's models on bundled real data and print a comparison."""

import os
import sys
import time
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from gpflow_deep import datasets
from gpflow_deep.app.plots import predictions_plot
from gpflow_deep.evaluation.scores import regression_scores
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.registry import DEMO_RECIPES, Recipe, builder_named, default_demo_models
from gpflow_deep.training import FitResult, fit
from gpflow_deep.training.model_selection import select_beta

Data = Tuple[np.ndarray, np.ndarray]

DEMO_MODELS: Mapping[str, Recipe] = DEMO_RECIPES
"""The demo's recipes by name (:data:`gpflow_deep.registry.MODELS`): each ``steps`` long by default,
sized so that every model trains in under half a minute on a 2-core CPU."""
DEFAULT_MODELS = tuple(default_demo_models())


def train(
    recipe: Recipe, data: Data, iterations: int, seed: int, log_dir: str, progress: bool
) -> Tuple[DeepMixtureModel, FitResult]:
    """Build and train ``recipe`` on standardised ``data`` for ``iterations`` steps, with
    TensorBoard logs in ``log_dir``; with ``betas``, through :func:`~gpflow_deep.select_beta`
    (a sixth of ``data`` held out for early stopping)."""
    build = builder_named(recipe.builder)
    if recipe.betas is not None:
        selection = select_beta(
            *data,
            betas=recipe.betas,
            iterations=iterations,
            build=build,
            batch_size=recipe.batch_size,
            seed=seed,
            builder_options=dict(recipe.builder_options, num_layers=recipe.layers),
            log_dir=log_dir,
            progress=progress,
        )
        return selection.model, selection.fits[selection.beta]
    model = build(*data, recipe.layers, seed=seed, **recipe.builder_options)
    return model, fit(
        model,
        data,
        iterations,
        batch_size=recipe.batch_size,
        fixed_hyperparameters_for=recipe.fixed_steps(iterations),
        seed=seed,
        log_dir=log_dir,
        monitor_every=max(1, iterations // 20),
        progress=progress,
    )


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

    ``models`` are names of :data:`DEMO_MODELS`; ``iterations`` per model defaults to its recipe's
    length. TensorBoard logs go to ``log_dir/<model>`` (a fresh folder under ``./gpflow_deep_logs``
    by default) and a plot of the test predictions with their 90% intervals to
    ``log_dir/predictions.png``. Returns one row of results per model.
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
        recipe = DEMO_MODELS[name]
        steps = iterations or recipe.run_length(len(part.X_train))
        data = (part.X_train, part.Y_train)
        model, result = train(recipe, data, steps, seed, os.path.join(log_dir, name), sys.stderr.isatty())
        scores = regression_scores(model, part.X_test, part.Y_test, part.y_mean, part.y_std, seed=seed)
        intervals[name] = {key: scores.pop(key) for key in ("mean", "lower", "upper", "y")}
        rows.append(
            dict(
                model=name,
                description=recipe.description,
                seconds=result.seconds,
                seconds_per_iteration=result.seconds_per_iteration,
                iterations=result.iterations,
                **scores,
            )
        )
        print_fn(
            f"{recipe.description:<46} {scores['log_likelihood']:8.3f} {scores['rmse']:7.3f} {scores['crps']:7.3f} "
            f"{100 * scores['coverage_90']:7.0f}% {result.iterations:6d} {result.seconds:8.1f} "
            f"{1000 * result.seconds_per_iteration:8.1f}"
        )
    plot = os.path.join(log_dir, "predictions.png")
    predictions_plot(plot, intervals, units=f"({dataset}, original units)")
    print_fn(f"TensorBoard logs: {os.path.abspath(log_dir)}  (view: tensorboard --logdir {log_dir})")
    print_fn(f"test predictions with 90% intervals: {os.path.abspath(plot)}")
    return rows
