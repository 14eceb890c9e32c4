"""``build_random_feature_dgp``: the setup of Cutajar et al. (2017) from data."""

from typing import Optional

import gpflow
import numpy as np
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from ..layers import RandomFeatureLayer
from ..layers.random_feature_layer import OMEGA_MODES
from ..models import RandomFeatureDGP
from ..validation import check_positive_int, check_targets
from .initialisation import training_arrays

KERNELS = ("rbf", "arccos")


def build_random_feature_dgp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    likelihood: Optional[Likelihood] = None,
    hidden_width: int = 3,
    num_features: int = 100,
    kernel: str = "rbf",
    arccos_order: int = 1,
    omega_mode: str = "var-fixed",
    local_reparameterisation: Optional[bool] = None,
    feed_forward: Optional[bool] = None,
    num_samples: int = 1,
    seed: int = 0,
) -> RandomFeatureDGP:
    """A ``RandomFeatureDGP`` with the paper's UCI setup (Section 4; its code's initial values).

    - ``num_layers`` GP layers ("1 hidden layer" is 2), hidden ones ``hidden_width`` (3) wide, each
      with ``num_features`` (N_RF = 100) random features of ``kernel``: ``"rbf"`` (DGP-RBF) or
      ``"arccos"`` of order ``arccos_order`` (DGP-ARC, 1 = ReLU features);
    - σ² = 1 and lengthscales ℓ = sqrt(D_in) per layer (the arc-cosine kernel's weight and bias
      variances are 1/D_in: the bias acts as one more input, constant 1);
    - Ω treated ``omega_mode``-wise (``"var-fixed"``, the paper's; ``"prior-fixed"``,
      ``"var-resampled"``), q(Ω) and q(W) initialised to their priors;
    - ``local_reparameterisation`` (Gaussian marginals Φm, Φ²s² instead of one W per path) is on
      by default only for a ``MultiClass`` likelihood, whose robust-max expectation has zero
      gradients at the paper's zero-variance draws;
    - ``feed_forward`` appends X to every later layer's inputs; by default on for more than two
      hidden layers (``num_layers`` > 3), beyond which the paper finds it is needed;
    - a Gaussian likelihood of variance e⁻² unless ``likelihood`` is given (any GPflow
      likelihood; the last layer has its latent dimension, Y's column count for a Gaussian).

    Train it with the paper's schedule through :func:`~gpflow_deep.fit`: Adam 0.01, batch 200,
    ``fixed_hyperparameters_for=12_000`` and ``num_samples_schedule={iterations // 2: 100}``.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    hidden_width = check_positive_int("hidden_width", hidden_width)
    num_features = check_positive_int("num_features", num_features)
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if omega_mode not in OMEGA_MODES:
        raise ValueError(f"omega_mode must be one of {OMEGA_MODES}, got {omega_mode!r}")
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    likelihood = likelihood if likelihood is not None else gpflow.likelihoods.Gaussian(variance=np.exp(-2.0))
    output_dim = getattr(likelihood, "latent_dim", None) or Y.shape[1]
    check_targets("Y", Y, likelihood, output_dim)
    feed_forward = num_layers > 3 if feed_forward is None else bool(feed_forward)
    if local_reparameterisation is None:
        local_reparameterisation = isinstance(likelihood, gpflow.likelihoods.MultiClass)

    widths = [D] + [hidden_width] * (num_layers - 1) + [output_dim]
    layers = []
    for index, (input_dim, width) in enumerate(zip(widths[:-1], widths[1:])):
        fed = D if feed_forward and index > 0 else 0
        layers.append(
            RandomFeatureLayer(
                _kernel(kernel, arccos_order, input_dim + fed),
                input_dim,
                width,
                num_features,
                omega_mode=omega_mode,
                local_reparameterisation=local_reparameterisation,
                fed_input_dim=fed,
                seed=(seed, index),
                name=f"layer_{index}",
            )
        )
    return RandomFeatureDGP(
        layers, likelihood, num_data=N, num_samples=num_samples, feed_forward=feed_forward, seed=seed
    )


def _kernel(name: str, order: int, input_dim: int) -> Kernel:
    """The paper code's initial hyperparameters: σ² = 1, ℓ = sqrt(D_in)."""
    if name == "rbf":
        return gpflow.kernels.SquaredExponential(variance=1.0, lengthscales=np.full(input_dim, np.sqrt(input_dim)))
    return gpflow.kernels.ArcCosine(
        order, variance=1.0, weight_variances=np.full(input_dim, 1.0 / input_dim), bias_variance=1.0 / input_dim
    )
