"""``build_sod_dgp``: subset-of-data deep GPs (Jain, Srijith & Khan 2021) from data, started from
the prior and the data (``.default()``) or with the paper's settings (``.paper()``)."""

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple, Union

import gpflow
import numpy as np
from gpflow.kernels import Kernel

from gpflow_deep.builders.configuration import SETUP_ALIAS, Presets, configure, log_choice
from gpflow_deep.builders.initialisation import linear_means, mean_column_variance
from gpflow_deep.builders.preparation import BuilderData, gaussian_likelihood, hidden_width, prepare_data
from gpflow_deep.builders.stack import KernelFactory, rbf_factory
from gpflow_deep.builders.subsets import select_subset, subset_copies
from gpflow_deep.core.validation import check_choice, check_positive_int
from gpflow_deep.layers.subset.subset_last_layer import SubsetLastLayer
from gpflow_deep.layers.subset.subset_layer import SubsetLayer
from gpflow_deep.models.sod_dgp import SoDDGP

BUILDER = "build_sod_dgp"
SMALL_DATA = 800  # below this many training points the paper's "small" subset size applies
PAPER_SMALL_SUBSET = 50  # the paper's M below SMALL_DATA training points
SUBSET = 100  # the paper's M from SMALL_DATA on, and the default's at any size
PAPER_NUM_SAMPLES = 10  # the paper's T, paths per training step
HIDDEN_MEANS = ("zero", "linear")

Start = Tuple[np.ndarray, np.ndarray]  # a layer's initial q: mean [M, L] and Cholesky factors [L, M, M]


def default_subset_size(num_data: int, small_data_size: int = SUBSET) -> int:
    """M for N training points: ``small_data_size`` below 800 of them (the paper's 50, the
    default's 100), 100 from there on, never more than half the data (the paper's code requires
    M < N/2), at least 1."""
    return max(1, min(small_data_size if num_data < SMALL_DATA else SUBSET, num_data // 2))


@dataclass(frozen=True)
class SoDDGPConfig(Presets):
    """The choices of ``build_sod_dgp``: ``.default()`` starts every q(F_S) from the prior and the
    data and keeps the subset's samples steady from path to path (``docs/sod.md``, "Two layers");
    ``.paper()`` is the paper's (its Section 4 and public code). A field left None is decided from
    the data.

    :ivar subset_size: M, the subset's size; None: :func:`default_subset_size` of N (100, or
        ``small_data_subset_size`` below 800 points; at most N/2), at most the rows given (with a
        ``subset`` function: its count).
    :ivar small_data_subset_size: M below 800 training points when ``subset_size`` is None (the
        paper's 50; 100 scores 0.13 better on boston at a step still below ``DeepGP``'s with one
        path, ``docs/sod.md``).
    :ivar subset: ``"kmeans"`` (each k-means centre's nearest data point, the paper's),
        ``"random"``, or a function of X returning indices.
    :ivar hidden_width: the hidden layers' width; None: min(30, D).
    :ivar kernel_factory: ``(layer_index, input_width) -> kernel``; None: RBF kernels.
    :ivar kernel_variance: the RBF kernels' variance; None: the variance of the data reaching the
        layer, var(Y_S) on the last (the paper's 0.5).
    :ivar lengthscale: the RBF lengthscales; None: 0.5 · sqrt(D_in) × the standard deviation of the
        data reaching the layer (the paper's 0.5).
    :ivar ard: one lengthscale per input (the paper's code has one for all).
    :ivar noise_variance: the Gaussian likelihood's initial variance, when no likelihood is given
        (the last layer's q^ shares it, eq. 12); None: 0.01·var(Y) (the paper's 0.01).
    :ivar inner_noise_variance: the inter-layer noise's start (the paper's 1e-5).
    :ivar inner_q_sqrt_scale: hidden Cholesky factors start at this × chol K (or × I with
        ``random_start``).
    :ivar inner_q_sqrt_unit: the optimiser's unit for the hidden Cholesky factors (0.1: Adam moves
        them a tenth as far, ``docs/sod.md``; the paper's 1).
    :ivar train_inner_covariances: learn the hidden Cholesky factors and inter-layer noise
        (False holds both at their start).
    :ivar joint_sampling: hidden layers sampled jointly on each path (F_S from q, the other points
        from the GP given that draw, eq. 15) rather than point by point (the public code).
    :ivar whiten: every q over V = Lk⁻¹ F_S at the path's subset inputs, so that q moves with them
        and the KL does not depend on the path (the paper's q is over F_S itself).
    :ivar hidden_mean: ``"linear"`` (DSVI's fixed linear means, q(F_S) over the GP's residual) or
        ``"zero"`` (the paper's).
    :ivar random_start: the paper code's start: q(F_S) means uniform in [0, 1), Cholesky factors
        ``inner_q_sqrt_scale`` · I inside and I last; False: hidden q(F_S) at the projection of the
        subset's inputs (zero over a linear mean's residual), the last q(F_S) the prior N(0, K).
    :ivar num_samples: T, the paths per training step (the paper's 10; on boston 1 scores as 10
        does, ``docs/sod.md``).
    :ivar num_prediction_samples: the paths for predictions.
    """

    subset_size: Optional[int] = None
    small_data_subset_size: int = SUBSET
    subset: Union[str, Callable[[np.ndarray], np.ndarray]] = "kmeans"
    hidden_width: Optional[int] = None
    kernel_factory: Optional[KernelFactory] = None
    kernel_variance: Optional[float] = None
    lengthscale: Optional[float] = None
    ard: bool = True
    noise_variance: Optional[float] = None
    inner_noise_variance: float = 1e-8
    inner_q_sqrt_scale: float = 1e-5
    inner_q_sqrt_unit: float = 0.1
    train_inner_covariances: bool = True
    joint_sampling: bool = True
    whiten: bool = True
    hidden_mean: str = "linear"
    random_start: bool = False
    num_samples: int = 1
    num_prediction_samples: int = 50

    @classmethod
    def paper(cls) -> "SoDDGPConfig":
        """Section 4 and the public code: a subset of 50 below 800 training points, 10 paths per
        step, unwhitened q, zero means, RBF kernels with one lengthscale, variance and lengthscale
        0.5, noise 1e-5 between layers and 0.01 at the likelihood, the random start, everything
        trained in its own units."""
        return cls(
            small_data_subset_size=PAPER_SMALL_SUBSET,
            num_samples=PAPER_NUM_SAMPLES,
            kernel_variance=0.5,
            lengthscale=0.5,
            ard=False,
            noise_variance=0.01,
            inner_noise_variance=1e-5,
            inner_q_sqrt_unit=1.0,
            whiten=False,
            hidden_mean="zero",
            random_start=True,
        )


def build_sod_dgp(
    X, Y, num_layers: int = 2, subset_size=None, *, config=None, likelihood=None, num_data=None, seed=0, **overrides
) -> SoDDGP:
    """A ``SoDDGP`` of ``num_layers`` subset layers from X ``[n, D]`` and Y ``[n, P]``, set up as
    ``config`` says (:class:`SoDDGPConfig`, by default ``.default()``; ``setup="paper"`` is
    ``config=SoDDGPConfig.paper()``, ``setup="data"`` the default; ``overrides`` are its fields,
    and ``subset_size``, the one also taken by position, is one of them).

    The likelihood is a Gaussian (the last layer's q^ of eq. 12 needs one). With ``num_data`` = N,
    X and Y are a sample of a training set of N rows: the subset, the projections and the scales
    come from the sample, the objective counts N points.
    """
    if subset_size is not None:
        overrides = dict(overrides, subset_size=subset_size)
    config = configure(BUILDER, SoDDGPConfig, config, overrides, SETUP_ALIAS)
    check_choice("hidden_mean", config.hidden_mean, HIDDEN_MEANS)
    data = prepare_data(
        X, Y, num_layers, likelihood, lambda X, Y, _: gaussian_likelihood(BUILDER, config.noise_variance, Y), num_data
    )
    indices = select_subset(data.X, _subset_size(config, data), config.subset, seed)
    M, D = len(indices), data.X.shape[1]
    widths = [D] + [hidden_width(BUILDER, config.hidden_width, D)] * (data.num_layers - 1)
    means, layer_data = linear_means(data.X, data.X, widths[1:])  # X as each layer receives it
    subset_inputs = [inputs[indices] for inputs in layer_data]
    hidden_means = means if config.hidden_mean == "linear" else [None] * len(means)
    kernels = _kernels(config, layer_data, data.Y[indices])
    output_widths = widths[1:] + [data.Y.shape[1]]
    if config.random_start:
        starts = _random_starts(config, M, output_widths, seed)
    else:
        starts = _data_starts(config, kernels, subset_inputs, hidden_means, output_widths)
    layers = [
        SubsetLayer(
            kernel,
            M,
            widths[index],
            widths[index + 1],
            q_mu=q_mu,
            q_sqrt=q_sqrt,
            noise_variance=config.inner_noise_variance,
            q_sqrt_unit=config.inner_q_sqrt_unit,
            trainable_covariances=config.train_inner_covariances,
            mean_function=mean,
            joint_sampling=config.joint_sampling,
            whiten=config.whiten,
            name=f"layer_{index}",
        )
        for index, (kernel, mean, (q_mu, q_sqrt)) in enumerate(zip(kernels, hidden_means, starts))
    ]
    q_mu, q_sqrt = starts[-1]
    last = SubsetLastLayer(
        kernels[-1],
        M,
        widths[-1],
        data.likelihood,
        data.Y[indices],
        q_mu=q_mu,
        q_sqrt=q_sqrt,
        whiten=config.whiten,
        name=f"layer_{len(layers)}",
    )
    return SoDDGP(
        layers + [last],
        data.likelihood,
        data.X[indices],
        num_data=data.num_data,
        num_samples=config.num_samples,
        subset_copies=subset_copies(data.X, data.Y, indices, data.num_data),
        num_prediction_samples=config.num_prediction_samples,
        seed=seed,
    )


def _subset_size(config: SoDDGPConfig, data: BuilderData) -> Optional[int]:
    """M as configured (checked against the rows given), or :func:`default_subset_size` of N, or
    None for a subset function to decide."""
    if config.subset_size is not None:
        size = check_positive_int("subset_size", config.subset_size)
        if size > len(data.X):
            raise ValueError(f"subset_size={size} is more than the N={len(data.X)} training points")
        return size
    if callable(config.subset):
        return None
    small = check_positive_int("small_data_subset_size", config.small_data_subset_size)
    size = default_subset_size(data.num_data, small)
    rule = f"for {data.num_data} training points: {small} below {SMALL_DATA}, {SUBSET} from there on, at most N/2"
    if size > len(data.X):
        size, rule = len(data.X), f"{rule}, capped at the {len(data.X)} rows given"
    return log_choice(BUILDER, "subset_size", size, rule)


def _kernels(config: SoDDGPConfig, layer_data: List[np.ndarray], Y_S: np.ndarray) -> List[Kernel]:
    """Each layer's kernel, ``kernel_factory``'s or an RBF over ``layer_data``, the training
    inputs as they reach the layer, with the configured variance and lengthscale, or when None
    (decided here, logged) that data's variance (var(Y_S) last) and 0.5 · sqrt(D_in) × its
    standard deviation."""
    if config.kernel_factory is not None:
        return [config.kernel_factory(index, data.shape[1]) for index, data in enumerate(layer_data)]
    variances = [config.kernel_variance] * len(layer_data)
    if config.kernel_variance is None:
        variances = [mean_column_variance(data) for data in layer_data[:-1]] + [mean_column_variance(Y_S)]
        log_choice(BUILDER, "kernel_variance", variances, "per layer: its inputs' variance, var(Y_S) last")
    lengthscales = [config.lengthscale] * len(layer_data)
    if config.lengthscale is None:
        lengthscales = [0.5 * np.sqrt(data.shape[1] * mean_column_variance(data)) for data in layer_data]
        log_choice(BUILDER, "lengthscale", lengthscales, "per layer: 0.5·sqrt(D_in) × its inputs' std")
    return [
        rbf_factory(variance, lengthscale, config.ard)(index, data.shape[1])
        for index, (data, variance, lengthscale) in enumerate(zip(layer_data, variances, lengthscales))
    ]


def _random_starts(config: SoDDGPConfig, M: int, output_widths: List[int], seed: int) -> List[Start]:
    """The paper code's start for each layer: q(F_S) means uniform in [0, 1), Cholesky factors
    ``inner_q_sqrt_scale`` · I inside and I last (with ``whiten``, the same numbers as q(V)'s)."""
    rng = np.random.default_rng(seed)
    scales = [config.inner_q_sqrt_scale] * (len(output_widths) - 1) + [1.0]
    return [
        (rng.uniform(size=(M, width)), scale * np.tile(np.eye(M)[None], (width, 1, 1)))
        for width, scale in zip(output_widths, scales)
    ]


def _data_starts(
    config: SoDDGPConfig,
    kernels: List[Kernel],
    subset_inputs: List[np.ndarray],
    hidden_means: list,
    output_widths: List[int],
) -> List[Start]:
    """The start from the prior and the data, on each layer's ``subset_inputs`` (X_S carried
    through the linear projections): hidden q(F_S) at the projection (over a linear mean's
    residual, at zero) with Cholesky factor ``inner_q_sqrt_scale`` · chol K, the last q(F_S) the
    prior N(0, K); with ``whiten`` the same distributions on the subset, as q(V) for
    V = (chol K)⁻¹ F_S."""
    M = len(subset_inputs[0])
    targets = [
        outputs if mean is None else np.zeros_like(outputs) for outputs, mean in zip(subset_inputs[1:], hidden_means)
    ]
    targets.append(np.zeros((M, output_widths[-1])))
    scales = [config.inner_q_sqrt_scale] * len(hidden_means) + [1.0]
    starts = []
    for kernel, inputs, mean, scale in zip(kernels, subset_inputs, targets, scales):
        chol = np.linalg.cholesky(kernel.K(inputs).numpy() + gpflow.config.default_jitter() * np.eye(M))
        if config.whiten:
            mean, chol = np.linalg.solve(chol, mean), np.eye(M)
        starts.append((mean, scale * np.tile(chol[None], (mean.shape[1], 1, 1))))
    return starts
