"""What a propagation rule is: one call signature that every model takes, so that any rule goes
with any model whose layers it can carry."""

from typing import List, Optional, Protocol, Sequence, runtime_checkable

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.propagation.outputs import LayerOutput, Paths

propagation_shapes = check_shapes(
    "X: [N, D]",
    "seed: [2]",
    "return.outputs[all].means: [S, N, .]",
    "return.outputs[all].variances: [S, N, .]",
    "return.outputs[all][2]: [S, N, .]",
    "return.log_weights: [S]",
)
"""The shape contract of every rule's ``__call__``."""


@runtime_checkable
class Propagation(Protocol):
    """How inputs travel through a stack of layers to make S weighted paths.

    ``monte_carlo`` says whether the paths are random draws (``num_samples`` and ``seed`` then
    apply) or a fixed set (a deterministic rule ignores both). ``check(layers)`` raises a
    ValueError naming the first layer the rule cannot carry; models call it when they take a rule.
    """

    monte_carlo: bool

    def __call__(
        self,
        layers: Sequence,
        X: tf.Tensor,
        num_samples,
        seed: Optional[tf.Tensor],
        *,
        mode: str = "posterior",
        first_row: Optional[tf.Tensor] = None,
    ) -> Paths:
        """Every layer's outputs on S paths at inputs X ``[N, D]`` and the paths' log-weights.

        ``mode`` is the distribution every layer is evaluated under (``"cavity"`` for approximate
        EP's training); ``first_row`` (predictions) says that X are rows ``first_row, ...`` of a
        larger input, so that a row's noise depends on its index there only."""

    def check(self, layers: Sequence) -> None:
        """A ValueError if the rule cannot carry ``layers``."""


@runtime_checkable
class JointSampling(Protocol):
    """A rule that can also draw each path jointly over the N points (``full_cov=True``)."""

    def joint(self, layers: Sequence, X: tf.Tensor, num_samples, seed: tf.Tensor) -> List[LayerOutput]:
        """Every layer's outputs on S paths, each a draw joint over the N points."""
