"""``build_dspp``: a deep sigma point process with the paper's setup, from data."""

from typing import Optional

import gpflow
import numpy as np
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from ..likelihoods import LinearMixingGaussian
from ..models.dspp import DSPP, gauss_hermite_sigma_points, random_sigma_points
from ..validation import check_positive_int
from .initialisation import adapted_size, initial_inducing_inputs, training_arrays
from .stack import KernelFactory, gp_layer_stack, plan_stack

SIGMA_POINT_INITIALISATIONS = ("random", "gauss_hermite")
PAPER_NUM_INDUCING = 300


def build_dspp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    num_sigma_points: int = 10,
    hidden_width: int = 3,
    num_inducing: Optional[int] = None,
    beta: float = 1.0,
    likelihood: Optional[Likelihood] = None,
    noise_variance: float = 0.1,
    noise_floor: float = 1e-4,
    kernel_factory: Optional[KernelFactory] = None,
    q_diag: bool = True,
    inner_q_sqrt_scale: float = 1.0,
    sigma_point_initialisation: str = "random",
    inducing_inputs: Optional[np.ndarray] = None,
    seed: int = 0,
) -> DSPP:
    """A ``DSPP`` set up as in Jankowiak et al. (2020, appendix A):

    - ``num_layers`` GP layers, hidden ones of width ``hidden_width`` (the paper searches 3 and 5),
      M = ``num_inducing`` k-means inducing inputs (300 in the paper; carried through the first
      layer's mean to later layers), Matérn-5/2 ARD kernels (variance 1, lengthscales 1; any
      kernel through ``kernel_factory(layer_index, input_width)``);
    - a linear mean with learned weights on every hidden layer (started at the PCA projection or
      the identity) and a learned constant mean on the last;
    - diagonal (mean-field) ``q_sqrt`` (``q_diag=False`` for a full one), whitened, started at
      the prior scaled by ``inner_q_sqrt_scale`` on hidden layers;
    - S = ``num_sigma_points`` sigma points lined up across units and layers (rule QR3),
      standard-normal (``"random"``, the paper's) or Gauss–Hermite (``"gauss_hermite"``), with
      uniform or Gauss–Hermite weights;
    - a Gaussian likelihood of initial variance ``noise_variance`` and floor ``noise_floor`` for
      one output column; for P > 1 columns, :class:`~gpflow_deep.likelihoods.LinearMixingGaussian`
      on a last layer of width P (appendix A.3).

    ``beta`` weights the KL regulariser (the paper picks it from {0.01, 0.05, 0.2, 1.0} on a
    validation split: see :func:`gpflow_deep.select_beta`). The noise floor keeps the predictive
    variance from collapsing on small data sets (``docs/dspp.md``); set it to 0 to lift it.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    S = check_positive_int("num_sigma_points", num_sigma_points)
    width = check_positive_int("hidden_width", hidden_width)
    if sigma_point_initialisation not in SIGMA_POINT_INITIALISATIONS:
        choices, given = SIGMA_POINT_INITIALISATIONS, sigma_point_initialisation
        raise ValueError(f"sigma_point_initialisation must be one of {choices}, got {given!r}")
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    P = Y.shape[1]
    if likelihood is None:
        if P == 1:
            likelihood = gpflow.likelihoods.Gaussian(variance=noise_variance, variance_lower_bound=noise_floor or None)
        else:
            likelihood = LinearMixingGaussian(P, P, variance=noise_variance, variance_lower_bound=noise_floor or 1e-12)
    output_dim = getattr(likelihood, "latent_dim", None) or P
    num_inducing = adapted_size("build_dspp", "num_inducing", num_inducing, PAPER_NUM_INDUCING, N)
    Z = initial_inducing_inputs(X, num_inducing, inducing_inputs, seed)
    layers = gp_layer_stack(
        plan_stack(X, Z, output_dim, num_layers, width, trainable_means=True),
        kernel_factory or _matern_factory,
        last_mean=gpflow.mean_functions.Constant(np.zeros(output_dim)),
        q_diag=q_diag,
        inner_q_sqrt_scale=inner_q_sqrt_scale,
    )
    widths = [layer.output_dim for layer in layers[:-1]]
    if sigma_point_initialisation == "random":
        sigma_points, weights = random_sigma_points(S, widths, seed), None
    else:
        sigma_points, weights = gauss_hermite_sigma_points(S, widths)
    if num_layers == 1:
        weights = np.full(S, 1.0 / S)
    return DSPP(layers, likelihood, num_data=N, sigma_points=sigma_points, weights=weights, beta=beta, seed=seed)


def _matern_factory(_: int, input_width: int) -> Kernel:
    return gpflow.kernels.Matern52(variance=1.0, lengthscales=np.ones(input_width))
