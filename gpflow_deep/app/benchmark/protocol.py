"""The papers' UCI regression protocol, one split at a time, for every model of the package.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, Adam at 0.01 for every model, test log-likelihood (log of the predictive mixture: S
Monte Carlo paths, or the exact finite mixture of DSPP), RMSE and CRPS in original units. The
models are the protocol recipes of :data:`gpflow_deep.registry.MODELS`, each its paper's setting;
``run_keys`` and ``run_split`` take other recipes (and another way to train them) for variants
of those settings.
"""

import time
from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Tuple

import gpflow
import numpy as np

from gpflow_deep import datasets
from gpflow_deep.app.benchmark.machine import machine, versions
from gpflow_deep.evaluation import metrics
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.registry import PROTOCOL_RECIPES, Recipe, builder_named
from gpflow_deep.training import FitResult, fit
from gpflow_deep.training.model_selection import select_beta

PROTOCOL_LEARNING_RATE = 0.01  # Adam's, for every model, whatever its own default (the protocol's records)
PAPER_BATCH = 10_000  # a recipe's full batch, as result files record it (full below this many points)
FLOAT_TYPES = ("float64", "float32")

PROTOCOL_MODELS: Mapping[str, Recipe] = PROTOCOL_RECIPES
"""The library's protocol: each model of the package in its paper's setting, by name."""


@dataclass(frozen=True)
class Run:
    """One training run of the protocol: the standardised training split and the settings."""

    X: np.ndarray
    Y: np.ndarray
    dataset: str
    iterations: int
    batch_size: Optional[int]  # None for full batch
    seed: int
    progress: bool


Trainer = Callable[[Recipe, Run], Tuple[DeepMixtureModel, Dict]]


def fit_record(result: FitResult) -> Dict:
    """The record fields of a fit: time per step, and the best step when stopped on held-out data."""
    record = dict(seconds_per_iteration=result.seconds_per_iteration)
    if result.best_iteration is not None:
        record.update(best_iteration=result.best_iteration, stopped_at=result.iterations)
    return record


def train(recipe: Recipe, run: Run, **fit_options) -> Tuple[DeepMixtureModel, Dict]:
    """Build and train ``recipe`` on ``run``; returns the model and its record fields.

    With ``betas``, β is chosen on a held-out sixth of the training split (``select_beta``);
    otherwise the builder's model is fitted on all of it, with ``fit_options`` besides the run's.
    """
    build = builder_named(recipe.builder)
    if recipe.betas is not None:
        selection = select_beta(
            run.X,
            run.Y,
            betas=recipe.betas,
            iterations=run.iterations,
            build=build,
            batch_size=run.batch_size,
            seed=run.seed,
            progress=run.progress,
            builder_options=dict(recipe.builder_options, num_layers=recipe.layers),
        )
        return selection.model, dict(beta=selection.beta, **fit_record(selection.fits[selection.beta]))
    model = build(run.X, run.Y, recipe.layers, seed=run.seed, **recipe.builder_options)
    fixed = recipe.fixed_steps(run.iterations)
    options = dict(batch_size=run.batch_size, seed=run.seed, progress=run.progress, fixed_hyperparameters_for=fixed)
    options.update(learning_rate=PROTOCOL_LEARNING_RATE, anneal=0.0)  # the papers' constant step
    result = fit(model, (run.X, run.Y), run.iterations, **{**options, **fit_options})
    record = {name: getattr(model, attribute) for name, attribute in recipe.recorded.items()}
    if fixed:
        record["fixed_hyperparameters_for"] = fixed
    return model, dict(record, **fit_record(result))


def run_keys(
    model: str,
    dataset: str,
    split: int,
    iterations: Optional[int] = None,
    batch_size: Optional[int] = None,
    float_type: str = "float64",
    recipes: Mapping[str, Recipe] = PROTOCOL_MODELS,
) -> Dict:
    """What identifies a run in a result file (a run already there is not repeated), with the
    recipe's settings for the ``iterations`` and ``batch_size`` not given. float32 runs carry
    ``float_type``; float64 records (the default) have no such key."""
    if model not in recipes:
        raise ValueError(f"model: unknown {model!r}; choose from {', '.join(recipes)}")
    if float_type not in FLOAT_TYPES:
        raise ValueError(f"float_type must be one of {FLOAT_TYPES}, got {float_type!r}")
    recipe = recipes[model]
    batch_size = batch_size or recipe.batch_size or PAPER_BATCH
    if iterations is None:
        iterations = recipe.run_length(len(datasets.uci_split(datasets.load(dataset), split).X_train))
    keys = dict(
        dataset=dataset,
        model=model,
        implementation="gpflow_deep",
        split=split,
        iterations=iterations,
        batch_size=batch_size,
    )
    return keys if float_type == "float64" else dict(keys, float_type=float_type)


def run_split(
    model: str,
    dataset: str,
    split: int,
    iterations: Optional[int] = None,
    batch_size: Optional[int] = None,
    seed: int = 0,
    progress: bool = False,
    float_type: str = "float64",
    recipes: Mapping[str, Recipe] = PROTOCOL_MODELS,
    trainer: Trainer = train,
) -> Dict:
    """Train ``model`` (a name of ``recipes``) on one split of ``dataset`` with ``trainer`` and score it.

    ``iterations`` and ``batch_size`` default to the recipe's; ``float_type="float32"`` builds,
    trains and scores the model in float32 (GPflow's default float set for the run). Returns the
    result record: the run's keys, test log-likelihood, RMSE and CRPS in original units, training
    seconds, the machine and library versions, and the trainer's own fields (the chosen β, ...).
    """
    keys = run_keys(model, dataset, split, iterations, batch_size, float_type, recipes)
    recipe, part = recipes[model], datasets.uci_split(datasets.load(dataset), split)
    batch = None if keys["batch_size"] >= len(part.X_train) else keys["batch_size"]
    X, Y = (part.X_train.astype(float_type), part.Y_train.astype(float_type))
    run = Run(X, Y, dataset, keys["iterations"], batch, seed, progress)
    with gpflow.config.as_context(gpflow.config.Config(float=np.dtype(float_type).type)):
        began = time.perf_counter()
        trained, extra = trainer(recipe, run)
        seconds = time.perf_counter() - began
        options = {} if recipe.test_samples is None else dict(num_samples=recipe.test_samples, seed=seed)
        scores = metrics.evaluate(trained, part.X_test, part.Y_test, part.y_std, **options)
    return dict(
        keys,
        effective_batch=run.batch_size or len(part.X_train),
        test_log_likelihood=scores["log_likelihood"],
        test_rmse=scores["rmse"],
        test_crps=scores["crps"],
        train_seconds=seconds,
        machine=machine(),
        versions=versions(),
        **extra,
    )
