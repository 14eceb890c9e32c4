"""``build_dspp``: a deep sigma point process from data, with safe defaults or the paper's setup."""

from typing import Any, Dict, Optional, Tuple

import gpflow
import numpy as np
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from gpflow_deep.builders.initialisation import (
    adapted_size,
    initial_inducing_inputs,
    logger,
    mean_column_variance,
    training_arrays,
)
from gpflow_deep.builders.stack import KernelFactory, gp_layer_stack, plan_stack
from gpflow_deep.core.validation import check_non_negative, check_positive, check_positive_int
from gpflow_deep.likelihoods import LinearMixingGaussian
from gpflow_deep.models.dspp import DSPP, BlendedLogLikelihood, gauss_hermite_sigma_points, random_sigma_points
from gpflow_deep.objectives import DataTerm, predictive_log_likelihood

SIGMA_POINT_INITIALISATIONS = ("random", "gauss_hermite")
PAPER_NUM_INDUCING = 300

PAPER_DEFAULTS: Dict[str, Any] = dict(
    beta=1.0,
    sigma_point_initialisation="random",
    trainable_sigma_points=True,
    trainable_inducing_inputs=True,
    expected_log_likelihood_weight=0.0,
)
"""Jankowiak et al. (2020, appendix A): M = 300 (capped at N), learned inducing inputs, learned
standard-normal sigma points, the predictive log-likelihood alone, β = 1 (the paper picks β on a
validation split)."""

PAPER_NOISE_VARIANCE, PAPER_NOISE_FLOOR = 0.1, 1e-4
SAFE_NOISE_SHARE, SAFE_NOISE_FLOOR_SHARE = 0.1, 0.05
SAFE_INDUCING_PER_POINT = 1 / 5
SAFE_MIN_INDUCING = 100


def safe_num_inducing(N: int) -> int:
    """The safe default M for N training points: one inducing point per five, at least 100 (all N
    if fewer) and at most the paper's 300. Inducing inputs held at k-means centres must grow with
    the data to cover it (M = 100 underfits concrete's 927 points, M = 200 overfits boston's 455:
    ``docs/dspp.md``)."""
    return min(N, max(SAFE_MIN_INDUCING, min(PAPER_NUM_INDUCING, int(N * SAFE_INDUCING_PER_POINT))))


SAFE_DEFAULTS: Dict[str, Any] = dict(
    beta=1.0,
    sigma_point_initialisation="gauss_hermite",
    trainable_sigma_points=False,
    trainable_inducing_inputs=False,
    expected_log_likelihood_weight=0.5,
)
"""What ``build_dspp`` uses unless told otherwise (``docs/dspp.md``, "Defaults that do not collapse");
M is :func:`safe_num_inducing`."""


def build_dspp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    *,
    paper_defaults: bool = False,
    num_sigma_points: int = 10,
    hidden_width: int = 3,
    num_inducing: Optional[int] = None,
    beta: Optional[float] = None,
    likelihood: Optional[Likelihood] = None,
    noise_variance: Optional[float] = None,
    noise_floor: Optional[float] = None,
    kernel_factory: Optional[KernelFactory] = None,
    q_diag: bool = True,
    inner_q_sqrt_scale: float = 1.0,
    sigma_point_initialisation: Optional[str] = None,
    trainable_sigma_points: Optional[bool] = None,
    trainable_inducing_inputs: Optional[bool] = None,
    expected_log_likelihood_weight: Optional[float] = None,
    inducing_inputs: Optional[np.ndarray] = None,
    seed: int = 0,
) -> DSPP:
    """A ``DSPP`` set up as in Jankowiak et al. (2020, appendix A), with defaults that do not
    collapse onto small training sets unless ``paper_defaults=True``:

    - ``num_layers`` GP layers, hidden ones of width ``hidden_width`` (the paper searches 3 and 5),
      M = ``num_inducing`` k-means inducing inputs (safe default :func:`safe_num_inducing`: N/5
      within [100, 300]; carried through the first layer's mean to later
      layers), Matérn-5/2 ARD kernels (variance 1, lengthscales 1; any kernel through
      ``kernel_factory(layer_index, input_width)``);
    - a linear mean with learned weights on every hidden layer (started at the PCA projection or
      the identity) and a learned constant mean on the last;
    - diagonal (mean-field) ``q_sqrt`` (``q_diag=False`` for a full one), whitened, started at
      the prior scaled by ``inner_q_sqrt_scale`` on hidden layers;
    - S = ``num_sigma_points`` sigma points lined up across units and layers (rule QR3),
      standard-normal (``"random"``) or Gauss–Hermite (``"gauss_hermite"``), with uniform or
      Gauss–Hermite weights, learned or held fixed (``trainable_sigma_points``);
    - inducing inputs learned or held at their k-means start (``trainable_inducing_inputs``);
    - the data term ``(1 − α)·PLL + α·ELL`` with α = ``expected_log_likelihood_weight``
      (:class:`~gpflow_deep.models.dspp.BlendedLogLikelihood`; α = 0 is the paper's predictive
      log-likelihood), minus ``beta`` times the KL regulariser;
    - a Gaussian likelihood of initial variance ``noise_variance`` and floor ``noise_floor`` (safe
      defaults relative to the targets' variance: :func:`safe_noise`; the paper's 0.1 and 1e-4) for
      one output column; for P > 1 columns, :class:`~gpflow_deep.likelihoods.LinearMixingGaussian`
      on a last layer of width P (appendix A.3).

    The arguments left as None take the defaults of :data:`SAFE_DEFAULTS`, or with
    ``paper_defaults=True`` the paper's (:data:`PAPER_DEFAULTS`: M = 300, learned standard-normal
    sigma points, α = 0, β = 1), for data of the paper's size; what was chosen goes to the
    ``gpflow_deep`` logger. ``docs/dspp.md`` has the measurements behind the safe defaults. The
    paper picks β from {0.01, 0.05, 0.2, 1.0} on a validation split: see
    :func:`gpflow_deep.select_beta`, which builds with the paper's defaults.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    S = check_positive_int("num_sigma_points", num_sigma_points)
    width = check_positive_int("hidden_width", hidden_width)
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    P = Y.shape[1]
    given = dict(
        beta=beta,
        sigma_point_initialisation=sigma_point_initialisation,
        trainable_sigma_points=trainable_sigma_points,
        trainable_inducing_inputs=trainable_inducing_inputs,
        expected_log_likelihood_weight=expected_log_likelihood_weight,
    )
    settings = _resolve_defaults(given, paper_defaults)
    if settings["sigma_point_initialisation"] not in SIGMA_POINT_INITIALISATIONS:
        choices, chosen = SIGMA_POINT_INITIALISATIONS, settings["sigma_point_initialisation"]
        raise ValueError(f"sigma_point_initialisation must be one of {choices}, got {chosen!r}")
    data_term = _data_term(settings["expected_log_likelihood_weight"])
    if likelihood is None:
        variance, floor = _noise_settings(noise_variance, noise_floor, Y, paper_defaults)
        if P == 1:
            likelihood = gpflow.likelihoods.Gaussian(variance=variance, variance_lower_bound=floor or None)
        else:
            likelihood = LinearMixingGaussian(P, P, variance=variance, variance_lower_bound=floor or 1e-12)
    output_dim = getattr(likelihood, "latent_dim", None) or P
    M = _num_inducing(num_inducing, N, paper_defaults)
    Z = initial_inducing_inputs(X, M, inducing_inputs, seed)
    layers = gp_layer_stack(
        plan_stack(X, Z, output_dim, num_layers, width, trainable_means=True),
        kernel_factory or _matern_factory,
        last_mean=gpflow.mean_functions.Constant(np.zeros(output_dim)),
        q_diag=q_diag,
        inner_q_sqrt_scale=inner_q_sqrt_scale,
    )
    widths = [layer.output_dim for layer in layers[:-1]]
    if settings["sigma_point_initialisation"] == "random":
        sigma_points, weights = random_sigma_points(S, widths, seed), None
    else:
        sigma_points, weights = gauss_hermite_sigma_points(S, widths)
    if num_layers == 1:
        weights = np.full(S, 1.0 / S)
    model = DSPP(
        layers,
        likelihood,
        N,
        sigma_points=sigma_points,
        weights=weights,
        beta=settings["beta"],
        data_term=data_term,
        seed=seed,
    )
    if not settings["trainable_sigma_points"]:
        for parameter in [*model.sigma_points, model.weight_logits]:
            gpflow.set_trainable(parameter, False)
    if not settings["trainable_inducing_inputs"]:
        for layer in model.layers:
            gpflow.set_trainable(layer.inducing_variable, False)
    return model


def _resolve_defaults(given: Dict[str, Any], paper_defaults: bool) -> Dict[str, Any]:
    """The arguments given, and for the others the safe or the paper's defaults, with a log line
    naming what was chosen for the user."""
    defaults = PAPER_DEFAULTS if paper_defaults else SAFE_DEFAULTS
    settings = {name: defaults[name] if value is None else value for name, value in given.items()}
    chosen = {name: settings[name] for name, value in given.items() if value is None}
    if chosen:
        where = "the paper's defaults" if paper_defaults else "safe defaults (paper_defaults=True for the paper's)"
        described = ", ".join(f"{name}={value!r}" for name, value in chosen.items())
        logger.info("build_dspp: %s: %s", where, described)
    return settings


def _num_inducing(given: Optional[int], N: int, paper_defaults: bool) -> int:
    """M as given, or the paper's 300 capped at N, or the safe default, logged."""
    if given is not None or paper_defaults:
        return adapted_size("build_dspp", "num_inducing", given, PAPER_NUM_INDUCING, N)
    M = safe_num_inducing(N)
    logger.info(
        "build_dspp: num_inducing=%d (the safe default for %d points: N/5 within [%d, %d], N if fewer)",
        M,
        N,
        SAFE_MIN_INDUCING,
        PAPER_NUM_INDUCING,
    )
    return M


def safe_noise(Y: np.ndarray) -> Tuple[float, float]:
    """The safe defaults' initial noise variance and floor: 10 % and 5 % of the targets' mean column
    variance. The floor stops the noise level from overfitting a small training set through
    thousands of steps with no held-out data (``docs/dspp.md``: concrete split 1)."""
    scale = mean_column_variance(Y)
    return SAFE_NOISE_SHARE * scale, SAFE_NOISE_FLOOR_SHARE * scale


def _noise_settings(
    noise_variance: Optional[float], noise_floor: Optional[float], Y: np.ndarray, paper_defaults: bool
) -> Tuple[float, float]:
    """The initial noise variance and its floor: those given, or the paper's or the safe defaults
    (a default start below a floor given is raised to twice the floor)."""
    variance, floor = (PAPER_NOISE_VARIANCE, PAPER_NOISE_FLOOR) if paper_defaults else safe_noise(Y)
    if noise_floor is None and not paper_defaults:
        logger.info("build_dspp: noise_floor=%.3g (the safe default: 5%% of the targets' variance)", floor)
    floor = floor if noise_floor is None else check_non_negative("noise_floor", noise_floor)
    if noise_variance is None:
        variance = max(variance, 2 * floor)
    else:
        variance = check_positive("noise_variance", noise_variance)
    if variance <= floor:
        raise ValueError(f"noise_variance={variance:.3g} must exceed noise_floor={floor:.3g}")
    return variance, floor


def _data_term(weight: float) -> DataTerm:
    check_non_negative("expected_log_likelihood_weight", weight)
    return BlendedLogLikelihood(weight) if weight > 0 else predictive_log_likelihood


def _matern_factory(_: int, input_width: int) -> Kernel:
    return gpflow.kernels.Matern52(variance=1.0, lengthscales=np.ones(input_width))
