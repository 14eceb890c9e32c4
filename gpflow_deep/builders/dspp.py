"""``build_dspp``: a deep sigma point process from data, with safe defaults or the paper's setup."""

from dataclasses import dataclass, replace
from functools import partial
from typing import Optional

import gpflow
import numpy as np
from gpflow.kernels import Kernel
from gpflow.likelihoods import Likelihood

from gpflow_deep.builders.configuration import Presets, configure, log_choice
from gpflow_deep.builders.initialisation import linear_fit_lost, linear_projection, mean_column_variance
from gpflow_deep.builders.pilot_gp import PILOT_FLOOR_ROWS, pilot_floor_applies, pilot_noise_variance
from gpflow_deep.builders.preparation import BuilderData, hidden_width, prepare_data
from gpflow_deep.builders.stack import KernelFactory, gp_layer_stack, plan_from_data
from gpflow_deep.core.validation import CATEGORICAL, check_above, check_choice, check_non_negative, check_positive_int
from gpflow_deep.likelihoods import LinearMixingGaussian
from gpflow_deep.models.dspp import DSPP, BlendedLogLikelihood, gauss_hermite_sigma_points, random_sigma_points
from gpflow_deep.objectives import DataTerm, predictive_log_likelihood

BUILDER = "build_dspp"
SIGMA_POINT_INITIALISATIONS = ("random", "gauss_hermite")
PAPER_NUM_INDUCING = 300
NOISE_START_SHARE, FALLBACK_FLOOR_SHARE = 0.1, 0.05
HIDDEN_MEANS_LEARNED_ABOVE = 0.5
"""The share of the targets' variance a held projection may hide from a linear fit before the
hidden means are learned instead (``trainable_hidden_means=None``)."""


@dataclass(frozen=True)
class DSPPConfig(Presets):
    """The choices of ``build_dspp``: ``.default()`` does not collapse onto small training sets,
    ``.paper()`` is Jankowiak et al. (2020, appendix A) for data of the paper's size
    (``docs/notes/dspp_defaults_investigation.md`` has the measurements behind the defaults). A
    field left None is decided from the data.

    :ivar num_sigma_points: S, sigma points lined up across units and layers (rule QR3).
    :ivar hidden_width: the hidden layers' width (the paper searches 3 and 5).
    :ivar trainable_hidden_means: learn the hidden layers' linear means from their start, the PCA
        projection or the identity (the paper), or hold them there as DSVI does: learned, they
        carry an input far from the training rows wherever the fit points (``docs/dspp.md``, "Held
        hidden means"). None: held, unless the PCA projection onto the hidden width hides more
        than half of the targets' variance from least squares (adjusted R² on all inputs minus that
        on the projected ones, above :data:`HIDDEN_MEANS_LEARNED_ABOVE`): PCA keeps the directions
        in which the inputs vary most, and a predictive input of small variance, such as a one-hot
        column, can be left out of all three.
    :ivar num_inducing: M k-means inducing inputs; None: ``inducing_per_point`` per training
        point within [``min_num_inducing``, ``max_num_inducing``], at most the rows given.
    :ivar min_num_inducing: the least M when ``num_inducing`` is None (100; the paper's 300).
    :ivar max_num_inducing: the most M when ``num_inducing`` is None (the paper's 300).
    :ivar inducing_per_point: M per training point when ``num_inducing`` is None (1/5: inducing
        inputs held at k-means centres must grow with the data to cover it).
    :ivar inducing_inputs: ``[M, D]`` inducing inputs of the first layer instead of k-means.
    :ivar trainable_inducing_inputs: learn the inducing inputs (the paper) or hold them at their start.
    :ivar beta: β, the weight of the KL regulariser (the paper picks it on a validation split:
        :func:`gpflow_deep.select_beta`).
    :ivar expected_log_likelihood_weight: α of the data term ``(1 − α)·PLL + α·ELL``
        (:class:`~gpflow_deep.models.dspp.BlendedLogLikelihood`; the paper's α = 0).
    :ivar sigma_point_initialisation: ``"random"`` (standard-normal, uniform weights: the paper's)
        or ``"gauss_hermite"`` (Gauss–Hermite nodes and weights).
    :ivar trainable_sigma_points: learn the sigma points and weights (the paper) or hold them.
    :ivar kernel_factory: ``(layer_index, input_width) -> kernel``; None: Matérn-5/2 ARD, variance
        and lengthscales 1.
    :ivar q_diag: diagonal (mean-field) ``q_sqrt``, whitened, instead of a full one.
    :ivar inner_q_sqrt_scale: hidden layers' ``q_sqrt`` at the prior's scaled by this.
    :ivar noise_scale: the unit of a default noise start (and of the floor when the pilot GP
        fails); None: the targets' mean column variance (the paper's are absolute: 1).
    :ivar noise_variance: the Gaussian likelihood's initial variance; None: 0.1 noise units (the
        paper's), or with ``noise_from_pilot`` the pilot GP's noise, at least twice the floor.
    :ivar noise_from_pilot: start the noise at the pilot GP's when ``noise_variance`` is None, so at
        twice it with the default floor (an option: with the floor of 5% of the targets' variance it
        was level with the defaults on caschools and houseprices, ``docs/dspp.md``).
    :ivar noise_floor: the likelihood variance's lower bound, in the targets' units squared; None:
        the noise variance of a pilot exact GP on at most 500 rows
        (:func:`~gpflow_deep.builders.pilot_gp.pilot_noise_variance`), 0.05 noise units if that fit
        fails (the paper's 1e-4). DSPP's predictive data term lets the noise fall below the table's
        and its intervals narrow; the floor stops it, and the pilot's noise follows the table where
        a share of the targets' variance does not (``docs/dspp.md``, "The noise floor").
    :ivar pilot_noise_floor_rows: the pilot's floor (``noise_floor`` None) bounds the noise of a
        training set of at most this many rows (N, ``num_data``); a larger one has GPflow's own bound.
        None: of every size. Through the command line with a Gaussian likelihood, the pilot's floor
        held the noise near it and cost 0.178 nats a test row on Birthdays (329,000 training rows),
        0.081 on flights (289,000), one run each (``docs/dspp.md``, "The noise floor").
    """

    num_sigma_points: int = 10
    hidden_width: int = 3
    trainable_hidden_means: Optional[bool] = None
    num_inducing: Optional[int] = None
    min_num_inducing: int = 100
    max_num_inducing: int = PAPER_NUM_INDUCING
    inducing_per_point: float = 1 / 5
    inducing_inputs: Optional[np.ndarray] = None
    trainable_inducing_inputs: bool = False
    beta: float = 1.0
    expected_log_likelihood_weight: float = 0.5
    sigma_point_initialisation: str = "gauss_hermite"
    trainable_sigma_points: bool = False
    kernel_factory: Optional[KernelFactory] = None
    q_diag: bool = True
    inner_q_sqrt_scale: float = 1.0
    noise_scale: Optional[float] = None
    noise_variance: Optional[float] = None
    noise_from_pilot: bool = False
    noise_floor: Optional[float] = None
    pilot_noise_floor_rows: Optional[int] = PILOT_FLOOR_ROWS

    @classmethod
    def paper(cls) -> "DSPPConfig":
        """Appendix A: M = 300 (at most N), learned inducing inputs, learned standard-normal sigma
        points, learned hidden means, the predictive log-likelihood alone, β = 1, noise 0.1 with
        a floor of 1e-4."""
        return cls(
            trainable_hidden_means=True,
            min_num_inducing=PAPER_NUM_INDUCING,
            trainable_inducing_inputs=True,
            expected_log_likelihood_weight=0.0,
            sigma_point_initialisation="random",
            trainable_sigma_points=True,
            noise_scale=1.0,
            noise_floor=1e-4,
        )


def build_dspp(
    X, Y, num_layers: int = 2, *, config=None, likelihood=None, num_data=None, seed: int = 0, **overrides
) -> DSPP:
    """A ``DSPP`` of ``num_layers`` ``GPLayer`` s from X ``[n, D]`` and Y ``[n, P]``, set up as
    ``config`` says (:class:`DSPPConfig`, by default ``.default()``; ``paper_defaults=True`` is
    ``config=DSPPConfig.paper()``; ``overrides`` are its fields): k-means inducing inputs carried
    through a linear mean on every hidden layer (the PCA projection or the identity, held or
    learned), a learned constant mean on the last, Matérn-5/2 ARD kernels, S sigma points, and
    the data term ``(1 − α)·PLL + α·ELL`` minus β times the KL.

    The likelihood is a Gaussian for one target column, for P > 1 columns a
    :class:`~gpflow_deep.likelihoods.LinearMixingGaussian` on a last layer of width P (appendix
    A.3), unless ``likelihood`` is given. With ``num_data`` = N, X and Y are a sample of a training
    set of N rows: k-means and the projections see the sample, M and the objective follow N.
    What was decided for the user goes to the ``gpflow_deep`` logger.
    """
    config = configure(BUILDER, DSPPConfig, config, overrides, ("paper_defaults", {True: "paper", False: "default"}))
    S = check_positive_int("num_sigma_points", config.num_sigma_points)
    check_choice("sigma_point_initialisation", config.sigma_point_initialisation, SIGMA_POINT_INITIALISATIONS)
    data_term = _data_term(config.expected_log_likelihood_weight)
    data = prepare_data(X, Y, num_layers, likelihood, partial(_default_likelihood, config, seed), num_data)
    config = replace(config, hidden_width=hidden_width(BUILDER, config.hidden_width, data.X.shape[1]))
    bounds = (config.min_num_inducing, config.max_num_inducing)
    plans = plan_from_data(
        BUILDER,
        data,
        config,
        seed,
        trainable_means=_trainable_hidden_means(config, data),
        bounds=bounds,
        per_point=config.inducing_per_point,
    )
    layers = gp_layer_stack(
        plans,
        config.kernel_factory or _matern_factory,
        last_mean=gpflow.mean_functions.Constant(np.zeros(data.output_dim)),
        q_diag=config.q_diag,
        inner_q_sqrt_scale=config.inner_q_sqrt_scale,
        trainable_inducing_inputs=config.trainable_inducing_inputs,
    )
    widths = [plan.output_dim for plan in plans[:-1]]
    if config.sigma_point_initialisation == "random":
        sigma_points, weights = random_sigma_points(S, widths, seed), None
    else:
        sigma_points, weights = gauss_hermite_sigma_points(S, widths)
    if data.num_layers == 1:
        weights = np.full(S, 1.0 / S)
    model = DSPP(
        layers,
        data.likelihood,
        data.num_data,
        sigma_points=sigma_points,
        weights=weights,
        beta=config.beta,
        data_term=data_term,
        seed=seed,
    )
    if not config.trainable_sigma_points:  # the model's own parameters: DSPP takes no trainability
        for parameter in [*model.sigma_points, model.weight_logits]:
            gpflow.set_trainable(parameter, False)
    return model


def _trainable_hidden_means(config: DSPPConfig, data: BuilderData) -> bool:
    """``config.trainable_hidden_means``, or when None whether the held projection of the inputs
    onto the (decided) hidden width hides more than :data:`HIDDEN_MEANS_LEARNED_ABOVE` of the targets'
    variance from a linear fit (logged)."""
    if config.trainable_hidden_means is not None:
        return config.trainable_hidden_means
    if data.num_layers == 1 or config.hidden_width >= data.X.shape[1]:
        return False  # no hidden layer, or a projection that drops nothing
    lost = linear_fit_lost(data.X, _target_columns(data), linear_projection(data.X, config.hidden_width))
    reason = f"the held projection hides {lost:.2f} of the targets' variance from a linear fit"
    return log_choice(BUILDER, "trainable_hidden_means", lost > HIDDEN_MEANS_LEARNED_ABOVE, reason)


def _target_columns(data: BuilderData) -> np.ndarray:
    """``[n, P]`` targets as a linear fit reads them: class labels one-hot for a categorical likelihood."""
    if isinstance(data.likelihood, CATEGORICAL):
        return np.eye(data.likelihood.num_classes)[data.Y[:, 0].astype(int)]
    return data.Y


def _default_likelihood(config: DSPPConfig, seed: int, X: np.ndarray, Y: np.ndarray, num_data: int) -> Likelihood:
    """A Gaussian (one column of Y) or a ``LinearMixingGaussian`` (P > 1) of the config's noise
    start and floor for X ``[n, D]``, Y ``[n, P]``, a sample of ``num_data`` training rows, the None
    ones decided from the data and logged."""
    scale = config.noise_scale
    if scale is None:
        scale = log_choice(BUILDER, "noise_scale", mean_column_variance(Y), "the targets' variance")
    floor = config.noise_floor
    if floor is None and not pilot_floor_applies(BUILDER, "noise_floor", num_data, config.pilot_noise_floor_rows):
        floor = 0.0
    wants_pilot = floor is None or (config.noise_variance is None and config.noise_from_pilot)
    pilot = pilot_noise_variance(X, Y, seed) if wants_pilot else None
    if floor is None:
        floor = _pilot_floor(pilot, scale)
    floor = check_non_negative("noise_floor", floor)
    variance = config.noise_variance
    if variance is None:
        pilot_start = pilot is not None and config.noise_from_pilot
        start, reason = (
            (pilot, "a pilot exact GP's") if pilot_start else (NOISE_START_SHARE * scale, "10% of noise_scale")
        )
        variance = log_choice(BUILDER, "noise_variance", max(start, 2 * floor), f"{reason}, at least twice the floor")
    variance = check_above("noise_variance", variance, "noise_floor", floor)
    P = Y.shape[1]
    if P == 1:
        return gpflow.likelihoods.Gaussian(variance=variance, variance_lower_bound=floor or None)
    return LinearMixingGaussian(P, P, variance=variance, variance_lower_bound=floor or 1e-12)


def _pilot_floor(pilot: Optional[float], scale: float) -> float:
    """The default floor, logged: the pilot GP's noise variance, or 5% of ``scale`` without one."""
    if pilot is None:
        return log_choice(BUILDER, "noise_floor", FALLBACK_FLOOR_SHARE * scale, "5% of noise_scale: no pilot GP")
    return log_choice(BUILDER, "noise_floor", pilot, "a pilot exact GP's noise")


def _data_term(weight: float) -> DataTerm:
    check_non_negative("expected_log_likelihood_weight", weight)
    return BlendedLogLikelihood(weight) if weight > 0 else predictive_log_likelihood


def _matern_factory(_: int, input_width: int) -> Kernel:
    return gpflow.kernels.Matern52(variance=1.0, lengthscales=np.ones(input_width))
