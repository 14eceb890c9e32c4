"""``build_sod_dgp``: subset-of-data deep GPs (Jain, Srijith & Khan 2021) from data, started from
the prior and the data (``setup="data"``) or with the paper's settings (``setup="paper"``)."""

from typing import Callable, Optional, Union

import gpflow
import numpy as np

from gpflow_deep.builders.initialisation import linear_means, logger, mean_column_variance, training_arrays
from gpflow_deep.builders.stack import KernelFactory, rbf_factory
from gpflow_deep.builders.subsets import select_subset
from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.layers.subset.subset_last_layer import SubsetLastLayer
from gpflow_deep.layers.subset.subset_layer import SubsetLayer
from gpflow_deep.models.sod_dgp import SoDDGP

SMALL_DATA = 800  # below this many training points the paper's "small" subset size applies
SETUPS = ("data", "paper")
HIDDEN_MEANS = ("zero", "linear")
DATA_INNER_NOISE_VARIANCE = 1e-8  # setup="data": the inter-layer noise's start (docs/sod.md, issue 11)
DATA_INNER_Q_SQRT_UNIT = 0.1  # setup="data": Adam moves the hidden Cholesky factors 0.1 × as far (docs/sod.md)
DATA_NOISE_FRACTION = 0.01  # setup="data": the likelihood's initial variance, as a fraction of var(Y)


def default_subset_size(num_data: int) -> int:
    """The paper's M: 50 for small data sets, 100 for medium ones, and never more than half the
    data (the paper's code requires M < N/2), at least 1."""
    return max(1, min(50 if num_data < SMALL_DATA else 100, num_data // 2))


def build_sod_dgp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    subset_size: Optional[int] = None,
    *,
    setup: str = "data",
    subset: Union[str, Callable[[np.ndarray], np.ndarray]] = "kmeans",
    hidden_width: Optional[int] = None,
    kernel_factory: Optional[KernelFactory] = None,
    kernel_variance: Optional[float] = None,
    lengthscale: Optional[float] = None,
    noise_variance: Optional[float] = None,
    inner_noise_variance: Optional[float] = None,
    inner_q_sqrt_scale: float = 1e-5,
    inner_q_sqrt_unit: Optional[float] = None,
    train_inner_covariances: bool = True,
    joint_sampling: bool = True,
    whiten: Optional[bool] = None,
    hidden_mean: Optional[str] = None,
    ard: Optional[bool] = None,
    num_samples: int = 10,
    num_prediction_samples: int = 50,
    seed: int = 0,
) -> SoDDGP:
    """A ``SoDDGP``, in both setups with

    - the subset: ``subset_size`` points (:func:`default_subset_size` by default: 50 or 100,
      at most N/2) chosen by k-means, each centre's nearest data point (``subset="random"``, or
      any function of X returning indices);
    - hidden layers of width ``hidden_width`` = min(30, D);
    - RBF kernels; any kernel through ``kernel_factory(layer_index, input_width)``;
    - one Gaussian likelihood whose variance the last layer's q^ shares (eq. 12);
    - hidden layers sampled jointly on each path (``joint_sampling``: F_S drawn from q, the other
      points from the GP given that draw, eq. 15) rather than point by point (the public code);
    - T = ``num_samples`` = 10 paths in training, 50 in predictions.

    ``setup="data"`` (the default) starts every q(F_S) from the prior and the data, and keeps the
    subset's samples, the next layer's inducing inputs, steady from path to path (docs/sod.md,
    "Two layers"):

    - every q(F_S) whitened per path (``whiten=True``): q over V = Lk⁻¹ F_S with Lk = chol K at
      the path's subset inputs, so that above the first layer, where those inputs are samples,
      q(F_S | Z_S) moves with them and the KL does not depend on the path (the paper's q is over
      F_S itself, ``whiten=False``);
    - hidden layers with DSVI's fixed linear mean functions (``hidden_mean="linear"``: the
      identity, or the PCA projection when narrowing, as in Salimbeni & Deisenroth 2017; the
      paper's are zero, ``hidden_mean="zero"``), each hidden q(F_S) over the GP's residual with its
      mean at zero, so that the hidden layers start as the identity (with zero means: q's mean at
      the identity of the subset's inputs), and the Cholesky factor ``inner_q_sqrt_scale`` (1e-5)
      · chol K(subset inputs);
    - RBF kernels with one lengthscale per input (``ard=True``; the paper's code has one for all);
    - the last q(F_S) is the prior N(0, K), so that q^ starts as the GP posterior given y_S;
    - lengthscales 0.5 · sqrt(D_in) × the inputs' standard deviation (the paper's 0.5 for one
      standardised input; shorter ones than sqrt(D_in) keep K(X_S) of a dense subset well conditioned),
      hidden kernel variances the variance of their inputs, the last one var(Y), the likelihood's
      0.01 · var(Y);
    - the inter-layer noise variances start at 1e-8 and the hidden Cholesky factors are trained in
      units of ``inner_q_sqrt_unit`` = 0.1 (q_sqrt = 0.1 × the optimiser's variable): Adam's steps
      are about the learning rate whatever the gradient, and at full size they grow the factors
      within tens of steps far past their optimum, the subset's samples then jitter from path to
      path and the last layer's KL against p(F_S | Z_S) drives its lengthscale to zero (the 1-D
      chirp of ``examples/subset_of_data.py``, docs/sod.md); ``train_inner_covariances=False``
      holds both fixed (the default until 2026-11-24).

    ``setup="paper"`` is the paper's (its Section 4 and public code): q(F_S) not whitened, zero mean functions, RBF
    kernels with one lengthscale, variance and lengthscale 0.5,
    noise variances 1e-5 between layers and 0.01 at the likelihood, q(F_S) means uniform in
    [0, 1) (the code's random start), Cholesky factors ``inner_q_sqrt_scale`` · I on inner layers
    and I on the last, everything trained in its own units.

    Explicit ``whiten``, ``hidden_mean``, ``ard``, ``kernel_variance``, ``lengthscale``, ``noise_variance``,
    ``inner_noise_variance`` and ``inner_q_sqrt_unit`` win over either setup's.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    if setup not in SETUPS:
        raise ValueError(f"setup must be one of {SETUPS}, got {setup!r}")
    paper = setup == "paper"
    hidden_mean = ("zero" if paper else "linear") if hidden_mean is None else hidden_mean
    if hidden_mean not in HIDDEN_MEANS:
        raise ValueError(f"hidden_mean must be one of {HIDDEN_MEANS}, got {hidden_mean!r}")
    ard = (not paper) if ard is None else bool(ard)
    whiten = (not paper) if whiten is None else bool(whiten)
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    if subset_size is None:
        size = None if callable(subset) else default_subset_size(N)
    else:
        size = check_positive_int("subset_size", subset_size)
        if size > N:
            raise ValueError(f"subset_size={size} is more than the N={N} training points")
    indices = select_subset(X, size, subset, seed)
    M = len(indices)
    width = check_positive_int("hidden_width", hidden_width if hidden_width is not None else min(30, D))
    y_variance = mean_column_variance(Y)
    if noise_variance is None:
        noise_variance = 0.01 if paper else DATA_NOISE_FRACTION * y_variance
    if inner_noise_variance is None:
        inner_noise_variance = 1e-5 if paper else DATA_INNER_NOISE_VARIANCE
    if inner_q_sqrt_unit is None:
        inner_q_sqrt_unit = 1.0 if paper else DATA_INNER_Q_SQRT_UNIT
    likelihood = gpflow.likelihoods.Gaussian(variance=noise_variance)
    widths = [D] + [width] * (num_layers - 1)
    means, layer_data = linear_means(X, X, widths[1:])  # X as each layer receives it, through the projections
    subset_inputs = [data[indices] for data in layer_data]
    hidden_means = means if hidden_mean == "linear" else [None] * len(means)
    if paper:
        make_kernel = kernel_factory or rbf_factory(
            0.5 if kernel_variance is None else kernel_variance, 0.5 if lengthscale is None else lengthscale, ard
        )
        layers = _paper_layers(
            widths,
            M,
            Y[indices],
            likelihood,
            make_kernel,
            hidden_means,
            inner_q_sqrt_scale,
            inner_q_sqrt_unit,
            whiten,
            seed,
        )
    else:
        kernels = _data_kernels(layer_data, Y[indices], kernel_factory, kernel_variance, lengthscale, ard)
        layers = _data_layers(
            kernels, subset_inputs, Y[indices], likelihood, hidden_means, inner_q_sqrt_scale, inner_q_sqrt_unit, whiten
        )
    for layer in layers[:-1]:
        layer.joint_sampling = bool(joint_sampling)
        layer.noise_variance.assign(inner_noise_variance)
        gpflow.set_trainable(layer.noise_variance, train_inner_covariances)
        gpflow.set_trainable(layer.q_sqrt, train_inner_covariances)
    if not paper:
        logger.info(
            "build_sod_dgp: subset_size=%d, hidden_width=%d, q(F_S) from the prior and the data, inner "
            "covariances %s (setup='data'; setup='paper' for the paper's)",
            M,
            width,
            "trained" if train_inner_covariances else "held fixed",
        )
    return SoDDGP(
        layers,
        likelihood,
        X[indices],
        num_data=N,
        num_samples=num_samples,
        num_prediction_samples=num_prediction_samples,
        seed=seed,
    )


def _paper_layers(widths, M, Y_S, likelihood, make_kernel, hidden_means, inner_q_sqrt_scale, unit, whiten, seed):
    """The paper's start: q(F_S) means uniform in [0, 1), Cholesky factors scale · I inside, I last
    (with ``whiten``, the same numbers as q(V)'s)."""
    rng = np.random.default_rng(seed)
    layers = []
    for index, (input_dim, mean) in enumerate(zip(widths[:-1], hidden_means)):
        layers.append(
            SubsetLayer(
                make_kernel(index, input_dim),
                M,
                input_dim,
                widths[index + 1],
                q_mu=rng.uniform(size=(M, widths[index + 1])),
                q_sqrt=inner_q_sqrt_scale * np.tile(np.eye(M)[None], (widths[index + 1], 1, 1)),
                q_sqrt_unit=unit,
                mean_function=mean,
                whiten=whiten,
                name=f"layer_{index}",
            )
        )
    layers.append(
        SubsetLastLayer(
            make_kernel(len(widths) - 1, widths[-1]),
            M,
            widths[-1],
            likelihood,
            Y_S,
            q_mu=rng.uniform(size=(M, Y_S.shape[1])),
            whiten=whiten,
            name=f"layer_{len(widths) - 1}",
        )
    )
    return layers


def _data_kernels(layer_data, Y_S, kernel_factory, kernel_variance, lengthscale, ard):
    """Each layer's kernel, ``kernel_factory``'s or an RBF scaled to ``layer_data``, the training
    inputs as they reach the layer: variance that data's (var(Y_S) last), lengthscale
    0.5 · sqrt(D_in) × its standard deviation."""
    kernels = []
    for index, data in enumerate(layer_data):
        input_dim = data.shape[1]
        if kernel_factory is not None:
            kernels.append(kernel_factory(index, input_dim))
            continue
        last = index == len(layer_data) - 1
        variance = kernel_variance if kernel_variance is not None else mean_column_variance(Y_S if last else data)
        ell = lengthscale if lengthscale is not None else 0.5 * np.sqrt(input_dim * mean_column_variance(data))
        kernels.append(rbf_factory(variance, ell, ard)(index, input_dim))
    return kernels


def _data_layers(kernels, subset_inputs, Y_S, likelihood, hidden_means, scale, unit, whiten):
    """The start from the prior and the data, on each layer's ``subset_inputs`` (X_S carried through
    the linear projections): hidden q(F_S) at the projection (or, over a linear mean's residual, at
    zero) with Cholesky factor scale · chol K, the last q(F_S) the prior N(0, K); with ``whiten``
    the same distributions on the subset, as q(V) for V = (chol K)⁻¹ F_S."""
    M = Y_S.shape[0]

    def prior_cholesky(kernel, inputs):
        return np.linalg.cholesky(kernel.K(inputs).numpy() + gpflow.config.default_jitter() * np.eye(M))

    def start(kernel, inputs, mean, sqrt_scale):
        """q's mean ``[M, L]`` and Cholesky factors ``[L, M, M]`` for F_S ~ N(mean, sqrt_scale² K)."""
        chol = prior_cholesky(kernel, inputs)
        if whiten:
            mean, chol = np.linalg.solve(chol, mean), np.eye(M)
        return mean, sqrt_scale * np.tile(chol[None], (mean.shape[1], 1, 1))

    layers = []
    hidden = zip(kernels, subset_inputs, subset_inputs[1:], hidden_means)
    for index, (kernel, inputs, outputs, mean) in enumerate(hidden):
        q_mu, q_sqrt = start(kernel, inputs, outputs if mean is None else np.zeros_like(outputs), scale)
        layers.append(
            SubsetLayer(
                kernel,
                M,
                inputs.shape[1],
                outputs.shape[1],
                q_mu=q_mu,
                q_sqrt=q_sqrt,
                q_sqrt_unit=unit,
                mean_function=mean,
                whiten=whiten,
                name=f"layer_{index}",
            )
        )
    kernel, inputs = kernels[-1], subset_inputs[-1]
    q_mu, q_sqrt = start(kernel, inputs, np.zeros((M, Y_S.shape[1])), 1.0)
    layers.append(
        SubsetLastLayer(
            kernel,
            M,
            inputs.shape[1],
            likelihood,
            Y_S,
            q_mu=q_mu,
            q_sqrt=q_sqrt,
            whiten=whiten,
            name=f"layer_{len(kernels) - 1}",
        )
    )
    return layers
