"""Training: the ``fit`` helper, its TensorBoard tasks and its progress line."""

from .checkpoints import restore_checkpoint
from .fit import FitResult, fit
from .monitoring import monitor_tasks

__all__ = ["FitResult", "fit", "monitor_tasks", "restore_checkpoint"]
