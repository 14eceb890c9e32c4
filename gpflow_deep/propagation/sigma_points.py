"""Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3)."""

from typing import List, Sequence

import tensorflow as tf
from check_shapes import check_shapes

from gpflow_deep.propagation.outputs import LayerOutput, broadcast_paths


@check_shapes(
    "X: [N, D]",
    "sigma_points[all]: [S, .]",
)
def sigma_point_layers(layers: Sequence, sigma_points: Sequence[tf.Tensor], X: tf.Tensor) -> List[LayerOutput]:
    """Deterministic sigma-point propagation (Jankowiak et al. 2020, rule QR3).

    Path s passes ``g = mean + ξ_l^(s) ⊙ sqrt(var)`` from hidden layer l to the next, with the
    same site s in every layer, so that S paths stay S (never S^W). ``sigma_points`` holds one
    ``[S, W_l]`` array per hidden layer (all layers but the last); the last layer passes on its mean.
    Nothing is drawn, so layers that draw randomness per path are refused.
    """
    if len(sigma_points) != len(layers) - 1:
        raise ValueError(f"need one set of sigma points per hidden layer ({len(layers) - 1}), got {len(sigma_points)}")
    for index, layer in enumerate(layers):
        if layer.path_dependent:
            raise ValueError(
                f"sigma-point propagation is deterministic, but layers[{index}] ({type(layer).__name__}) "
                "draws randomness of its own on every path"
            )
    num_paths = tf.shape(sigma_points[0])[0] if sigma_points else 1
    inputs = X[None]
    outputs = []
    for layer, points in zip(layers, list(sigma_points) + [None]):
        mean, var = layer.marginals(inputs)
        values = mean if points is None else mean + points[:, None, :] * tf.sqrt(var)
        mean, var = broadcast_paths(mean, var, num_paths)
        outputs.append(LayerOutput(mean, var, tf.broadcast_to(values, tf.shape(mean))))
        inputs = values
    return outputs
