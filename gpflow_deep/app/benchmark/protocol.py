"""The papers' UCI regression protocol, one split at a time, for every model of the package.

20 random 90/10 splits (split i uses seed i), X and y standardised with the training part's
statistics, test log-likelihood (log of the predictive mixture: S Monte Carlo paths, or the exact
finite mixture of DSPP) and RMSE in original units. Each entry of :data:`PROTOCOL_MODELS` is its
paper's setting; a new model joins the benchmark with one entry.
"""

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

import gpflow
import numpy as np

from gpflow_deep import datasets, metrics
from gpflow_deep.app.benchmark.machine import machine, versions
from gpflow_deep.builders import build_aep_dgp, build_deep_gp, build_random_feature_dgp, build_sod_dgp
from gpflow_deep.builders.sod_dgp import default_subset_size
from gpflow_deep.builders.subsets import select_subset
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.training import fit
from gpflow_deep.training.model_selection import select_beta

PAPER_ITERATIONS = 20_000
PAPER_BATCH = 10_000  # full batch below this many points
HELD_OUT_FRACTION = 1 / 6  # the held-out variants' validation part (DSPP's 15:3:2 split)
HELD_OUT_EVERY = 500  # steps between held-out checks
HELD_OUT_PATIENCE = 6  # checks without improvement before stopping (3,000 steps)
FLOAT_TYPES = ("float64", "float32")


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
    validation: Optional[Tuple[np.ndarray, np.ndarray]] = None  # held out for early stopping


@dataclass(frozen=True)
class ProtocolModel:
    """A model in its paper's setting: ``train(run) -> (model, extra record fields)``.

    ``batch_size`` is the paper's minibatch; the default length is ``iterations`` steps, or
    ``epochs`` passes over the training split if given;
    ``test_samples`` is S for the test scores (None: the model's mixture is exact).
    """

    description: str
    train: Callable[[Run], Tuple[DeepMixtureModel, Dict]]
    batch_size: int = PAPER_BATCH
    iterations: int = PAPER_ITERATIONS
    epochs: Optional[int] = None
    test_samples: Optional[int] = 100

    def default_iterations(self, num_train: int) -> int:
        """The paper's run length for ``num_train`` training points."""
        if self.epochs is None:
            return self.iterations
        return self.epochs * math.ceil(num_train / min(self.batch_size, num_train))


def _fit(model: DeepMixtureModel, run: Run, **options):
    """``fit`` with the run's settings, and with early stopping on ``run.validation`` if any."""
    if run.validation is not None:
        options = dict(
            options, validation_data=run.validation, monitor_every=HELD_OUT_EVERY, patience=HELD_OUT_PATIENCE
        )
    return fit(
        model,
        (run.X, run.Y),
        run.iterations,
        batch_size=run.batch_size,
        seed=run.seed,
        progress=run.progress,
        **options,
    )


def _fit_record(result) -> Dict:
    """The record fields of a fit: time per step, and the best step when stopped on held-out data."""
    record = dict(seconds_per_iteration=result.seconds_per_iteration)
    if result.best_iteration is not None:
        record.update(best_iteration=result.best_iteration, stopped_at=result.iterations)
    return record


def _held_out_stopping(train: Callable[[Run], Tuple[DeepMixtureModel, Dict]]) -> Callable:
    """``train`` on 5/6 of the training split, the other sixth scored every 500 steps, stopped after
    six checks without improvement, and the best check's parameters restored."""

    def train_with_held_out(run: Run):
        fit_part, held_out = datasets.split_indices(len(run.X), run.seed, (1 - HELD_OUT_FRACTION, HELD_OUT_FRACTION))
        reduced = dataclasses.replace(
            run, X=run.X[fit_part], Y=run.Y[fit_part], validation=(run.X[held_out], run.Y[held_out])
        )
        return train(reduced)

    return train_with_held_out


def _deep_gp(num_layers: int, **options) -> Callable[[Run], Tuple[DeepMixtureModel, Dict]]:
    def train(run: Run):
        """``build_deep_gp`` defaults (M=100, the paper's initialisation), or ``options``."""
        model = build_deep_gp(run.X, run.Y, num_layers, seed=run.seed, **options)
        return model, _fit_record(_fit(model, run))

    return train


def _papers_subset_size(run: Run) -> int:
    """SoD's paper M (50 or 100) for the whole training split, a held-out part included."""
    num_train = len(run.X) + (0 if run.validation is None else len(run.validation[0]))
    return default_subset_size(num_train)


def _deep_gp_on_sod_subset(num_layers: int) -> Callable[[Run], Tuple[DeepMixtureModel, Dict]]:
    def train(run: Run):
        """``build_deep_gp`` defaults, but the first layer's inducing inputs are SoD's subset X_S
        (``_sod_dgp``'s k-means points and M), held fixed; deeper layers' stay learned. It measures
        what fixing the first layer's inducing inputs to data points costs DSVI (docs/sod.md)."""
        indices = select_subset(run.X, _papers_subset_size(run), "kmeans", run.seed)
        model = build_deep_gp(
            run.X, run.Y, num_layers, num_inducing=len(indices), inducing_inputs=run.X[indices], seed=run.seed
        )
        gpflow.set_trainable(model.layers[0].inducing_variable, False)
        return model, dict(subset_size=len(indices), **_fit_record(_fit(model, run)))

    return train


def _dspp(run: Run):
    """β from {0.01, 0.05, 0.2, 1.0} on a validation part of 1/6 of the training split (15:3:2
    overall), early stopping on it (``select_beta``); M=100, width 3, S=10; at most 5,000 steps."""
    builder_options = dict(num_inducing=100, hidden_width=3, num_sigma_points=10)
    selection = select_beta(
        run.X,
        run.Y,
        iterations=run.iterations,
        batch_size=run.batch_size,
        seed=run.seed,
        progress=run.progress,
        builder_options=builder_options,
    )
    chosen = selection.fits[selection.beta]
    return selection.model, dict(beta=selection.beta, best_iteration=chosen.best_iteration)


def _sod_dgp(
    num_layers: int, subset_size: Optional[int] = None, **options
) -> Callable[[Run], Tuple[DeepMixtureModel, Dict]]:
    def train(run: Run):
        """The paper's settings: a k-means subset of ``subset_size`` points, by default the builder's
        paper M (50 below 800 training points, 100 from there: boston 50, concrete 100), 10 training
        and 50 test paths; the builder's ``setup="data"`` (the paper's collapses on two layers,
        ``docs/sod.md``) with its defaults or ``options``. The paper's M follows the whole training
        split's size, held-out part included."""
        M = subset_size or _papers_subset_size(run)
        model = build_sod_dgp(run.X, run.Y, num_layers, M, seed=run.seed, **options)
        return model, dict(subset_size=model.num_subset, **_fit_record(_fit(model, run)))

    return train


def _random_feature_dgp(run: Run):
    """DGP-RBF: one hidden layer of 3 GPs, 100 features, Ω var-fixed, Θ fixed for the first 3/5 of
    the run; one Monte Carlo path in training (the paper switches to 100 halfway)."""
    fixed_for = run.iterations * 3 // 5
    model = build_random_feature_dgp(run.X, run.Y, 2, setup="paper", seed=run.seed)
    result = _fit(model, run, fixed_hyperparameters_for=fixed_for)
    return model, dict(fixed_hyperparameters_for=fixed_for, seconds_per_iteration=result.seconds_per_iteration)


def _aep_dgp(run: Run):
    """``build_aep_dgp`` defaults (M=100, S=20 cavity paths per step), the public code's minibatch
    of 100 and its 1,000 epochs."""
    model = build_aep_dgp(run.X, run.Y, 2, seed=run.seed)
    result = _fit(model, run)
    return model, dict(seconds_per_iteration=result.seconds_per_iteration)


PROTOCOL_MODELS: Dict[str, ProtocolModel] = {
    "sgp": ProtocolModel("DeepGP, 1 layer (SVGP)", _deep_gp(1)),
    "dgp2": ProtocolModel("DeepGP, 2 layers (DSVI)", _deep_gp(2)),
    "dgp3": ProtocolModel("DeepGP, 3 layers (DSVI)", _deep_gp(3)),
    "dgp3-m50": ProtocolModel("DeepGP, 3 layers (DSVI), M=50 (SoD's boston subset)", _deep_gp(3, num_inducing=50)),
    "dgp3-sod-subset": ProtocolModel(
        "DeepGP, 3 layers (DSVI), first layer's inducing inputs fixed at SoD's k-means subset (M=50/100)",
        _deep_gp_on_sod_subset(3),
    ),
    "dspp2": ProtocolModel(
        "DSPP, 2 layers (β and early stopping on validation)", _dspp, iterations=5000, test_samples=None
    ),
    "rf2": ProtocolModel("RandomFeatureDGP, 1 hidden layer (DGP-RBF)", _random_feature_dgp, batch_size=200),
    "aep2": ProtocolModel("AEPDGP, 2 layers (Monte Carlo)", _aep_dgp, batch_size=100, epochs=1000),
    "sod2": ProtocolModel("SoDDGP, 2 layers (the paper's SoD-DGP1: one hidden layer)", _sod_dgp(2), test_samples=50),
    "sod3": ProtocolModel("SoDDGP, 3 layers (the paper's SoD-DGP2: two hidden layers)", _sod_dgp(3), test_samples=50),
    "sod2-zero-mean": ProtocolModel(
        "SoDDGP, 2 layers, zero hidden mean and one lengthscale (the paper's; the default until 2026-11-24)",
        _sod_dgp(2, hidden_mean="zero", ard=False, whiten=False),
        test_samples=50,
    ),
    "sod3-zero-mean": ProtocolModel(
        "SoDDGP, 3 layers, zero hidden means and one lengthscale (the paper's; the default until 2026-11-24)",
        _sod_dgp(3, hidden_mean="zero", ard=False, whiten=False),
        test_samples=50,
    ),
    "sod2-fixed-covariances": ProtocolModel(
        "SoDDGP, 2 layers, hidden Cholesky factor and inter-layer noise held fixed (the default until 2026-11-24)",
        _sod_dgp(2, train_inner_covariances=False, whiten=False),
        test_samples=50,
    ),
    "sod3-fixed-covariances": ProtocolModel(
        "SoDDGP, 3 layers, hidden Cholesky factors and inter-layer noises held fixed (the default until 2026-11-24)",
        _sod_dgp(3, train_inner_covariances=False, whiten=False),
        test_samples=50,
    ),
    "sod3-m100": ProtocolModel(
        "SoDDGP, 3 layers, a subset of M=100 (DSVI's number of inducing inputs), unwhitened",
        _sod_dgp(3, 100, whiten=False),
        test_samples=50,
    ),
    "sod2-unwhitened": ProtocolModel(
        "SoDDGP, 2 layers, q(F_S) over the function values (the paper's; the default until 2026-11-24 15:30 UTC)",
        _sod_dgp(2, whiten=False),
        test_samples=50,
    ),
    "sod3-unwhitened": ProtocolModel(
        "SoDDGP, 3 layers, q(F_S) over the function values (the paper's; the default until 2026-11-24 15:30 UTC)",
        _sod_dgp(3, whiten=False),
        test_samples=50,
    ),
    "sod2-held-out": ProtocolModel(
        "SoDDGP, 2 layers, trained on 5/6 of the split, stopped on the other sixth",
        _held_out_stopping(_sod_dgp(2)),
        test_samples=50,
    ),
    "sod3-held-out": ProtocolModel(
        "SoDDGP, 3 layers, trained on 5/6 of the split, stopped on the other sixth",
        _held_out_stopping(_sod_dgp(3)),
        test_samples=50,
    ),
    "dgp2-held-out": ProtocolModel(
        "DeepGP, 2 layers (DSVI), trained on 5/6 of the split, stopped on the other sixth",
        _held_out_stopping(_deep_gp(2)),
    ),
    "dgp3-held-out": ProtocolModel(
        "DeepGP, 3 layers (DSVI), trained on 5/6 of the split, stopped on the other sixth",
        _held_out_stopping(_deep_gp(3)),
    ),
    "sod3-full-steps": ProtocolModel(
        "SoDDGP, 3 layers, the whitened default with its hidden Cholesky factors in Adam's full steps (unit 1)",
        _sod_dgp(3, inner_q_sqrt_unit=1.0),
        test_samples=50,
    ),
    "sod3-trained-covariances": ProtocolModel(
        "SoDDGP, 3 layers, hidden Cholesky factors trained in their own units (Adam's full steps)",
        _sod_dgp(3, inner_q_sqrt_unit=1.0, whiten=False),
        test_samples=50,
    ),
}


def run_keys(
    model: str,
    dataset: str,
    split: int,
    iterations: Optional[int] = None,
    batch_size: Optional[int] = None,
    float_type: str = "float64",
) -> Dict:
    """What identifies a run in a result file (a run already there is not repeated), with the
    model's paper settings for the ``iterations`` and ``batch_size`` not given. float32 runs carry
    ``float_type``; float64 records (the default) have no such key."""
    if model not in PROTOCOL_MODELS:
        raise ValueError(f"model: unknown {model!r}; choose from {', '.join(PROTOCOL_MODELS)}")
    if float_type not in FLOAT_TYPES:
        raise ValueError(f"float_type must be one of {FLOAT_TYPES}, got {float_type!r}")
    spec = PROTOCOL_MODELS[model]
    batch_size = batch_size or spec.batch_size
    if iterations is None:
        iterations = spec.default_iterations(len(datasets.uci_split(datasets.load(dataset), split).X_train))
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
) -> Dict:
    """Train ``model`` (a key of :data:`PROTOCOL_MODELS`) on one split of ``dataset`` and score it.

    ``iterations`` and ``batch_size`` default to the model's paper setting; ``float_type="float32"``
    builds, trains and scores the model in float32 (GPflow's default float set for the run). Returns
    the result record: the run's keys, test log-likelihood, RMSE and CRPS in original units,
    training seconds, the machine and library versions, and the model's own fields (the chosen β, ...).
    """
    keys = run_keys(model, dataset, split, iterations, batch_size, float_type)
    spec, part = PROTOCOL_MODELS[model], datasets.uci_split(datasets.load(dataset), split)
    batch = None if keys["batch_size"] >= len(part.X_train) else keys["batch_size"]
    X, Y = (part.X_train.astype(float_type), part.Y_train.astype(float_type))
    run = Run(X, Y, dataset, keys["iterations"], batch, seed, progress)
    with gpflow.config.as_context(gpflow.config.Config(float=np.dtype(float_type).type)):
        began = time.perf_counter()
        trained, extra = spec.train(run)
        seconds = time.perf_counter() - began
        options = {} if spec.test_samples is None else dict(num_samples=spec.test_samples, seed=seed)
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
