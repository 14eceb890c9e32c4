"""What the propagation rules need of the layers, each a check that names the first layer lacking it."""

from typing import Sequence

from gpflow_deep.layers.protocol import FedInputLayer, JointlySampleable, MomentMatchable, SubsetOfDataLayer


def check_fed_inputs(layers: Sequence, fed_width: int) -> None:
    """Every layer after the first takes ``fed_width`` columns of fed inputs (none by default)."""
    fed = [layer.fed_input_dim if isinstance(layer, FedInputLayer) else 0 for layer in layers[1:]]
    expected = [fed_width] * len(fed)
    if fed != expected:
        raise ValueError(f"layers after the first need fed_input_dim {expected}, got {fed}")


def check_drawing_nothing(layers: Sequence, rule: str) -> None:
    """No layer draws randomness of its own on every path (for deterministic rules)."""
    for index, layer in enumerate(layers):
        if layer.path_dependent:
            raise ValueError(
                f"{rule} is deterministic, but layers[{index}] ({type(layer).__name__}) "
                "draws randomness of its own on every path"
            )


def check_moment_matchable(layers: Sequence) -> None:
    """Every layer after the first can match the moments of its outputs for Gaussian inputs."""
    for index, layer in enumerate(layers[1:], start=1):
        if not isinstance(layer, MomentMatchable):
            raise ValueError(f"moment matching: layers[{index}] ({type(layer).__name__}) has no moment_match")


def check_jointly_sampleable(layers: Sequence) -> None:
    """Every layer has a joint covariance over the points and draws nothing of its own."""
    for index, layer in enumerate(layers):
        if not isinstance(layer, JointlySampleable) or layer.path_dependent:
            raise ValueError(f"full_cov: layers[{index}] ({type(layer).__name__}) has no joint covariance to sample")


def check_subset_layers(layers: Sequence, num_subset: int) -> None:
    """Every layer is a subset-of-data layer of ``num_subset`` rows."""
    for index, layer in enumerate(layers):
        if not isinstance(layer, SubsetOfDataLayer) or layer.num_subset != num_subset:
            raise ValueError(f"layers[{index}] is not a subset layer of M={num_subset} rows")
