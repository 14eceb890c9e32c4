"""``fit``: train a deep model with minibatches, any TensorFlow optimizer, TensorBoard and
checkpoints, the whole step compiled as one ``tf.function``."""

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np
import tensorflow as tf
from gpflow.keras import tf_keras

from ..models import DeepMixtureModel
from ..validation import as_data, check_positive_int
from .checkpoints import resume_or_start
from .early_stopping import EarlyStopping
from .monitoring import monitor_tasks
from .progress import Progress
from .step import training_step


@dataclass
class FitResult:
    """What a call to :func:`fit` did.

    :ivar objectives: the objective (ELBO or the model's own) at each iteration of this call.
    :ivar iterations: the iteration count the model has reached (resumed runs included).
    :ivar resumed_from: the iteration restored from a checkpoint (0 for a fresh run).
    :ivar seconds: wall time of this call's loop, the first step's tracing included.
    :ivar first_step_seconds: wall time of the first step (tracing and compilation).
    :ivar validation: (iteration, mean held-out log-density per point) at every check.
    :ivar best_iteration: with ``restore_best``, the iteration whose parameters the model has.
    """

    objectives: np.ndarray
    iterations: int
    resumed_from: int
    seconds: float
    first_step_seconds: float
    validation: List[Tuple[int, float]] = field(default_factory=list)
    best_iteration: Optional[int] = None

    @property
    def seconds_per_iteration(self) -> float:
        """Mean time of the steps after the first (compilation excluded)."""
        steps = len(self.objectives) - 1
        return (self.seconds - self.first_step_seconds) / steps if steps > 0 else float("nan")


def fit(
    model: DeepMixtureModel,
    data: Tuple[np.ndarray, np.ndarray],
    iterations: int = 1000,
    *,
    batch_size: Optional[int] = None,
    optimizer: Optional[tf_keras.optimizers.Optimizer] = None,
    learning_rate: float = 0.01,
    natgrad_gamma: Optional[float] = None,
    seed: Optional[int] = None,
    jit_compile: bool = False,
    log_dir: Optional[str] = None,
    monitor_every: int = 100,
    validation_data: Optional[Tuple[np.ndarray, np.ndarray]] = None,
    patience: Optional[int] = None,
    restore_best: bool = False,
    checkpoint_dir: Optional[str] = None,
    checkpoint_every: int = 1000,
    progress: bool = True,
    fixed_hyperparameters_for: int = 0,
    num_samples_schedule: Optional[Dict[int, int]] = None,
) -> FitResult:
    """Maximise the model's objective for ``iterations`` steps in total.

    :param model: a model of this package.
    :param data: the training pair (X ``[N, D]``, Y ``[N, P]``).
    :param iterations: the step count to reach; a run resumed from a checkpoint does the rest.
    :param batch_size: minibatch size (shuffled every epoch through ``tf.data``); None or at
        least N for full batch.
    :param optimizer: any ``tf_keras`` optimizer; Adam with ``learning_rate`` by default.
    :param natgrad_gamma: if given, the last layer's (q_mu, q_sqrt) take natural-gradient steps
        of this size (GPflow's ``NaturalGradient``) and the optimizer trains everything else.
    :param seed: seeds the model's generator and the shuffling: the same seed, the same run.
    :param jit_compile: compile the update with XLA (see ``docs/benchmarks.md`` for when it pays).
    :param log_dir: write TensorBoard summaries there every ``monitor_every`` steps (see
        :func:`gpflow_deep.training.monitoring.monitor_tasks`).
    :param validation_data: held-out (X, Y), scored every ``monitor_every`` steps (mean log
        predictive density per point, in ``FitResult.validation`` and TensorBoard, with the RMSE).
    :param patience: stop once the held-out score has not improved for this many checks in a
        row (needs ``validation_data``; implies ``restore_best``).
    :param restore_best: end with the parameters of the best held-out score.
    :param checkpoint_dir: save a ``tf.train.Checkpoint`` there every ``checkpoint_every``
        steps and at the end; a later call with the same directory resumes from the latest one.
    :param progress: print a progress line with the running objective.
    :param fixed_hyperparameters_for: hold the hyperparameters (kernels, mean functions,
        likelihood: everything but the variational parameters) fixed for the first this many
        iterations (Cutajar et al. 2017 use 12,000).
    :param num_samples_schedule: ``{k: S}``: the iterations after the k-th use S Monte Carlo
        paths (the largest k passed applies), e.g. ``{iterations // 2: 100}`` for the random-feature
        paper's switch from 1 to 100 halfway; before the first k the model's own ``num_samples``.
        The model's ``num_samples`` is unchanged afterwards.
    """
    iterations = check_positive_int("iterations", iterations)
    monitor_every = check_positive_int("monitor_every", monitor_every)
    checkpoint_every = check_positive_int("checkpoint_every", checkpoint_every)
    if not isinstance(model, DeepMixtureModel):
        raise TypeError(f"model must be a gpflow_deep model, got {type(model).__name__}")
    X, Y = as_data(data, model.input_dim, model.dtype)
    if validation_data is not None:
        validation_data = as_data(validation_data, model.input_dim, model.dtype)
    elif patience is not None or restore_best:
        raise ValueError("patience and restore_best need validation_data")
    if patience is not None:
        patience = check_positive_int("patience", patience)
    fixed_hyperparameters_for = _check_non_negative_int("fixed_hyperparameters_for", fixed_hyperparameters_for)
    schedule = _sample_schedule(model, num_samples_schedule)
    if seed is not None:
        model.rng.reset_from_seed(int(seed))

    training = training_step(
        model,
        X,
        Y,
        batch_size=batch_size,
        optimizer=optimizer or tf_keras.optimizers.Adam(learning_rate),
        natgrad_gamma=natgrad_gamma,
        seed=seed,
        jit_compile=jit_compile,
    )
    checkpoints = resume_or_start(checkpoint_dir, model, training) if checkpoint_dir is not None else None
    start = int(training.iteration.numpy())

    tasks = monitor_tasks(log_dir, model, validation_data, X.numpy()) if log_dir else []
    stopping = EarlyStopping(model, validation_data, patience) if validation_data is not None else None
    reporter = Progress(iterations, start) if progress else None
    losses: List[tf.Tensor] = []
    reported = 0
    began = time.perf_counter()
    first_step_seconds = 0.0
    for current in range(start + 1, iterations + 1):
        losses.append(training.step(current > fixed_hyperparameters_for, _scheduled(schedule, current)))
        if current == start + 1:
            first_step_seconds = time.perf_counter() - began
        if current % monitor_every == 0 or current == iterations:
            scores = dict(objective=-float(losses[-1]))
            if stopping is not None:
                scores["validation_log_density"] = stopping.check(current)
            for task in tasks:
                task(current, **scores)
        if checkpoints is not None and (current % checkpoint_every == 0 or current == iterations):
            checkpoints.save(checkpoint_number=current)
        if reporter is not None and (reporter.due(current) or (stopping is not None and stopping.should_stop)):
            reporter.report(current, -float(tf.reduce_mean(tf.stack(losses[reported:]))))
            reported = len(losses)
        if stopping is not None and stopping.should_stop:
            break
    seconds = time.perf_counter() - began
    if reporter is not None:
        reporter.close()
    best_iteration = None
    if stopping is not None and (restore_best or patience is not None):
        stopping.restore_best()
        best_iteration = stopping.best_iteration
    objectives = -np.array([float(loss) for loss in losses]) if losses else np.zeros(0)
    history = stopping.history if stopping is not None else []
    return FitResult(
        objectives, int(training.iteration.numpy()), start, seconds, first_step_seconds, history, best_iteration
    )


def _check_non_negative_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _sample_schedule(model: DeepMixtureModel, schedule: Optional[Dict[int, int]]) -> List[Tuple[int, int]]:
    """``schedule`` as sorted (after iteration, sample count) pairs, checked."""
    if not schedule:
        return []
    if not hasattr(model, "num_samples"):
        raise ValueError(f"num_samples_schedule: {type(model).__name__} has no Monte Carlo sample count")
    return sorted(
        (_check_non_negative_int("num_samples_schedule key", k), check_positive_int("num_samples_schedule value", v))
        for k, v in schedule.items()
    )


def _scheduled(schedule: List[Tuple[int, int]], iteration: int) -> Optional[int]:
    """The sample count of the 1-based ``iteration``: that of the largest k < iteration, or None."""
    counts = [count for after, count in schedule if after < iteration]
    return counts[-1] if counts else None
