"""``build_deep_gp``: the setup of Salimbeni & Deisenroth (2017) from data."""

from typing import Optional

import gpflow
import numpy as np
from gpflow.likelihoods import Likelihood

from gpflow_deep.builders.initialisation import adapted_size, initial_inducing_inputs, training_arrays
from gpflow_deep.builders.stack import KernelFactory, gp_layer_stack, plan_stack, rbf_factory
from gpflow_deep.core.validation import check_positive_int, check_targets
from gpflow_deep.models import DeepGP

PAPER_NUM_INDUCING = 100


def build_deep_gp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    likelihood: Optional[Likelihood] = None,
    num_inducing: Optional[int] = None,
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
      overrides), carried through each layer's linear mean as the data is; by default the paper's
      100, or N when there are fewer training points;
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
    check_targets("Y", Y, likelihood, output_dim)
    width = check_positive_int("hidden_width", hidden_width if hidden_width is not None else min(30, D))
    num_inducing = adapted_size("build_deep_gp", "num_inducing", num_inducing, PAPER_NUM_INDUCING, N)
    Z = initial_inducing_inputs(X, num_inducing, inducing_inputs, seed)

    layers = gp_layer_stack(
        plan_stack(X, Z, output_dim, num_layers, width, trainable_means=False),
        kernel_factory or rbf_factory(kernel_variance, lengthscale),
        inner_noise_variance=inner_noise_variance,
        inner_q_sqrt_scale=inner_q_sqrt_scale,
        q_diag=q_diag,
        whiten=whiten,
    )
    return DeepGP(layers, likelihood, num_data=N, num_samples=num_samples, seed=seed)
