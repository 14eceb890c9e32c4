"""Sampled propagation that carries a subset of the training inputs ahead of the inputs, [X_S; X]
(Jain, Srijith & Khan 2021, eqs. 15-16)."""

from typing import List, Optional, Sequence

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import TensorType

from gpflow_deep.core.row_noise import independent_noise, row_keyed_noise
from gpflow_deep.propagation.checks import check_subset_layers
from gpflow_deep.propagation.outputs import LayerOutput, Paths, uniform_log_weights
from gpflow_deep.propagation.protocol import propagation_shapes
from gpflow_deep.propagation.sampled import sample_layers


class SubsetFirst:
    """:func:`~gpflow_deep.propagation.sample_layers` on [X_S; X]: every path carries the subset's
    M rows first, so that at every layer the first M rows are that path's inducing inputs (the
    fixed X_S at layer 1, the subset's own samples from the layer below above it). The paths
    returned are the rows of X alone, of equal weight.

    :param subset_inputs: X_S ``[M, D]`` (a model's parameter: the rule holds it, the model tracks it).
    """

    monte_carlo = True

    def __init__(self, subset_inputs: TensorType):
        self.subset_inputs = subset_inputs

    @property
    def num_subset(self) -> int:
        """M, the subset size."""
        return int(self.subset_inputs.shape[0])

    @check_shapes(
        "X: [N, D]",
        "return: [M_plus_N, D]",
    )
    def with_subset(self, X: tf.Tensor) -> tf.Tensor:
        """[X_S; X]: the subset's rows first."""
        return tf.concat([tf.convert_to_tensor(self.subset_inputs), X], axis=0)

    @check_shapes(
        "X: [N, D]",
        "seed: [2]",
    )
    def carried(
        self,
        layers: Sequence,
        X: tf.Tensor,
        num_samples,
        seed: tf.Tensor,
        mode: str = "posterior",
        first_row: Optional[tf.Tensor] = None,
    ) -> List[LayerOutput]:
        """Every layer's outputs on S paths at all M + N rows of [X_S; X]. With ``first_row``
        (predictions) the subset's rows and X's are keyed apart, X's by their index from ``first_row``."""
        noise = independent_noise
        if first_row is not None:
            noise = row_keyed_noise([(0, self.num_subset), (first_row, tf.shape(X)[0])])
        return sample_layers(layers, self.with_subset(X), num_samples, seed, mode, noise)

    @propagation_shapes
    def __call__(
        self, layers: Sequence, X: tf.Tensor, num_samples, seed: tf.Tensor, *, mode="posterior", first_row=None
    ):
        M = self.num_subset
        outputs = self.carried(layers, X, num_samples, seed, mode, first_row)
        rows = [LayerOutput(*(field[:, M:] for field in output)) for output in outputs]
        return Paths(rows, uniform_log_weights(num_samples, X.dtype))

    def check(self, layers: Sequence) -> None:
        """Every layer is a subset-of-data layer of M rows."""
        check_subset_layers(layers, self.num_subset)

    def __repr__(self) -> str:
        return f"SubsetFirst(num_subset={self.num_subset})"
