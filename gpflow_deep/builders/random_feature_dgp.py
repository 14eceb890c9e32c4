"""``build_random_feature_dgp``: random-feature deep GPs (Cutajar et al. 2017) from data, with
defaults fitted to the data (``setup="data"``) or the paper's UCI setup (``setup="paper"``)."""

from typing import Optional

import gpflow
import numpy as np
import tensorflow as tf
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from gpflow_deep.builders.initialisation import logger, mean_column_variance, training_arrays
from gpflow_deep.core.validation import check_positive_int, check_targets
from gpflow_deep.layers import RandomFeatureLayer
from gpflow_deep.layers.random_features.random_feature_layer import OMEGA_MODES
from gpflow_deep.models import RandomFeatureDGP

KERNELS = ("rbf", "arccos")
SETUPS = ("data", "paper")
PAPER_NUM_FEATURES = 100
PAPER_HIDDEN_WIDTH = 3
MAX_HIDDEN_WIDTH = 30
INITIAL_HIDDEN_W_STD = 0.01  # hidden layers start near zero (their outputs small), fed-forward X carries the data
INITIAL_NOISE_FRACTION = 0.01  # the likelihood's initial variance, as a fraction of var(Y)
MAX_ROWS_FOR_INITIAL_POSTERIOR = 2000


def build_random_feature_dgp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    likelihood: Optional[Likelihood] = None,
    setup: str = "data",
    hidden_width: Optional[int] = None,
    num_features: Optional[int] = None,
    kernel: str = "rbf",
    arccos_order: int = 1,
    omega_mode: str = "var-fixed",
    local_reparameterisation: Optional[bool] = None,
    feed_forward: Optional[bool] = None,
    num_samples: int = 1,
    seed: int = 0,
) -> RandomFeatureDGP:
    """A ``RandomFeatureDGP``: ``num_layers`` GP layers ("1 hidden layer" is 2), each with
    ``num_features`` random features of ``kernel``: ``"rbf"`` (DGP-RBF) or ``"arccos"`` of order
    ``arccos_order`` (DGP-ARC, 1 = ReLU features), Ω treated ``omega_mode``-wise (``"var-fixed"``,
    the paper's; ``"prior-fixed"``, ``"var-resampled"``).

    ``setup="data"`` (the default) starts from the data, so that the obvious path trains:

    - hidden width min(30, max(3, D)), N_RF = 100, the inputs X fed forward to every later layer;
    - lengthscales sqrt(D_in) times each input column's standard deviation (the paper's sqrt(D_in)
      on standardised data), the last kernel's σ² = var(Y), the hidden layers' 1;
    - hidden q(W) = N(0, 0.01²) (the hidden layers start near zero, the fed-forward X carries the
      data until they learn something), and with a Gaussian likelihood (variance 0.01·var(Y)) the
      last layer's q(W) at the mean-field posterior of its Bayesian linear model on the initial
      features (its optimum with everything else fixed): the model starts as a fitted
      one-layer random-feature GP.

    ``setup="paper"`` is the paper's UCI setup (Section 4; its code's initial values): hidden width
    3, N_RF = 100, σ² = 1 and ℓ = sqrt(D_in) per layer (the arc-cosine kernel's weight and bias
    variances 1/D_in), q(Ω) and q(W) at their priors, a Gaussian likelihood of variance e⁻², and
    ``feed_forward`` only beyond two hidden layers (``num_layers`` > 3). Train it with the paper's
    schedule through :func:`~gpflow_deep.fit`: Adam 0.01, batch 200, ``fixed_hyperparameters_for``
    and ``num_samples_schedule={iterations // 2: 100}``.

    In both, explicit ``hidden_width``, ``num_features`` and ``feed_forward`` win;
    ``local_reparameterisation`` (Gaussian marginals Φm, Φ²s² instead of one W per path) is on by
    default only for a ``MultiClass`` likelihood, whose robust-max expectation has zero gradients
    at the paper's zero-variance draws; any GPflow ``likelihood`` works (the last layer has its
    latent dimension, Y's column count for a Gaussian).
    """
    num_layers = check_positive_int("num_layers", num_layers)
    if setup not in SETUPS:
        raise ValueError(f"setup must be one of {SETUPS}, got {setup!r}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if omega_mode not in OMEGA_MODES:
        raise ValueError(f"omega_mode must be one of {OMEGA_MODES}, got {omega_mode!r}")
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    paper = setup == "paper"
    if hidden_width is None:
        hidden_width = PAPER_HIDDEN_WIDTH if paper else min(MAX_HIDDEN_WIDTH, max(PAPER_HIDDEN_WIDTH, D))
    hidden_width = check_positive_int("hidden_width", hidden_width)
    num_features = check_positive_int("num_features", PAPER_NUM_FEATURES if num_features is None else num_features)
    if likelihood is None:
        noise = np.exp(-2.0) if paper else INITIAL_NOISE_FRACTION * mean_column_variance(Y)
        likelihood = gpflow.likelihoods.Gaussian(variance=noise)
    output_dim = getattr(likelihood, "latent_dim", None) or Y.shape[1]
    check_targets("Y", Y, likelihood, output_dim)
    if feed_forward is None:
        feed_forward = num_layers > 3 if paper else num_layers > 1
    feed_forward = bool(feed_forward)
    if local_reparameterisation is None:
        local_reparameterisation = isinstance(likelihood, gpflow.likelihoods.MultiClass)

    widths = [D] + [hidden_width] * (num_layers - 1) + [output_dim]
    x_scale = _column_scales(X)
    layers = []
    for index, (input_dim, width) in enumerate(zip(widths[:-1], widths[1:])):
        fed = D if feed_forward and index > 0 else 0
        last = index == num_layers - 1
        if paper:
            scales, variance = np.ones(input_dim + fed), 1.0
        else:
            below = x_scale if index == 0 else np.ones(input_dim)
            scales = np.concatenate([below, x_scale if fed else np.zeros(0)])
            variance = mean_column_variance(Y) if last and isinstance(likelihood, gpflow.likelihoods.Gaussian) else 1.0
        layer = RandomFeatureLayer(
            _kernel(kernel, arccos_order, scales, variance),
            input_dim,
            width,
            num_features,
            omega_mode=omega_mode,
            local_reparameterisation=local_reparameterisation,
            fed_input_dim=fed,
            seed=(seed, index),
            name=f"layer_{index}",
        )
        if not paper and not last:
            layer.w_std.assign(np.full(layer.w_std.shape, INITIAL_HIDDEN_W_STD))
        layers.append(layer)
    if not paper and isinstance(likelihood, gpflow.likelihoods.Gaussian):
        _start_last_layer_at_its_posterior(layers, X, Y, likelihood.variance.numpy(), feed_forward, seed)
    if not paper:
        logger.info(
            "build_random_feature_dgp: hidden_width=%d, num_features=%d, feed_forward=%s, "
            "last layer's q(W) %s (setup='data'; setup='paper' for the paper's)",
            hidden_width,
            num_features,
            feed_forward,
            "at its posterior on the initial features"
            if isinstance(likelihood, gpflow.likelihoods.Gaussian)
            else "at its prior",
        )
    return RandomFeatureDGP(
        layers, likelihood, num_data=N, num_samples=num_samples, feed_forward=feed_forward, seed=seed
    )


def _column_scales(X: np.ndarray) -> np.ndarray:
    """Each column's standard deviation (1 for a constant column)."""
    std = np.std(X, axis=0)
    return np.where(std > 0, std, 1.0)


def _kernel(name: str, order: int, scales: np.ndarray, variance: float) -> Kernel:
    """ℓ = sqrt(D_in) · scale per input column (the paper's code: σ² = 1, ℓ = sqrt(D_in) on
    standardised data); the arc-cosine weights and bias variances 1/(D_in · scale²)."""
    input_dim = len(scales)
    if name == "rbf":
        return gpflow.kernels.SquaredExponential(variance=variance, lengthscales=np.sqrt(input_dim) * scales)
    return gpflow.kernels.ArcCosine(
        order, variance=variance, weight_variances=1.0 / (input_dim * scales**2), bias_variance=1.0 / input_dim
    )


def _start_last_layer_at_its_posterior(layers, X, Y, noise_variance: float, feed_forward: bool, seed: int) -> None:
    """q(W) of the last layer at the mean-field optimum of its Bayesian linear model y = Φ W + ε on
    the features of the hidden layers' mean outputs: with A = I + ΦᵀΦ/σ² (summed over at most
    2,000 rows, scaled to N), mean A⁻¹ΦᵀY/σ² (the exact posterior mean, which is also the
    mean-field one) and standard deviations 1/sqrt(diag A) (the mean-field ones)."""
    N = X.shape[0]
    rows = np.arange(N)
    if N > MAX_ROWS_FOR_INITIAL_POSTERIOR:
        rows = np.sort(np.random.default_rng(seed).choice(N, MAX_ROWS_FOR_INITIAL_POSTERIOR, replace=False))
    X_rows = tf.convert_to_tensor(X[rows])
    inputs = X_rows[None]
    fixed_seed = tf.constant([seed, 0], tf.int64)
    for layer in layers[:-1]:
        features = layer.features(inputs, fixed_seed)
        inputs = tf.linalg.matmul(features, layer.w_mean)
        if feed_forward:
            inputs = tf.concat([inputs, X_rows[None]], axis=-1)
    last = layers[-1]
    Phi = last.features(inputs, fixed_seed)[0].numpy()
    scale = N / len(rows)
    precision = np.eye(Phi.shape[1]) + scale * Phi.T @ Phi / noise_variance
    chol = np.linalg.cholesky(precision)
    mean = np.linalg.solve(chol.T, np.linalg.solve(chol, scale * Phi.T @ Y[rows] / noise_variance))
    last.w_mean.assign(mean)
    last.w_std.assign(np.tile(1.0 / np.sqrt(np.diag(precision))[:, None], (1, last.output_dim)))
