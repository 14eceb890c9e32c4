"""Variants of the protocol's paper settings, each isolating one choice (``docs/notes/sod_investigation.md``):
SoD's earlier defaults, DSVI at SoD's M or on SoD's subset, and stopping on held-out data.

``python -m benchmarks accuracy --model <name>`` runs them as it runs the library's protocol, into
the same result files, under the names the records have always had.
"""

from dataclasses import replace
from typing import Dict

import gpflow

from gpflow_deep import datasets
from gpflow_deep.app.benchmark import protocol
from gpflow_deep.app.benchmark.protocol import PROTOCOL_MODELS, Run, Trainer
from gpflow_deep.builders.sod_dgp import PAPER_SMALL_SUBSET, default_subset_size
from gpflow_deep.builders.subsets import select_subset
from gpflow_deep.registry import Recipe, builder_named
from gpflow_deep.training import fit

HELD_OUT_FRACTION = 1 / 6  # the validation part (DSPP's 15:3:2 split)
HELD_OUT_EVERY = 500  # steps between held-out checks
HELD_OUT_PATIENCE = 6  # checks without improvement before stopping (3,000 steps)


def variant(paper: str, name: str, description: str, **builder_options) -> Recipe:
    """The library's ``paper`` recipe as ``name``, with ``builder_options`` changed."""
    recipe = PROTOCOL_MODELS[paper]
    options = dict(recipe.builder_options, **builder_options)
    return replace(recipe, name=name, description=description, builder_options=options)


def held_out(recipe: Recipe, run: Run):
    """``recipe`` trained on 5/6 of the training split, the other sixth scored every 500 steps,
    stopped after six checks without improvement, the best check's parameters restored. SoD's M
    follows the whole split's size, held-out part included."""
    fit_part, held = datasets.split_indices(len(run.X), run.seed, (1 - HELD_OUT_FRACTION, HELD_OUT_FRACTION))
    if recipe.builder == "build_sod_dgp":
        options = {"subset_size": default_subset_size(len(run.X), PAPER_SMALL_SUBSET), **recipe.builder_options}
        recipe = replace(recipe, builder_options=options)
    reduced = replace(run, X=run.X[fit_part], Y=run.Y[fit_part])
    validation = dict(validation_data=(run.X[held], run.Y[held]), monitor_every=HELD_OUT_EVERY)
    return protocol.train(recipe, reduced, patience=HELD_OUT_PATIENCE, **validation)


def on_sod_subset(recipe: Recipe, run: Run):
    """``recipe``'s DeepGP with the first layer's inducing inputs at SoD's k-means subset (SoD's M
    for the split), held fixed; deeper layers' stay learned. It measures what fixing the first
    layer's inducing inputs to data points costs DSVI."""
    indices = select_subset(run.X, default_subset_size(len(run.X), PAPER_SMALL_SUBSET), "kmeans", run.seed)
    build = builder_named(recipe.builder)
    model = build(run.X, run.Y, recipe.layers, num_inducing=len(indices), inducing_inputs=run.X[indices], seed=run.seed)
    gpflow.set_trainable(model.layers[0].inducing_variable, False)
    result = fit(model, (run.X, run.Y), run.iterations, batch_size=run.batch_size, seed=run.seed, progress=run.progress)
    return model, dict(subset_size=len(indices), **protocol.fit_record(result))


RECIPES: Dict[str, Recipe] = {
    recipe.name: recipe
    for recipe in (
        variant("dgp3", "dgp3-m50", "DeepGP, 3 layers (DSVI), M=50 (SoD's boston subset)", num_inducing=50),
        variant(
            "dgp3",
            "dgp3-sod-subset",
            "DeepGP, 3 layers (DSVI), first layer's inducing inputs fixed at SoD's k-means subset (M=50/100)",
        ),
        variant(
            "sod2",
            "sod2-zero-mean",
            "SoDDGP, 2 layers, zero hidden mean and one lengthscale (the paper's; the default until 2026-11-24)",
            hidden_mean="zero",
            ard=False,
            whiten=False,
        ),
        variant(
            "sod3",
            "sod3-zero-mean",
            "SoDDGP, 3 layers, zero hidden means and one lengthscale (the paper's; the default until 2026-11-24)",
            hidden_mean="zero",
            ard=False,
            whiten=False,
        ),
        variant(
            "sod2",
            "sod2-fixed-covariances",
            "SoDDGP, 2 layers, hidden Cholesky factor and inter-layer noise held fixed (the default until 2026-11-24)",
            train_inner_covariances=False,
            whiten=False,
        ),
        variant(
            "sod3",
            "sod3-fixed-covariances",
            "SoDDGP, 3 layers, hidden Cholesky factors and inter-layer noises held fixed "
            "(the default until 2026-11-24)",
            train_inner_covariances=False,
            whiten=False,
        ),
        variant(
            "sod3",
            "sod3-m100",
            "SoDDGP, 3 layers, a subset of M=100 (DSVI's number of inducing inputs), unwhitened",
            subset_size=100,
            whiten=False,
        ),
        variant(
            "sod2",
            "sod2-unwhitened",
            "SoDDGP, 2 layers, q(F_S) over the function values (the paper's; the default until 2026-11-24 15:30 UTC)",
            whiten=False,
        ),
        variant(
            "sod3",
            "sod3-unwhitened",
            "SoDDGP, 3 layers, q(F_S) over the function values (the paper's; the default until 2026-11-24 15:30 UTC)",
            whiten=False,
        ),
        variant("sod2", "sod2-held-out", "SoDDGP, 2 layers, trained on 5/6 of the split, stopped on the other sixth"),
        variant("sod3", "sod3-held-out", "SoDDGP, 3 layers, trained on 5/6 of the split, stopped on the other sixth"),
        variant(
            "dgp2", "dgp2-held-out", "DeepGP, 2 layers (DSVI), trained on 5/6 of the split, stopped on the other sixth"
        ),
        variant(
            "dgp3", "dgp3-held-out", "DeepGP, 3 layers (DSVI), trained on 5/6 of the split, stopped on the other sixth"
        ),
        variant(
            "sod3",
            "sod3-full-steps",
            "SoDDGP, 3 layers, the whitened default with its hidden Cholesky factors in Adam's full steps (unit 1)",
            inner_q_sqrt_unit=1.0,
        ),
        variant(
            "sod3",
            "sod3-trained-covariances",
            "SoDDGP, 3 layers, hidden Cholesky factors trained in their own units (Adam's full steps)",
            inner_q_sqrt_unit=1.0,
            whiten=False,
        ),
    )
}
"""Each variant's recipe: the paper's setting it varies, with its change."""

TRAINERS: Dict[str, Trainer] = {
    "dgp3-sod-subset": on_sod_subset,
    **{name: held_out for name in ("sod2-held-out", "sod3-held-out", "dgp2-held-out", "dgp3-held-out")},
}
"""The variants not trained by the protocol's own ``train``."""


def run_keys(model: str, dataset: str, split: int, **options) -> Dict:
    """:func:`~gpflow_deep.app.benchmark.protocol.run_keys` of a variant."""
    return protocol.run_keys(model, dataset, split, recipes=RECIPES, **options)


def run_split(model: str, dataset: str, split: int, **options) -> Dict:
    """:func:`~gpflow_deep.app.benchmark.protocol.run_split` of a variant, with its own trainer."""
    return protocol.run_split(
        model, dataset, split, recipes=RECIPES, trainer=TRAINERS.get(model, protocol.train), **options
    )
