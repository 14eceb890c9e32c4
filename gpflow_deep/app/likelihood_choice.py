"""``gpflow-deep fit --likelihood auto`` for a numeric target: Gaussian or Student-t, whichever
scores the higher log-likelihood on held-out rows.

The table's bounded sample (at most 10,000 training rows) is shuffled and split: 80% train two
short pilots, one per candidate, and the other 20% score them. A pilot is a one-layer sparse
variational GP (``build_deep_gp`` with one layer) trained for :data:`PILOT_STEPS` steps of
:data:`PILOT_BATCH` rows, its q(U) by natural gradients and everything else by Adam, which brings
both candidates near their optimum in that few steps. The question is the noise model, which is a
property of the data more than of the model on top: a one-layer pilot costs a fraction of the
chosen model's steps and answers it (measurements in ``docs/cli.md``). The held-out score is the
exact mean log predictive density per row, in the target's units.
"""

import time
from dataclasses import asdict, dataclass, field
from typing import Dict, Optional

import numpy as np

CANDIDATES = ("gaussian", "studentt")
HELD_OUT_SHARE = 0.2  # of the sample, scored; the rest trains the pilots
MIN_SAMPLE_ROWS = 100  # fewer rows choose nothing: Gaussian, the usual default
PILOT_STEPS = 150  # the candidates part by step 30-80 on the tables measured (docs/cli.md)
PILOT_BATCH = 1_000
PILOT_LEARNING_RATE = 0.03  # Adam, for the kernel, the inducing inputs and the likelihood
PILOT_NATGRAD_GAMMA = 0.1  # natural-gradient steps on q(U)


@dataclass
class LikelihoodChoice:
    """The likelihood chosen for a numeric target and why.

    :ivar likelihood: the chosen name.
    :ivar scores: ``{candidate: mean held-out log-density per row}`` in the target's units (empty
        when no pilot ran).
    :ivar held_out_rows: the sample rows that scored the pilots.
    :ivar pilot_steps: the steps each pilot trained.
    :ivar seconds: the wall time of both pilots.
    :ivar reason: why no pilot ran, if none did.
    """

    likelihood: str
    scores: Dict[str, float] = field(default_factory=dict)
    held_out_rows: int = 0
    pilot_steps: int = 0
    seconds: float = 0.0
    reason: Optional[str] = None

    def describe(self) -> str:
        """One line: the choice, and the scores or the reason."""
        if self.reason is not None:
            return f"likelihood: {self.likelihood} ({self.reason})"
        scores = ", ".join(f"{name} {score:.3f}" for name, score in self.scores.items())
        return (
            f"likelihood: {self.likelihood} (held-out log-likelihood per row on {self.held_out_rows:,} "
            f"sample rows, {self.pilot_steps} pilot steps each, {self.seconds:.0f} s: {scores})"
        )

    def to_dict(self) -> dict:
        return asdict(self)


def choose_likelihood(
    X: np.ndarray,
    Y: np.ndarray,
    target_std: float,
    *,
    seed: int = 0,
    steps: Optional[int] = None,
    batch_size: int = PILOT_BATCH,
) -> LikelihoodChoice:
    """Gaussian or Student-t for the encoded sample X ``[K, D]``, Y ``[K, 1]`` (standardised
    targets, ``target_std`` the standard deviation they were divided by): the candidate whose pilot
    scores the higher mean log-density on the held-out share (a tie keeps Gaussian); each pilot
    trains ``steps`` steps (None: :data:`PILOT_STEPS`)."""
    steps = PILOT_STEPS if steps is None else steps
    if len(X) < MIN_SAMPLE_ROWS:
        return LikelihoodChoice("gaussian", reason=f"{len(X)} rows are too few to choose; at least {MIN_SAMPLE_ROWS}")
    order = np.random.default_rng(seed).permutation(len(X))
    held = order[: max(1, int(round(HELD_OUT_SHARE * len(X))))]
    kept = order[len(held) :]
    began = time.perf_counter()
    scores = {
        name: _pilot_score(name, (X[kept], Y[kept]), (X[held], Y[held]), seed, steps, batch_size) - np.log(target_std)
        for name in CANDIDATES
    }
    chosen = max(CANDIDATES, key=lambda name: scores[name])  # the first of equals: Gaussian
    return LikelihoodChoice(chosen, scores, len(held), steps, time.perf_counter() - began)


def _pilot_score(likelihood: str, training_data, held_out_data, seed: int, steps: int, batch_size: int) -> float:
    """Mean log-density per held-out row of a one-layer pilot with ``likelihood`` (standardised
    units); -inf if its training failed numerically."""
    from gpflow_deep import build_deep_gp, fit
    from gpflow_deep.core.numerics import NumericalError
    from gpflow_deep.registry import make_likelihood

    X, Y = training_data
    model = build_deep_gp(X, Y, 1, likelihood=make_likelihood(likelihood), num_data=len(X), seed=seed)
    try:
        fit(
            model,
            (X, Y),
            steps,
            batch_size=batch_size if batch_size < len(X) else None,
            learning_rate=PILOT_LEARNING_RATE,
            natgrad_gamma=PILOT_NATGRAD_GAMMA,
            seed=seed,
            progress=False,
            on_nonfinite="rollback",
        )
    except NumericalError:
        return -np.inf
    # one layer: every path is the same Gaussian over f, so one path gives the exact density
    score = float(np.mean(model.predict_log_density(held_out_data, num_samples=1, seed=seed)))
    return score if np.isfinite(score) else -np.inf
