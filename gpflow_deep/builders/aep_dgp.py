"""``build_aep_dgp``: an approximate-EP deep GP with the public code's setup, from data."""

from typing import Optional

import gpflow
import numpy as np
from gpflow.likelihoods import Likelihood

from gpflow_deep.builders.initialisation import adapted_size, initial_inducing_inputs, training_arrays
from gpflow_deep.builders.stack import KernelFactory, plan_stack, rbf_factory
from gpflow_deep.core.validation import check_positive_int, check_targets
from gpflow_deep.layers import AEPLayer
from gpflow_deep.models.aep_dgp import AEPDGP

PUBLIC_CODE_NUM_INDUCING = 100


def build_aep_dgp(
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
    noise_variance: float = 0.01,
    inner_posterior_std: float = 0.01,
    num_samples: int = 20,
    num_prediction_samples: int = 100,
    propagation: str = "monte_carlo",
    inducing_inputs: Optional[np.ndarray] = None,
    seed: int = 0,
) -> AEPDGP:
    """An ``AEPDGP`` of ``num_layers`` ``AEPLayer`` s, set up as the public AEP-MCM code does
    where it says (otherwise as ``build_deep_gp``, for a like-for-like comparison):

    - M = ``num_inducing`` k-means inducing inputs (by default 100, or N for fewer training
      points), carried through the linear means;
    - inner layers of width min(30, D) with fixed linear means (identity or PCA), the last layer
      with a zero mean (``builders.stack.plan_stack``);
    - RBF-ARD kernels of variance ``kernel_variance`` and lengthscales ``lengthscale``; any kernel
      through ``kernel_factory(layer_index, input_width)`` (moment matching needs RBF);
    - inter-layer noise of variance ``noise_variance`` (0.01) on inner layers, learned; a Gaussian
      likelihood of variance 0.01 unless ``likelihood`` is given (Bernoulli, MultiClass, Poisson…);
    - sites with γ = 0 and R = I on the last layer (q = N(0, I/2), whitened) and R = rI on inner
      layers, r chosen so that q has standard deviation ``inner_posterior_std``: nearly
      deterministic inner layers at the start, as in Salimbeni & Deisenroth (2017);
    - S = ``num_samples`` (20) Monte Carlo paths for training, ``num_prediction_samples`` (100)
      for predictions, or ``propagation="moment_matching"``.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    if not 0 < inner_posterior_std < 1:
        raise ValueError(f"inner_posterior_std must lie in (0, 1) (the prior's), got {inner_posterior_std!r}")
    likelihood = likelihood if likelihood is not None else gpflow.likelihoods.Gaussian(variance=0.01)
    output_dim = getattr(likelihood, "latent_dim", None) or Y.shape[1]
    check_targets("Y", Y, likelihood, output_dim)
    width = check_positive_int("hidden_width", hidden_width if hidden_width is not None else min(30, D))
    M = adapted_size("build_aep_dgp", "num_inducing", num_inducing, PUBLIC_CODE_NUM_INDUCING, N)
    Z = initial_inducing_inputs(X, M, inducing_inputs, seed)
    kernel_factory = kernel_factory or rbf_factory(kernel_variance, lengthscale)
    inner_scale = np.sqrt(1.0 / inner_posterior_std**2 - 1.0)

    layers = []
    for plan in plan_stack(X, Z, output_dim, num_layers, width, trainable_means=False):
        M_l = plan.inducing_inputs.shape[0]
        scale = inner_scale if plan.hidden else 1.0
        layers.append(
            AEPLayer(
                kernel_factory(plan.index, plan.input_dim),
                plan.inducing_inputs,
                plan.output_dim,
                num_data=N,
                mean_function=plan.mean_function,
                noise_variance=noise_variance if plan.hidden else None,
                site_scale=scale * np.tile(np.eye(M_l)[None], (plan.output_dim, 1, 1)),
                name=f"layer_{plan.index}",
            )
        )
    return AEPDGP(
        layers,
        likelihood,
        num_data=N,
        num_samples=num_samples,
        propagation=propagation,
        num_prediction_samples=num_prediction_samples,
        seed=seed,
    )
