"""``build_deep_gp``: the setup of Salimbeni & Deisenroth (2017) from data."""

from typing import Callable, Optional

import gpflow
import numpy as np
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from ..layers import GPLayer
from ..models import DeepGP
from ..validation import check_positive_int
from .initialisation import initial_inducing_inputs, linear_means, scaled_prior_q_sqrt, training_arrays

KernelFactory = Callable[[int, int], Kernel]  # (layer index, input width) -> kernel


def build_deep_gp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    likelihood: Optional[Likelihood] = None,
    num_inducing: int = 100,
    hidden_width: Optional[int] = None,
    kernel_factory: Optional[KernelFactory] = None,
    kernel_variance: float = 2.0,
    lengthscale: float = 2.0,
    inner_noise_variance: float = 1e-5,
    inner_q_sqrt_scale: float = 1e-5,
    q_diag: bool = False,
    whiten: bool = True,
    inducing_inputs: Optional[np.ndarray] = None,
    num_samples: int = 1,
    seed: int = 0,
) -> DeepGP:
    """A ``DeepGP`` with the paper's initialisation (its supplement, "Experiment Details").

    - M = ``num_inducing`` inducing inputs per layer by k-means on X (``inducing_inputs``
      overrides), carried through each layer's linear mean as the data is;
    - inner layers of width ``hidden_width`` = min(30, D), each with a fixed linear mean: the
      identity, or the PCA projection of the data reaching it; the last layer has a zero mean;
    - RBF kernels with ARD, variance and lengthscales ``kernel_variance``/``lengthscale`` (2),
      plus a white-noise term ``inner_noise_variance`` (1e-5) on inner layers; any kernel through
      ``kernel_factory(layer_index, input_width)``;
    - q(U) = N(0, I) on the last layer, N(0, ``inner_q_sqrt_scale``² I) on inner layers;
    - a Gaussian likelihood of variance 0.01 unless ``likelihood`` is given; the last layer has
      the likelihood's latent dimension (Y's column count for a Gaussian).
    """
    num_layers = check_positive_int("num_layers", num_layers)
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    likelihood = likelihood if likelihood is not None else gpflow.likelihoods.Gaussian(variance=0.01)
    output_dim = getattr(likelihood, "latent_dim", None) or Y.shape[1]
    width = check_positive_int("hidden_width", hidden_width if hidden_width is not None else min(30, D))
    Z = initial_inducing_inputs(X, num_inducing, inducing_inputs, seed)
    kernel_factory = kernel_factory or _rbf_factory(kernel_variance, lengthscale)

    widths = [width] * (num_layers - 1)
    means, inducing = linear_means(X, Z, widths)
    layers = []
    for index, (input_width, output_width) in enumerate(zip([D] + widths, widths + [output_dim])):
        inner = index < num_layers - 1
        kernel = kernel_factory(index, input_width)
        if inner and inner_noise_variance > 0:
            kernel = kernel + gpflow.kernels.White(variance=inner_noise_variance)
        M = inducing[index].shape[0]
        q_sqrt = scaled_prior_q_sqrt(M, output_width, q_diag, inner_q_sqrt_scale) if inner else None
        layers.append(
            GPLayer(
                kernel,
                inducing[index],
                output_width,
                mean_function=means[index] if inner else None,
                q_diag=q_diag,
                q_sqrt=q_sqrt,
                whiten=whiten,
                name=f"layer_{index}",
            )
        )
    return DeepGP(layers, likelihood, num_data=N, num_samples=num_samples, seed=seed)


def _rbf_factory(variance: float, lengthscale: float) -> KernelFactory:
    def make(_: int, input_width: int) -> Kernel:
        return gpflow.kernels.SquaredExponential(variance=variance, lengthscales=[lengthscale] * input_width)

    return make
