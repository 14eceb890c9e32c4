"""Snapshots of everything a training step changes, to put back after a failed step or restore."""

from typing import List

import tensorflow as tf


def training_variables(model, optimizer, iteration: tf.Variable) -> List[tf.Variable]:
    """The model's variables, its generator state, the optimizer's variables and the iteration count."""
    optimizer_variables = optimizer.variables
    if callable(optimizer_variables) and not isinstance(optimizer_variables, list):
        optimizer_variables = optimizer_variables()  # the legacy optimizers' method
    return list(model.variables) + [model.rng.state] + list(optimizer_variables) + [iteration]


def model_variables(model) -> List[tf.Variable]:
    """The model's variables and its generator state."""
    return list(model.variables) + [model.rng.state]


class Snapshot:
    """The values of ``variables`` now, as NumPy copies; :meth:`restore` assigns them back.

    :ivar iteration: the iteration count the snapshot was taken at (given by the caller).
    """

    def __init__(self, variables: List[tf.Variable], iteration: int = 0):
        self.variables = variables
        self.values = [variable.numpy() for variable in variables]
        self.iteration = iteration

    def restore(self) -> None:
        for variable, value in zip(self.variables, self.values):
            variable.assign(value)
