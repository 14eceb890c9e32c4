"""Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3)."""

from typing import List, Optional, Sequence

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import TensorType

from gpflow_deep.propagation.checks import check_drawing_nothing
from gpflow_deep.propagation.outputs import LayerOutput, Paths, broadcast_paths
from gpflow_deep.propagation.protocol import propagation_shapes


@check_shapes(
    "X: [N, D]",
    "sigma_points[all]: [S, .]",
)
def sigma_point_layers(
    layers: Sequence, sigma_points: Sequence[tf.Tensor], X: tf.Tensor, mode: str = "posterior"
) -> List[LayerOutput]:
    """Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3).

    Path s passes ``g = mean + ξ_l^(s) ⊙ sqrt(var)`` from hidden layer l to the next, with the
    same site s in every layer, so that S paths stay S (never S^W). ``sigma_points`` holds one
    ``[S, W_l]`` array per hidden layer (all layers but the last); the last layer passes on its mean.
    Nothing is drawn, so layers that draw randomness per path are refused.
    """
    check_sigma_point_sets(layers, sigma_points)
    num_paths = tf.shape(sigma_points[0])[0] if sigma_points else 1
    inputs = X[None]
    outputs = []
    for layer, points in zip(layers, list(sigma_points) + [None]):
        mean, var = layer.marginals(inputs, mode=mode)
        values = mean if points is None else mean + points[:, None, :] * tf.sqrt(var)
        mean, var = broadcast_paths(mean, var, num_paths)
        outputs.append(LayerOutput(mean, var, tf.broadcast_to(values, tf.shape(mean))))
        inputs = values
    return outputs


def check_sigma_point_sets(layers: Sequence, sigma_points: Sequence) -> None:
    """One set of sigma points per hidden layer, and no layer that draws per path."""
    if len(sigma_points) != len(layers) - 1:
        raise ValueError(f"sigma_points: need one array per hidden layer ({len(layers) - 1}), got {len(sigma_points)}")
    check_drawing_nothing(layers, "sigma-point propagation")


def sigma_point_count(layers: Sequence, sigma_points: Sequence, num_weights: Optional[int] = None) -> int:
    """S, after checking that ``sigma_points`` are one ``[S, W_l]`` array per hidden layer of width
    W_l, all with the S of the ``num_weights`` weights when given (which fix S for one layer)."""
    check_sigma_point_sets(layers, sigma_points)
    sizes = set() if num_weights is None else {num_weights}
    for index, (points, layer) in enumerate(zip(sigma_points, layers)):
        shape = tuple(np.shape(points) if isinstance(points, (list, tuple)) else points.shape)
        if len(shape) != 2 or shape[1] != layer.output_dim:
            raise ValueError(
                f"sigma_points[{index}] must be [S, {layer.output_dim}] (the layer's width), got shape {shape}"
            )
        sizes.add(shape[0])
    if len(sizes) > 1:
        raise ValueError(f"sigma_points and weights disagree on the number of sigma points: {sorted(sizes)}")
    if not sizes:
        raise ValueError("a one-layer DSPP needs weights to fix the number of (identical) components")
    return sizes.pop()


class SigmaPoints:
    """The rule of :func:`sigma_point_layers` with S paths weighted w ∝ exp(``weight_logits``).

    :param points: one ``[S, W_l]`` set of sigma points ξ per hidden layer (arrays, or the
        parameters of a model that learns them: the rule holds them, the model tracks them).
    :param weight_logits: ``[S]`` unnormalised log-weights of the paths.
    """

    monte_carlo = False

    def __init__(self, points: Sequence[TensorType], weight_logits: TensorType):
        self.points, self.weight_logits = list(points), weight_logits

    @property
    def num_paths(self) -> int:
        """S, the number of sigma points (mixture components)."""
        return int(self.weight_logits.shape[0])

    @check_shapes("return: [S]")
    def log_weights(self) -> tf.Tensor:
        """``[S]`` log mixture weights (a log-softmax of the logits)."""
        return tf.nn.log_softmax(self.weight_logits)

    @propagation_shapes
    def __call__(
        self, layers: Sequence, X: tf.Tensor, num_samples=None, seed=None, *, mode="posterior", first_row=None
    ):
        outputs = sigma_point_layers(layers, self.points, X, mode)
        if not self.points:  # one layer: S identical paths
            outputs = [
                LayerOutput(*(tf.repeat(field[:1], self.num_paths, axis=0) for field in output)) for output in outputs
            ]
        return Paths(outputs, self.log_weights())

    def check(self, layers: Sequence) -> None:
        """One ``[S, W_l]`` set of sigma points per hidden layer, and no layer drawing per path."""
        sigma_point_count(layers, self.points, self.num_paths)

    def __repr__(self) -> str:
        return f"SigmaPoints(num_paths={self.num_paths})"
