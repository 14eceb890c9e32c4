"""Training: the ``fit`` helper, its TensorBoard tasks and its progress line."""

from .checkpoints import restore_checkpoint
from .fit import FitResult, fit
from .fused_adam import FusedAdam
from .monitoring import monitor_tasks

__all__ = ["FitResult", "FusedAdam", "fit", "monitor_tasks", "restore_checkpoint"]
