"""Training under a ``tf.distribute.Strategy``: checks that the model and optimizer belong to it,
the split of a global batch over its replicas, and where each worker keeps its checkpoints.

The update itself is :func:`gpflow_deep.training.step.distributed_update`; ``docs/scaling.md``
explains the set-up (``MirroredStrategy`` over local devices, ``MultiWorkerMirroredStrategy``
across processes).
"""

import os
from typing import Optional, Tuple

import tensorflow as tf


def check_distributed(
    model, optimizer, strategy, *, natgrad_gamma: Optional[float], jit_compile: bool, batch_rows: Optional[int]
) -> None:
    """A TypeError or ValueError unless ``strategy`` is a ``tf.distribute.Strategy`` under whose
    scope the model's variables (and its random generator) and the optimizer were created, a batch
    of ``batch_rows`` (None: not known before training) has a row for every replica, and the run
    asks for nothing the distributed step lacks (natural gradients, XLA)."""
    if not isinstance(strategy, tf.distribute.Strategy):
        raise TypeError(f"strategy must be a tf.distribute.Strategy, got {type(strategy).__name__}")
    replicas = strategy.num_replicas_in_sync
    if batch_rows is not None and batch_rows < replicas:
        raise ValueError(
            f"batch_size: a batch of {batch_rows} rows cannot be split over the strategy's {replicas} replicas; "
            f"give at least {replicas} rows"
        )
    if natgrad_gamma is not None:
        raise ValueError("natgrad_gamma: natural-gradient steps are not available with a strategy; leave it None")
    if jit_compile:
        raise ValueError("jit_compile: the distributed step is not compiled with XLA; leave jit_compile=False")
    variables = list(model.variables) + [model.rng.state]
    foreign = [v.name for v in variables if not strategy.extended.variable_created_in_scope(v)]
    if foreign:
        raise ValueError(
            f"model: {len(foreign)} of its {len(variables)} variables (e.g. {foreign[0]}) were not created under "
            f"this {type(strategy).__name__}'s scope; build the model inside `with strategy.scope():` so that "
            "its variables are mirrored on every replica"
        )
    if not strategy.extended.variable_created_in_scope(optimizer.iterations):
        raise ValueError(
            f"optimizer: this {type(optimizer).__name__} was created outside the strategy's scope; create it "
            "inside `with strategy.scope():` (or leave optimizer=None)"
        )


def mirror_trainable_flags(model, strategy: tf.distribute.Strategy) -> None:
    """Make ``gpflow.set_trainable`` hold for distributed variables: it writes the flag on the
    variable object, but a mirrored variable reports the flag of its per-replica components, so
    the flag is copied to them (otherwise a parameter held fixed would be trained under a strategy)."""
    for variable in model.variables:
        flag = vars(variable).get("_trainable")
        if flag is not None and flag != variable.trainable:
            for component in strategy.experimental_local_results(variable):
                component._trainable = flag


def split_over_replicas(strategy: tf.distribute.Strategy, X: tf.Tensor, Y: tf.Tensor) -> Tuple:
    """X ``[B, D]`` and Y ``[B, P]`` as per-replica values: replica r of R takes rows
    ``[r B // R, (r + 1) B // R)`` (shards differ by at most a row). B must be at least R."""
    size = tf.shape(X)[0]
    replicas = strategy.num_replicas_in_sync
    tf.debugging.assert_greater_equal(
        size,
        replicas,
        message=f"fit: a batch must have at least one row per replica ({replicas}); give larger batches",
    )

    def rows(context: tf.distribute.experimental.ValueContext) -> slice:
        replica = context.replica_id_in_sync_group
        return slice(replica * size // replicas, (replica + 1) * size // replicas)

    distribute = strategy.experimental_distribute_values_from_function
    return distribute(lambda context: X[rows(context)]), distribute(lambda context: Y[rows(context)])


def checkpoint_directory(checkpoint_dir: Optional[str], strategy: Optional[tf.distribute.Strategy]) -> Optional[str]:
    """Where this process keeps its checkpoints: ``checkpoint_dir`` on the chief (or without a
    multi-worker strategy), ``checkpoint_dir/worker_<task id>`` on the other workers, so that no two
    processes write the same files."""
    if checkpoint_dir is None or strategy is None or strategy.extended.should_checkpoint:
        return checkpoint_dir
    resolver = strategy.cluster_resolver
    return os.path.join(checkpoint_dir, f"{resolver.task_type}_{resolver.task_id}")
