"""Choosing the KL weight β on held-out data, as Jankowiak et al. (2020) do for DSPPs."""

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Sequence

import numpy as np

from gpflow_deep.builders import build_dspp
from gpflow_deep.builders.initialisation import training_arrays
from gpflow_deep.datasets import split_indices
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.training import FitResult, fit

PAPER_BETAS = (0.01, 0.05, 0.2, 1.0)


@dataclass
class BetaSelection:
    """The outcome of :func:`select_beta`.

    :ivar model: the model of the best β, trained on the training part, with the parameters of
        its best held-out score.
    :ivar beta: that β.
    :ivar scores: best held-out mean log-density per point, for every β tried.
    :ivar fits: the :class:`~gpflow_deep.FitResult` of every β.
    """

    model: DeepMixtureModel
    beta: float
    scores: Dict[float, float]
    fits: Dict[float, FitResult]


def select_beta(
    X: np.ndarray,
    Y: np.ndarray,
    betas: Sequence[float] = PAPER_BETAS,
    iterations: int = 5000,
    *,
    build: Callable[..., DeepMixtureModel] = build_dspp,
    validation_fraction: float = 1 / 6,
    patience: Optional[int] = 10,
    monitor_every: int = 50,
    seed: int = 0,
    **options,
) -> BetaSelection:
    """Hold out ``validation_fraction`` of (X, Y), train one model per β on the rest with early
    stopping on the held-out part, and keep the β with the best held-out log-density.

    The default fraction, 1/6, turns a 90/10 train/test split into the paper's 15:3:2
    train/validation/test proportions. ``build(X, Y, beta=β, seed=seed, **builder_options)`` makes
    each model (:func:`~gpflow_deep.build_dspp` by default, with ``paper_defaults=True`` unless
    ``builder_options`` says otherwise: this is the paper's protocol); the other ``options`` go to
    :func:`~gpflow_deep.fit` (``batch_size``, ``learning_rate``, ...), except
    ``builder_options`` (a dict for ``build``).
    """
    if not 0 < validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in (0, 1), got {validation_fraction}")
    if len(betas) == 0:
        raise ValueError("betas: at least one value is needed")
    X, Y = training_arrays(X, Y)
    train, validation = split_indices(len(X), seed, (1 - validation_fraction, validation_fraction))
    builder_options = dict(options.pop("builder_options", {}))
    if build is build_dspp:
        builder_options.setdefault("paper_defaults", True)
    fit_options = dict(options, patience=patience, monitor_every=monitor_every, seed=seed)
    if patience is None:
        fit_options["restore_best"] = True
    models, fits, scores = {}, {}, {}
    for beta in betas:
        model = build(X[train], Y[train], beta=beta, seed=seed, **builder_options)
        result = fit(
            model, (X[train], Y[train]), iterations, validation_data=(X[validation], Y[validation]), **fit_options
        )
        models[beta], fits[beta] = model, result
        scores[beta] = max(score for _, score in result.validation)
    best = max(scores, key=scores.get)
    return BetaSelection(models[best], best, scores, fits)
