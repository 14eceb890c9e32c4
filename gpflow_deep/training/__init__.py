"""Training: the ``fit`` helper, its TensorBoard tasks and its progress line."""

from gpflow_deep.training.checkpoints import restore_checkpoint
from gpflow_deep.training.fit import FitResult, fit
from gpflow_deep.training.fused_adam import FusedAdam
from gpflow_deep.training.monitoring import monitor_tasks

__all__ = ["FitResult", "FusedAdam", "fit", "monitor_tasks", "restore_checkpoint"]
