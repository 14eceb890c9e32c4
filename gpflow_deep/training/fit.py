"""``fit``: train a deep model with minibatches, any TensorFlow optimizer, TensorBoard and
checkpoints, the whole step compiled as one ``tf.function``."""

import contextlib
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import tensorflow as tf
from gpflow.keras import tf_keras

from gpflow_deep.core.numerics import is_factorisation_error
from gpflow_deep.core.validation import (
    as_model_data,
    check_choice,
    check_non_negative_int,
    check_positive,
    check_positive_int,
    check_seed,
)
from gpflow_deep.models import DeepMixtureModel
from gpflow_deep.training.checkpoints import resume_or_start
from gpflow_deep.training.data import check_training_data, training_inputs
from gpflow_deep.training.distributed import checkpoint_directory
from gpflow_deep.training.early_stopping import EarlyStopping
from gpflow_deep.training.fused_adam import FusedAdam
from gpflow_deep.training.monitoring import monitor_tasks
from gpflow_deep.training.nonfinite import ON_NONFINITE, NonFiniteGuard, Rollback
from gpflow_deep.training.progress import Progress
from gpflow_deep.training.step import training_step


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
    :ivar rollbacks: with ``on_nonfinite="rollback"``, every recovery from a non-finite step.
    """

    objectives: np.ndarray
    iterations: int
    resumed_from: int
    seconds: float
    first_step_seconds: float
    validation: List[Tuple[int, float]] = field(default_factory=list)
    best_iteration: Optional[int] = None
    rollbacks: List[Rollback] = field(default_factory=list)

    @property
    def seconds_per_iteration(self) -> float:
        """Mean time of the steps after the first (compilation excluded)."""
        steps = len(self.objectives) - 1
        return (self.seconds - self.first_step_seconds) / steps if steps > 0 else float("nan")


def fit(
    model: DeepMixtureModel,
    data: Union[Tuple[np.ndarray, np.ndarray], tf.data.Dataset],
    iterations: Optional[int] = 1000,
    *,
    batch_size: Optional[int] = None,
    optimizer: Optional[tf_keras.optimizers.Optimizer] = None,
    learning_rate: Optional[float] = None,
    anneal: Union[bool, float, None] = None,
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
    time_budget: Optional[float] = None,
    fixed_hyperparameters_for: int = 0,
    num_samples_schedule: Optional[Dict[int, int]] = None,
    on_nonfinite: str = "stop",
    strategy: Optional[tf.distribute.Strategy] = None,
) -> FitResult:
    """Maximise the model's objective for ``iterations`` steps in total.

    :param model: a model of this package.
    :param data: the training pair (X ``[N, D]``, Y ``[N, P]``), or a ``tf.data.Dataset`` of
        batches (X ``[B, D]``, Y ``[B, P]``) streamed from disk (e.g. :func:`gpflow_deep.training.data.csv_dataset`)
        and repeated when exhausted; the model's ``num_data`` is N. A dataset is checked from its
        element spec and its first batch (see ``docs/scaling.md``).
    :param iterations: the step count to reach; a run resumed from a checkpoint does the rest.
        None with a ``time_budget``: as many steps as fit in it.
    :param batch_size: minibatch size (shuffled every epoch through ``tf.data``); None or at
        least N for full batch. None for a dataset, which brings its own batches.
    :param optimizer: any ``tf_keras`` optimizer; by default Adam with ``learning_rate``
        (:class:`~gpflow_deep.training.FusedAdam`, Keras's Adam with one fused update per variable).
    :param learning_rate: Adam's step size; None: the model's ``default_learning_rate`` (0.01;
        ``AEPDGP``'s and ``RandomFeatureDGP``'s 0.003).
    :param anneal: the share of Adam's step taken away by the last iteration, along a half cosine
        (Keras's ``CosineDecay``): step k of n is r · (1 − a + a · (1 + cos(πk/n)) / 2) for the
        learning rate r and share a. 0 or False: a constant step; 1 or True: down to zero; 0.7: down
        to 0.3 r. It follows the optimizer's own step count, so a run resumed with the same
        ``iterations`` carries on along it (one resumed with more anneals again over the new total).
        None: the model's ``default_anneal`` (0; ``AEPDGP``'s and ``RandomFeatureDGP``'s 0.7) when
        ``fit`` makes its own Adam and has ``iterations``, else 0. A share above 0 needs both. See
        ``docs/training.md`` for where it helps and where it hurts.
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
    :param progress: print a progress line with the running objective, the speed in steps and
        rows per second and the time left.
    :param time_budget: stop after the first step that ends this many seconds (wall time) after
        the loop began, if ``iterations`` are not done by then.
    :param fixed_hyperparameters_for: hold the hyperparameters (kernels, mean functions,
        likelihood: everything but the variational parameters) fixed for the first this many
        iterations (Cutajar et al. 2017 use 12,000).
    :param num_samples_schedule: ``{k: S}``: the iterations after the k-th use S Monte Carlo
        paths (the largest k passed applies), e.g. ``{iterations // 2: 100}`` for the random-feature
        paper's switch from 1 to 100 halfway; before the first k the model's own ``num_samples``.
        The model's ``num_samples`` is unchanged afterwards.
    :param on_nonfinite: what a step whose objective or gradients are NaN/Inf (or whose Cholesky
        factorisation fails) does: ``"stop"`` puts back the last good state (taken at most
        ``2 × SNAPSHOT_EVERY`` steps earlier) and raises a ``gpflow_deep.core.numerics.NumericalError``
        naming the iteration and, where it can be found, the layer; ``"rollback"`` puts it back,
        halves the learning rate (and ``natgrad_gamma``) and carries on (``FitResult.rollbacks``; at most
        ``MAX_ROLLBACKS``).
    :param strategy: a ``tf.distribute.Strategy`` (``MirroredStrategy``,
        ``MultiWorkerMirroredStrategy``) under whose scope the model (and a given optimizer) were
        built: each batch is the global batch, split over the replicas, and the objective and
        gradients are those of one device on that batch (see ``docs/scaling.md``). Non-chief workers
        keep their checkpoints in ``checkpoint_dir/worker_<task id>``.

    Every argument is checked before any training: data against the model (widths, float type,
    targets its likelihood can score), ``num_data`` against a batch, a checkpoint against the model.
    A run with ``checkpoint_dir`` and ``seed`` that is killed and started again with the same
    arguments ends with exactly the parameters of an uninterrupted one.
    """
    if iterations is not None or time_budget is None:
        iterations = check_positive_int("iterations", iterations)
    monitor_every = check_positive_int("monitor_every", monitor_every)
    checkpoint_every = check_positive_int("checkpoint_every", checkpoint_every)
    if not isinstance(model, DeepMixtureModel):
        raise TypeError(f"model must be a gpflow_deep model, got {type(model).__name__}")
    data = check_training_data(data, model, batch_size)
    X = training_inputs(data)  # in memory, or a stream's first batch: for diagnoses and plots
    if validation_data is not None:
        validation_data = as_model_data(validation_data, model, "validation_data")
    elif patience is not None or restore_best:
        raise ValueError("patience and restore_best need validation_data")
    if patience is not None:
        patience = check_positive_int("patience", patience)
    if time_budget is not None:
        time_budget = check_positive("time_budget", time_budget)
    fixed_hyperparameters_for = check_non_negative_int("fixed_hyperparameters_for", fixed_hyperparameters_for)
    schedule = _sample_schedule(model, num_samples_schedule)
    on_nonfinite = check_choice("on_nonfinite", on_nonfinite, ON_NONFINITE)
    seed = check_seed("seed", seed)
    anneal = anneal_for(model, anneal, iterations, optimizer)
    with strategy.scope() if strategy is not None else contextlib.nullcontext():
        optimizer = _checked_optimizer(optimizer, learning_rate_for(model, learning_rate), anneal, iterations)
    checkpoint_dir = checkpoint_directory(checkpoint_dir, strategy)
    if seed is not None:
        model.rng.reset_from_seed(seed)

    training = training_step(
        model,
        data,
        batch_size=batch_size,
        optimizer=optimizer,
        natgrad_gamma=natgrad_gamma,
        seed=seed,
        jit_compile=jit_compile,
        strategy=strategy,
        checkpointed=checkpoint_dir is not None,
    )
    stopping = EarlyStopping(model, validation_data, patience) if validation_data is not None else None
    checkpoints = None
    if checkpoint_dir is not None:
        more = {} if stopping is None else dict(early_stopping=stopping.state)
        checkpoints = resume_or_start(checkpoint_dir, model, training, **more)
    start = int(training.iteration.numpy())
    guard = NonFiniteGuard(model, training, on_nonfinite, X[: model.prediction_batch_size])

    tasks = monitor_tasks(log_dir, model, validation_data, X.numpy()) if log_dir else []
    rows_per_step = int(X.shape[0]) if batch_size is None else min(batch_size, int(X.shape[0]))
    reporter = Progress(iterations, start, rows_per_step=rows_per_step, time_budget=time_budget) if progress else None
    losses: List[tf.Tensor] = []
    reported = 0
    began = time.perf_counter()
    first_step_seconds = 0.0
    current = start
    while iterations is None or current < iterations:
        current += 1
        guard.before_step(current)
        loss, failure = _run_step(training, current > fixed_hyperparameters_for, _scheduled(schedule, current))
        if current == start + 1 and not first_step_seconds:
            first_step_seconds = time.perf_counter() - began
        if failure:
            current = guard.recover(current, failure)
            del losses[current - start :]
            reported = min(reported, len(losses))
            continue
        guard.step_was_finite()
        losses.append(loss)
        out_of_time = time_budget is not None and time.perf_counter() - began >= time_budget
        last = current == iterations or out_of_time
        if current % monitor_every == 0 or last:
            scores = dict(objective=-float(losses[-1]))
            if stopping is not None:
                scores["validation_log_density"] = stopping.check(current)
            for task in tasks:
                task(current, **scores)
        if checkpoints is not None and (current % checkpoint_every == 0 or last):
            checkpoints.save(checkpoint_number=current)
        stop = last or (stopping is not None and stopping.should_stop)
        if reporter is not None and (reporter.due(current) or stop):
            reporter.report(current, -float(tf.reduce_mean(tf.stack(losses[reported:]))))
            reported = len(losses)
        if stop:
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
        objectives,
        int(training.iteration.numpy()),
        start,
        seconds,
        first_step_seconds,
        history,
        best_iteration,
        guard.rollbacks,
    )


def _run_step(training, train_hyperparameters: bool, num_samples: Optional[int]) -> Tuple[Optional[tf.Tensor], str]:
    """One step: its loss, and what went wrong ("" if its objective and gradients were finite)."""
    try:
        loss, finite = training.step(train_hyperparameters, num_samples)
    except tf.errors.InvalidArgumentError as error:
        if not is_factorisation_error(error):
            raise
        return None, f"a matrix factorisation failed ({error.message.splitlines()[0]})"
    if bool(finite):
        return loss, ""
    value = float(loss)
    return loss, f"the objective was {value}" if not np.isfinite(value) else "a gradient was NaN or Inf"


def learning_rate_for(model: DeepMixtureModel, learning_rate: Optional[float]) -> float:
    """The step size :func:`fit`'s Adam takes: ``learning_rate``, or when None the model's
    ``default_learning_rate``."""
    return model.default_learning_rate if learning_rate is None else learning_rate


def anneal_for(
    model: DeepMixtureModel, anneal: Union[bool, float, None], iterations: Optional[int], optimizer=None
) -> float:
    """The share of Adam's step :func:`fit` anneals away (0: a constant step): ``anneal`` checked (a
    bool or a number in [0, 1]; above 0 only with ``iterations`` and no ``optimizer``), or when None
    the model's ``default_anneal`` where it can apply."""
    if anneal is None:
        return float(model.default_anneal) if optimizer is None and iterations is not None else 0.0
    if not isinstance(anneal, (bool, int, float, np.integer, np.floating)):
        raise TypeError(f"anneal must be a bool or a share of the step in [0, 1], got {anneal!r}")
    share = float(anneal)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"anneal must be a share of the step in [0, 1], got {anneal!r}")
    if share and (optimizer is not None or iterations is None):
        given = "an optimizer (give it its own schedule)" if optimizer is not None else "iterations=None"
        raise ValueError(f"anneal={anneal!r} needs the iterations to anneal over and fit's own Adam, got {given}")
    return share


def _checked_optimizer(
    optimizer, learning_rate: float, anneal: float = 0.0, iterations: Optional[int] = None
) -> tf_keras.optimizers.Optimizer:
    """``optimizer`` if it is a ``tf_keras`` one, else Adam (fused) with a positive ``learning_rate``,
    the share ``anneal`` of it taken away along a half cosine over ``iterations``."""
    if optimizer is None:
        learning_rate = check_positive("learning_rate", learning_rate)
        if anneal:
            schedule = tf_keras.optimizers.schedules.CosineDecay(learning_rate, iterations, alpha=1.0 - anneal)
            return FusedAdam(schedule)
        return FusedAdam(learning_rate)
    if not isinstance(optimizer, (tf_keras.optimizers.Optimizer, tf_keras.optimizers.legacy.Optimizer)):
        raise TypeError(
            "optimizer must be a tf_keras optimizer (from gpflow.keras import tf_keras; "
            f"tf_keras.optimizers.Adam(0.01)), got {type(optimizer).__name__}"
        )
    return optimizer


def _sample_schedule(model: DeepMixtureModel, schedule: Optional[Dict[int, int]]) -> List[Tuple[int, int]]:
    """``schedule`` as sorted (after iteration, sample count) pairs, checked."""
    if not schedule:
        return []
    if not hasattr(model, "num_samples"):
        raise ValueError(f"num_samples_schedule: {type(model).__name__} has no Monte Carlo sample count")
    return sorted(
        (check_non_negative_int("num_samples_schedule key", k), check_positive_int("num_samples_schedule value", v))
        for k, v in schedule.items()
    )


def _scheduled(schedule: List[Tuple[int, int]], iteration: int) -> Optional[int]:
    """The sample count of the 1-based ``iteration``: that of the largest k < iteration, or None."""
    counts = [count for after, count in schedule if after < iteration]
    return counts[-1] if counts else None
