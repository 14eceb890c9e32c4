"""What ``fit`` does when a step's objective or gradients are not finite: stop, or roll back to
the last good state and halve the learning rate (and the natural-gradient step, if any)."""

import logging
from typing import List, NamedTuple, Optional

import tensorflow as tf

from gpflow_deep.core.numerics import explain
from gpflow_deep.training.state import Snapshot, training_variables

ON_NONFINITE = ("stop", "rollback")
SNAPSHOT_EVERY = 10  # steps between snapshots of the state (a snapshot copies every variable)
MAX_ROLLBACKS = 10  # then the learning rate is 2⁻¹⁰ of the start, and the run stops

logger = logging.getLogger("gpflow_deep")


class Rollback(NamedTuple):
    """One recovery of ``on_nonfinite="rollback"``.

    :ivar failed_iteration: the iteration whose step was not finite.
    :ivar restored_iteration: the iteration of the state put back.
    :ivar learning_rate: the optimizer's learning rate from then on.
    :ivar natgrad_gamma: the natural-gradient step size from then on (None without natural gradients).
    """

    failed_iteration: int
    restored_iteration: int
    learning_rate: float
    natgrad_gamma: Optional[float] = None


class NonFiniteGuard:
    """Keeps the last good state of a run: a snapshot taken before a step becomes the good one once
    that step's objective and gradients have come out finite (so its state is known to evaluate).

    :param mode: ``"stop"`` (raise a ``NumericalError`` after putting the good state back) or
        ``"rollback"`` (put it back, halve the learning rate and go on; at most ``MAX_ROLLBACKS`` times).
    """

    def __init__(self, model, training, mode: str, diagnosis_inputs: tf.Tensor):
        self.model, self.training, self.mode = model, training, mode
        self.diagnosis_inputs = diagnosis_inputs
        self.rollbacks: List[Rollback] = []
        self._variables = training_variables(model, training.optimizer, training.iteration)
        self._good = self._snapshot()
        self._candidate: Optional[Snapshot] = None
        if mode == "rollback" and not isinstance(getattr(training.optimizer, "learning_rate", None), tf.Variable):
            raise ValueError(
                "on_nonfinite='rollback' halves the optimizer's learning rate, which must then be a constant, "
                f"not a schedule (got {type(training.optimizer).__name__} with {training.optimizer.learning_rate!r})"
            )

    def before_step(self, iteration: int) -> None:
        """Take a candidate snapshot before every ``SNAPSHOT_EVERY``-th step (1-based ``iteration``)."""
        if (iteration - 1) % SNAPSHOT_EVERY == 0 and iteration - 1 != self._good.iteration:
            self._candidate = self._snapshot()

    def step_was_finite(self) -> None:
        """The step after the candidate evaluated finitely: the candidate is the good state now."""
        if self._candidate is not None:
            self._good, self._candidate = self._candidate, None

    def recover(self, iteration: int, what: str) -> int:
        """Put the good state back after the step of ``iteration`` failed (``what`` says how) and
        return its iteration; in ``"stop"`` mode, or after ``MAX_ROLLBACKS``, raise instead."""
        self._candidate = None
        learning_rate = float(self.training.optimizer.learning_rate.numpy()) / 2
        self._good.restore()
        restored = self._good.iteration
        if self.mode == "stop" or len(self.rollbacks) >= MAX_ROLLBACKS:
            tried = f" after {len(self.rollbacks)} rollbacks" if self.rollbacks else ""
            then = f"The model is back at iteration {restored}, the last good state{tried}" + (
                "" if self.rollbacks else "; on_nonfinite='rollback' retries from there with half the learning rate"
            )
            raise explain(self.model, f"fit: {what} at iteration {iteration}", self.diagnosis_inputs, iteration, then)
        self.training.optimizer.learning_rate.assign(learning_rate)
        gamma = self.training.natgrad_gamma
        if gamma is not None:
            gamma.assign(gamma / 2)
        natgrad_gamma = None if gamma is None else float(gamma.numpy())
        self.rollbacks.append(Rollback(iteration, restored, learning_rate, natgrad_gamma))
        message = "fit: %s at iteration %d; back to iteration %d with learning rate %g"
        logger.warning(message, what, iteration, restored, learning_rate)
        if gamma is not None:
            logger.warning("fit: natural-gradient step size now %g", natgrad_gamma)
        return restored

    def _snapshot(self) -> Snapshot:
        return Snapshot(self._variables, int(self.training.iteration.numpy()))
