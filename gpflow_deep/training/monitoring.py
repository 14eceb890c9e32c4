"""TensorBoard monitoring of a deep model with ``gpflow.monitor`` tasks.

:func:`monitor_tasks` returns plain ``gpflow.monitor`` tasks, so they work in a user's own loop::

    monitor = gpflow.monitor.Monitor(MonitorTaskGroup(monitor_tasks("logs", model), period=100))
    monitor(step, objective=value)
"""

import warnings
from typing import Callable, List, Optional, Tuple

import numpy as np
import tensorflow as tf
from gpflow.monitor import ImageToTensorBoard, ModelToTensorBoard, MonitorTask, ScalarToTensorBoard

from gpflow_deep.models import DeepMixtureModel

MAX_LOGGED_PARAMETER_SIZE = 32  # vectors up to this size (lengthscales) are logged entry by entry


def monitor_tasks(
    log_dir: str,
    model: DeepMixtureModel,
    validation_data: Optional[Tuple[np.ndarray, np.ndarray]] = None,
    training_inputs: Optional[np.ndarray] = None,
) -> List[MonitorTask]:
    """Tasks writing to ``log_dir``:

    - ``objective``: the training objective, passed as ``monitor(step, objective=value)``;
    - ``<name>/layer_<l>``: every scalar a layer offers (``monitored_scalars``: ``kl`` for a GP layer);
    - every kernel and likelihood parameter (the first ``MAX_LOGGED_PARAMETER_SIZE`` entries of
      a vector such as ARD lengthscales);
    - with ``validation_data``: ``validation/log_density`` (mean per point) and ``validation/rmse``;
    - for 1-D inputs (given ``training_inputs`` and matplotlib): an image ``predictive``.
    """
    tasks: List[MonitorTask] = [
        ScalarToTensorBoard(log_dir, _passed_objective, "objective"),
        ModelToTensorBoard(
            log_dir,
            model,
            max_size=MAX_LOGGED_PARAMETER_SIZE,
            keywords_to_monitor=["kernel", "likelihood"],
        ),
    ]
    for index, layer in enumerate(model.layers):
        for name, scalar in layer.monitored_scalars().items():
            tasks.append(ScalarToTensorBoard(log_dir, _ignoring_arguments(scalar), f"{name}/layer_{index}"))
    if validation_data is not None:
        tasks.extend(_validation_tasks(log_dir, model, validation_data))
    if training_inputs is not None and model.input_dim == 1:
        image = _predictive_image_task(log_dir, model, np.asarray(training_inputs))
        if image is not None:
            tasks.append(image)
    return tasks


def _passed_objective(objective: float, **_) -> float:
    return objective


def _ignoring_arguments(scalar: Callable[[], tf.Tensor]) -> Callable[..., tf.Tensor]:
    return lambda **_: scalar()


def _validation_tasks(log_dir: str, model: DeepMixtureModel, data) -> List[MonitorTask]:
    X, Y = data

    def log_density(validation_log_density: Optional[float] = None, **_) -> float:
        """The score ``fit`` computed for early stopping, or a fresh one."""
        if validation_log_density is not None:
            return validation_log_density
        return float(tf.reduce_mean(model.predict_log_density((X, Y))))

    return [
        ScalarToTensorBoard(log_dir, log_density, "validation/log_density"),
        ScalarToTensorBoard(
            log_dir,
            lambda **_: tf.sqrt(tf.reduce_mean(tf.square(model.predict_y(X)[0] - Y))),
            "validation/rmse",
        ),
    ]


def _predictive_image_task(log_dir: str, model: DeepMixtureModel, X: np.ndarray) -> Optional[MonitorTask]:
    try:
        import matplotlib

        matplotlib.use("Agg")
    except ImportError:
        warnings.warn("matplotlib is not installed: the TensorBoard image of the predictive is skipped")
        return None
    low, high = float(X.min()), float(X.max())
    margin = 0.1 * (high - low or 1.0)
    grid = np.linspace(low - margin, high + margin, 200)[:, None]

    def plot(fig, axes):
        samples = model.predict_f_samples(grid, num_samples=20).numpy()[..., 0]
        mean, var = (v.numpy()[:, 0] for v in model.predict_y(grid))
        axes.fill_between(grid[:, 0], mean - 2 * np.sqrt(var), mean + 2 * np.sqrt(var), alpha=0.2)
        axes.plot(grid[:, 0], mean, lw=2)
        axes.plot(grid[:, 0], samples.T, lw=0.5, alpha=0.5, color="k")
        axes.set_xlabel("x")
        axes.set_title("predictive mean ± 2 sd of y, with samples of f")

    return ImageToTensorBoard(log_dir, plot, "predictive")
