"""The layer stack every builder starts from: widths, inducing inputs, linear means, kernels,
inner-layer noise and ``q_sqrt`` scale. A builder says only what its paper does differently."""

from dataclasses import dataclass
from typing import Callable, List, NamedTuple, Optional, Tuple

import gpflow
import numpy as np
from gpflow.base import Parameter
from gpflow.config import default_float
from gpflow.inducing_variables import InducingPoints
from gpflow.kernels import Kernel
from gpflow.mean_functions import MeanFunction

from gpflow_deep.builders.initialisation import (
    inducing_count,
    initial_inducing_inputs,
    linear_means,
    scaled_prior_q_sqrt,
)
from gpflow_deep.builders.preparation import BuilderData, hidden_width
from gpflow_deep.layers import GPLayer

KernelFactory = Callable[[int, int], Kernel]  # (layer index, input width) -> kernel


def rbf_factory(variance: float, lengthscale: float, ard: bool = True) -> KernelFactory:
    """RBF kernels of ``variance`` and ``lengthscale``: one lengthscale per input (``ard``) or one for all."""

    def make(_: int, input_width: int) -> Kernel:
        lengthscales = [lengthscale] * input_width if ard else lengthscale
        return gpflow.kernels.SquaredExponential(variance=variance, lengthscales=lengthscales)

    return make


class LayerPlan(NamedTuple):
    """What one layer of a stack is set up with, before any layer object exists.

    :ivar index: the layer's position, 0 for the input layer.
    :ivar input_dim: its input width.
    :ivar output_dim: its output width.
    :ivar inducing_inputs: ``[M, input_dim]``: the k-means centres carried through the linear
        means below, as the data is.
    :ivar mean_function: the linear mean of a hidden layer (None on the last).
    :ivar hidden: whether the layer feeds another one.
    """

    index: int
    input_dim: int
    output_dim: int
    inducing_inputs: np.ndarray
    mean_function: Optional[MeanFunction]
    hidden: bool


def plan_stack(
    X: np.ndarray, Z: np.ndarray, output_dim: int, num_layers: int, hidden_width: int, trainable_means: bool
) -> List[LayerPlan]:
    """``num_layers`` layers from X's width to ``output_dim`` through hidden layers of
    ``hidden_width``, each hidden one with the linear mean of Salimbeni & Deisenroth (2017; fixed,
    or learned from that start with ``trainable_means``)."""
    widths = [hidden_width] * (num_layers - 1)
    means, inducing = linear_means(X, Z, widths, trainable=trainable_means)
    return [
        LayerPlan(
            index, input_dim, width, inducing[index], means[index] if index < len(means) else None, index < len(means)
        )
        for index, (input_dim, width) in enumerate(zip([X.shape[1]] + widths, widths + [output_dim]))
    ]


@dataclass(frozen=True)
class StackFields:
    """The fields of a config whose stack is DSVI's: inducing inputs and RBF-ARD kernels.

    :ivar num_inducing: M inducing inputs per layer, by k-means on X; None: the paper's 100, or
        every row when fewer are given.
    :ivar inducing_inputs: ``[M, D]`` inducing inputs of the first layer instead of k-means.
    :ivar hidden_width: the inner layers' width; None: min(30, D).
    :ivar kernel_factory: ``(layer_index, input_width) -> kernel``; None: RBF-ARD kernels of
        ``kernel_variance`` and ``lengthscale``.
    :ivar kernel_variance: the RBF kernels' variance.
    :ivar lengthscale: the RBF kernels' lengthscales, one per input.
    """

    num_inducing: Optional[int] = None
    inducing_inputs: Optional[np.ndarray] = None
    hidden_width: Optional[int] = None
    kernel_factory: Optional[KernelFactory] = None
    kernel_variance: float = 2.0
    lengthscale: float = 2.0

    def kernels(self) -> KernelFactory:
        """``kernel_factory``, or the RBF-ARD kernels of ``kernel_variance`` and ``lengthscale``."""
        return self.kernel_factory or rbf_factory(self.kernel_variance, self.lengthscale)


def plan_from_data(
    builder: str,
    data: BuilderData,
    config,
    seed: int,
    *,
    trainable_means: bool,
    bounds: Tuple[int, int],
    per_point: float = 0.0,
) -> List[LayerPlan]:
    """:func:`plan_stack` on a builder's data as its ``config`` says: hidden layers of
    ``config.hidden_width`` (None: min(30, D)), M = ``config.num_inducing`` inducing inputs (None:
    :func:`~gpflow_deep.builders.initialisation.inducing_count` with ``bounds`` and ``per_point``)
    by k-means on the rows given, or ``config.inducing_inputs`` ``[M, D]``."""
    width = hidden_width(builder, config.hidden_width, data.X.shape[1])
    M = inducing_count(builder, config.num_inducing, len(data.X), data.num_data, bounds, per_point)
    Z = initial_inducing_inputs(data.X, M, config.inducing_inputs, seed)
    return plan_stack(data.X, Z, data.output_dim, data.num_layers, width, trainable_means)


def gp_layer_stack(
    plans: List[LayerPlan],
    kernel_factory: KernelFactory,
    *,
    last_mean: Optional[MeanFunction] = None,
    inner_noise_variance: float = 0.0,
    inner_q_sqrt_scale: float = 1.0,
    q_diag: bool = False,
    whiten: bool = True,
    trainable_inducing_inputs: bool = True,
) -> List[GPLayer]:
    """``GPLayer`` s for the planned stack: hidden layers get a white-noise term of
    ``inner_noise_variance`` in their kernel (if positive) and a ``q_sqrt`` of the whitened prior
    scaled by ``inner_q_sqrt_scale``; the last layer gets ``last_mean`` and the prior's ``q_sqrt``.
    Every layer's inducing inputs are learned or (``trainable_inducing_inputs=False``) held."""
    layers = []
    for plan in plans:
        kernel = kernel_factory(plan.index, plan.input_dim)
        if plan.hidden and inner_noise_variance > 0:
            kernel = kernel + gpflow.kernels.White(variance=inner_noise_variance)
        M = plan.inducing_inputs.shape[0]
        layers.append(
            GPLayer(
                kernel,
                InducingPoints(
                    Parameter(plan.inducing_inputs, dtype=default_float(), trainable=trainable_inducing_inputs)
                ),
                plan.output_dim,
                mean_function=plan.mean_function if plan.hidden else last_mean,
                q_diag=q_diag,
                q_sqrt=scaled_prior_q_sqrt(M, plan.output_dim, q_diag, inner_q_sqrt_scale) if plan.hidden else None,
                whiten=whiten,
                name=f"layer_{plan.index}",
            )
        )
    return layers
