"""Deterministic moment matching through a stack of layers (Bui et al. 2016).

The first layer sees fixed inputs, so its outputs are Gaussian with the layer's own marginals.
Every later layer receives a Gaussian with independent dimensions, N(mean, diag(var)), and passes
on the Gaussian matched to the first two moments of its outputs (``layer.moment_match``). The
result is one path: a single Gaussian per point, nothing sampled.
"""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.propagation.checks import check_moment_matchable
from gpflow_deep.propagation.outputs import LayerOutput, Paths
from gpflow_deep.propagation.protocol import propagation_shapes


@check_shapes("X: [N, D]")
def moment_matched_layers(layers: Sequence, X: tf.Tensor, mode: str = "posterior") -> List[LayerOutput]:
    """Every layer's matched Gaussian as a ``LayerOutput`` with one path (fields ``[1, N, D_l]``;
    ``values`` holds the mean, which is what the next layer is centred on). Every layer after the
    first must be :class:`~gpflow_deep.layers.protocol.MomentMatchable`."""
    check_moment_matchable(layers)
    mean, var = layers[0].marginals(X[None], mode=mode)
    outputs = [LayerOutput(mean, var, mean)]
    for layer in layers[1:]:
        mean, var = layer.moment_match(mean[0], var[0], mode=mode)
        mean, var = mean[None], var[None]
        outputs.append(LayerOutput(mean, var, mean))
    return outputs


class MomentMatching:
    """The rule of :func:`moment_matched_layers`: one path of weight 1, whatever the number of
    samples or the seed asked for."""

    monte_carlo = False

    @propagation_shapes
    def __call__(
        self, layers: Sequence, X: tf.Tensor, num_samples=None, seed=None, *, mode="posterior", first_row=None
    ):
        return Paths(moment_matched_layers(layers, X, mode), tf.zeros([1], X.dtype))

    def check(self, layers: Sequence) -> None:
        """Every layer after the first has a ``moment_match``."""
        check_moment_matchable(layers)

    def __repr__(self) -> str:
        return "MomentMatching()"
