"""``build_random_feature_dgp``: random-feature deep GPs (Cutajar et al. 2017) from data, started
from the data (``.default()``) or with the paper's UCI setup (``.paper()``)."""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import gpflow
import numpy as np
import tensorflow as tf
from gpflow.kernels import Kernel
from gpflow.likelihoods import Gaussian

from gpflow_deep.builders.bayesian_linear import evidence_noise_variance, linear_model_posterior
from gpflow_deep.builders.configuration import SETUP_ALIAS, Presets, configure, log_choice
from gpflow_deep.builders.initialisation import mean_column_variance
from gpflow_deep.builders.pilot_gp import PILOT_FLOOR_ROWS, pilot_floor_applies, pilot_noise_variance
from gpflow_deep.builders.preparation import NOISE_SHARE, BuilderData, gaussian_likelihood, hidden_width, prepare_data
from gpflow_deep.core.additive_noise import (
    additive_noise_variance,
    has_additive_noise,
    set_additive_noise_variance,
    student_t_scale,
)
from gpflow_deep.core.validation import check_choice, check_positive, check_positive_int
from gpflow_deep.layers import RandomFeatureLayer
from gpflow_deep.layers.random_features.random_feature_layer import OMEGA_MODES
from gpflow_deep.models import RandomFeatureDGP

BUILDER = "build_random_feature_dgp"
KERNELS = ("rbf", "arccos")
PAPER_HIDDEN_WIDTH = 3
MAX_ROWS_FOR_INITIAL_POSTERIOR = 2000


@dataclass(frozen=True)
class RandomFeatureDGPConfig(Presets):
    """The choices of ``build_random_feature_dgp``: ``.default()`` starts from the data so that the
    obvious path trains, ``.paper()`` is the paper's UCI setup (Section 4; its code's initial
    values). A field left None is decided from the data.

    :ivar hidden_width: the hidden layers' width; None: min(30, max(3, D)) (the paper's 3).
    :ivar num_features: N_RF random features per layer.
    :ivar kernel: ``"rbf"`` (DGP-RBF) or ``"arccos"`` (DGP-ARC).
    :ivar arccos_order: the arc-cosine kernel's order (1: ReLU features).
    :ivar omega_mode: ``"var-fixed"`` (the paper's), ``"prior-fixed"`` or ``"var-resampled"``.
    :ivar local_reparameterisation: Gaussian marginals Φm, Φ²s² instead of one W per path; None:
        on only for a ``MultiClass`` likelihood, whose robust-max expectation has zero gradients
        at the paper's zero-variance draws.
    :ivar feed_forward: the inputs X fed forward to every later layer; None: when ``num_layers``
        exceeds ``feed_forward_above``.
    :ivar feed_forward_above: the depth beyond which X is fed forward when ``feed_forward`` is
        None (1: always with hidden layers; the paper's 3: beyond two hidden layers).
    :ivar scale_to_data: lengthscales in units of each input column's standard deviation where the
        inputs are X (the paper's units are those of standardised data) and, with a Gaussian
        likelihood, the last kernel's σ² = var(Y); False: σ² = 1 per layer and ℓ in the inputs'
        own units (the arc-cosine kernel's weight and bias variances 1/D_in).
    :ivar lengthscales_per_block: the squared-exponential lengthscales sqrt(w) (× the scale above),
        w the width of the column's block: the layer below's outputs, or X fed forward, so that the
        last layer's kernel over X starts at the first layer's lengthscale; False: sqrt(D_in) over
        all of a layer's inputs (the paper's, where nothing is fed forward; the default until
        2026-12-01). The paper's Ω barely moves its lengthscales, and with sqrt(D_in) the fed-forward
        X's kernel started sqrt(2) smoother than the first layer's on boston: per block scored
        +0.035 (0.006) over 100 fresh boston splits and +0.034 (0.004) over 60 of concrete, and
        lower on the diamond and college tables (−0.064 (0.009), −0.062 (0.015)) and, through the
        command line, on flights (−0.158, one split; ``docs/random_features.md``).
    :ivar hidden_w_std: the hidden layers' initial q(W) standard deviation (0.01: they start near
        zero and the fed-forward X carries the data; the paper's 1, the prior).
    :ivar last_layer_at_posterior: with a Gaussian likelihood, start the last layer's q(W) at the
        mean-field posterior of its Bayesian linear model on the initial features (a fitted
        one-layer random-feature GP); False: at the prior.
    :ivar noise_variance: the Gaussian likelihood's initial variance, when no likelihood is given;
        None: see ``pilot_noise_fraction`` and ``noise_from_evidence``.
    :ivar pilot_noise_fraction: with ``noise_variance`` None, start the noise at the largest of
        0.01·var(Y) (the paper's e⁻² on standardised targets), this fraction of a pilot exact
        GP's noise variance (:func:`~gpflow_deep.builders.pilot_gp.pilot_noise_variance`) and 1.1
        times ``pilot_noise_floor``'s bound (with the default floor, 0.88 of the pilot's). Alone, the
        paper's start where the pilot finds less than a tenth of var(Y) to be noise (nearly every
        split of boston and concrete), and one that follows the noise on noisier tables, where
        0.01·var(Y) left the last layer's q(W) too tight to recover in 3,000 steps (cps1985: 1.4
        nats below least squares, ``docs/random_features.md``). None: 0.01·var(Y) (the default
        until 2026-11-29).
    :ivar pilot_noise_floor: with the pilot's start, bound ε's variance below by this fraction of
        the pilot GP's noise variance (in GPflow's transform of the Student-t's scale, or of the
        Gaussian's variance) and start it at 1.1 times the bound at least. Without it, the annealed
        step (``RandomFeatureDGP.default_anneal``) let the noise and the features settle on the
        training rows of noisy tables: through the command line on males its 90% intervals covered
        0.75–0.82, with it 0.83–0.89 (``docs/random_features.md``). None: unbounded (the default
        until 2026-12-01).
    :ivar pilot_noise_floor_rows: ``pilot_noise_floor`` bounds the noise of a training set of at
        most this many rows (N, ``num_data``) and no larger one; None: of every size. The pilot sees
        :data:`~gpflow_deep.builders.pilot_gp.PILOT_ROWS` rows, and on a table of many more the model
        learns what they could not show: through the command line the floor held ε at the bound on
        Birthdays (336,000 rows), and without it the test log-likelihood was 0.055 nats per row
        higher there, 0.026 on flights (303,000) and 0.029 on diamonds (48,500), level on cps1988
        (25,300), one run each (``docs/random_features.md``).
    :ivar noise_floor: with the pilot's start, that bound as a variance in the targets' units
        squared, in place of ``pilot_noise_floor``'s (a run directory records the one chosen: the
        floor is in GPflow's transform, not in a checkpoint); None: from the pilot.
    :ivar noise_from_evidence: with ``last_layer_at_posterior``, start the noise at the variance of
        greatest evidence in the last layer's linear model on its initial features (type II maximum
        likelihood, among 1e-4 to 3.16 times var(Y)): as large as those features leave the
        residuals. On a noisy table where a start at 1% of var(Y) collapsed (cps1985: −4.3 nats
        on average) it scored −2.87, level with least squares; on boston it was level with the
        defaults (−0.04 (0.03) over 40 fresh splits) and on concrete worse (−0.07 (0.02)), with
        wider intervals on both (``docs/random_features.md``).
    :ivar student_t_df: with no likelihood given, GPflow's Student-t of this many degrees of
        freedom (more than 2), its variance s²ν/(ν − 2) started where the Gaussian's would be;
        None: the Gaussian (the paper's). Random features cannot widen the predictive far from the
        training rows (variance starvation), and heavy tails bound what such a row costs: over 80
        fresh boston splits ν = 3 scored +0.085 (0.028) against the Gaussian, over 50 of concrete
        −0.028 (0.009), at a 7-10% higher RMSE on both (``docs/random_features.md``).
    :ivar num_samples: S, the Monte Carlo paths per training step and member.
    :ivar num_members: K, independent members (Ω's ε, q(Ω), q(W)) of every layer, path s taking
        member s mod K: the equal mixture of K networks (1: the paper's model; 3 scored better on
        fresh boston and concrete splits at about twice the step's time, ``docs/random_features.md``).
    """

    hidden_width: Optional[int] = None
    num_features: int = 100
    kernel: str = "rbf"
    arccos_order: int = 1
    omega_mode: str = "var-fixed"
    local_reparameterisation: Optional[bool] = None
    feed_forward: Optional[bool] = None
    feed_forward_above: int = 1
    scale_to_data: bool = True
    lengthscales_per_block: bool = True
    hidden_w_std: float = 0.01
    last_layer_at_posterior: bool = True
    noise_variance: Optional[float] = None
    pilot_noise_fraction: Optional[float] = 0.1
    pilot_noise_floor: Optional[float] = 0.8
    pilot_noise_floor_rows: Optional[int] = PILOT_FLOOR_ROWS
    noise_floor: Optional[float] = None
    noise_from_evidence: bool = False
    student_t_df: Optional[float] = 3.0
    num_samples: int = 1
    num_members: int = 1

    @classmethod
    def paper(cls) -> "RandomFeatureDGPConfig":
        """Section 4: width 3, N_RF = 100, σ² = 1, ℓ = sqrt(D_in), q(Ω) and q(W) at their priors,
        noise e⁻², X fed forward beyond two hidden layers. Train it with the paper's schedule
        through :func:`~gpflow_deep.fit`: Adam 0.01, batch 200, ``fixed_hyperparameters_for`` and
        ``num_samples_schedule={iterations // 2: 100}``."""
        return cls(
            hidden_width=PAPER_HIDDEN_WIDTH,
            feed_forward_above=3,
            scale_to_data=False,
            lengthscales_per_block=False,
            hidden_w_std=1.0,
            last_layer_at_posterior=False,
            noise_variance=float(np.exp(-2.0)),
            student_t_df=None,
        )


def build_random_feature_dgp(
    X, Y, num_layers: int = 2, *, config=None, likelihood=None, num_data=None, seed: int = 0, **overrides
) -> RandomFeatureDGP:
    """A ``RandomFeatureDGP`` of ``num_layers`` ``RandomFeatureLayer`` s ("1 hidden layer" is 2)
    from X ``[n, D]`` and Y ``[n, P]``, set up as ``config`` says (:class:`RandomFeatureDGPConfig`,
    by default ``.default()``; ``setup="paper"`` is ``config=RandomFeatureDGPConfig.paper()``,
    ``setup="data"`` the default; ``overrides`` are its fields).

    Any GPflow ``likelihood`` works (the last layer has its latent dimension, Y's column count for
    a Gaussian). With ``num_data`` = N, X and Y are a sample of a training set of N rows: the
    feature scales and the last layer's start see the sample (scaled to N), the objective N.
    """
    config = configure(BUILDER, RandomFeatureDGPConfig, config, overrides, SETUP_ALIAS)
    check_choice("kernel", config.kernel, KERNELS)
    check_choice("omega_mode", config.omega_mode, OMEGA_MODES)
    num_features = check_positive_int("num_features", config.num_features)
    members = check_positive_int("num_members", config.num_members)
    choose_noise = config.noise_from_evidence and config.last_layer_at_posterior
    if choose_noise and config.noise_variance is not None:
        raise ValueError("give noise_variance or noise_from_evidence=True, not both")

    df = config.student_t_df
    if df is not None and not df > 2:
        raise ValueError(f"student_t_df must be above 2 (the Student-t's variance is finite there), got {df}")

    def default_likelihood(X, Y, N):
        """The Gaussian, or the Student-t of ``student_t_df``, for a sample X, Y of N training rows;
        with noise_from_evidence its variance is chosen with the last layer's start."""
        variance, floor = config.noise_variance, None
        if variance is None and config.pilot_noise_fraction is not None and not choose_noise:
            variance, floor = _noise_start_and_floor(X, Y, config, seed, N)
        gaussian = gpflow.likelihoods.Gaussian() if choose_noise else gaussian_likelihood(BUILDER, variance, Y)
        if df is None:
            return gaussian if floor is None else Gaussian(variance=variance, variance_lower_bound=floor)
        scale_floor = None if floor is None else student_t_scale(floor, df)
        likelihood = gpflow.likelihoods.StudentT(df=df, scale_lower_bound=scale_floor)
        set_additive_noise_variance(likelihood, gaussian.variance.numpy())
        return likelihood

    data = prepare_data(X, Y, num_layers, likelihood, default_likelihood, num_data)
    D = data.X.shape[1]
    width = hidden_width(BUILDER, config.hidden_width, D, PAPER_HIDDEN_WIDTH)
    widths = [D] + [width] * (data.num_layers - 1) + [data.output_dim]
    feed_forward, local_reparameterisation = _propagation(config, data)

    def layer(index: int, **start) -> RandomFeatureLayer:
        """Layer ``index``, its q(W) started at ``start`` (the prior's by default)."""
        fed = D if feed_forward and index > 0 else 0
        return RandomFeatureLayer(
            _kernel(config, data, index, widths[index], fed),
            widths[index],
            widths[index + 1],
            num_features,
            omega_mode=config.omega_mode,
            local_reparameterisation=local_reparameterisation,
            fed_input_dim=fed,
            num_members=members,
            seed=(seed, index),
            name=f"layer_{index}",
            **start,
        )

    layers = [layer(index, w_std=config.hidden_w_std) for index in range(data.num_layers - 1)]
    start = {}
    if config.last_layer_at_posterior and has_additive_noise(data.likelihood):
        # the last layer's features come from a copy at the prior: its Ω is keyed by the seed
        choose = choose_noise and likelihood is None
        start = _last_layer_posterior(layers, layer(len(layers)), data, feed_forward, seed, choose)
    layers.append(layer(len(layers), **start))
    return RandomFeatureDGP(
        layers,
        data.likelihood,
        num_data=data.num_data,
        num_samples=members * check_positive_int("num_samples", config.num_samples),
        feed_forward=feed_forward,
        seed=seed,
    )


def _propagation(config: RandomFeatureDGPConfig, data: BuilderData) -> Tuple[bool, bool]:
    """``feed_forward`` and ``local_reparameterisation``: the config's, or decided (and logged)."""
    feed_forward, local = config.feed_forward, config.local_reparameterisation
    if feed_forward is None:
        above = config.feed_forward_above
        feed_forward = log_choice(BUILDER, "feed_forward", data.num_layers > above, f"num_layers > {above}")
    if local is None:
        multiclass = isinstance(data.likelihood, gpflow.likelihoods.MultiClass)
        local = log_choice(BUILDER, "local_reparameterisation", multiclass, "on for a MultiClass likelihood only")
    return bool(feed_forward), bool(local)


def _kernel(config: RandomFeatureDGPConfig, data: BuilderData, index: int, input_dim: int, fed: int) -> Kernel:
    """Layer ``index``'s kernel over its ``input_dim`` inputs and ``fed`` fed-forward ones, D_in in
    all: ℓ = sqrt(w) · scale per input column, w = D_in or with ``lengthscales_per_block`` the
    width of the column's block (``input_dim`` or ``fed``); the arc-cosine weight and bias
    variances 1/(D_in · scale²) and 1/D_in (the paper's code: σ² = 1, ℓ = sqrt(D_in) on
    standardised data). With ``scale_to_data`` the scales are the data's standard deviations where
    the inputs are X, and the last kernel's σ² is var(Y) under a Gaussian likelihood."""
    width = input_dim + fed
    scales, variance = np.ones(width), 1.0
    if config.scale_to_data:
        x_scale = _column_scales(data.X)
        below = x_scale if index == 0 else np.ones(input_dim)
        scales = np.concatenate([below, x_scale if fed else np.zeros(0)])
        if index == data.num_layers - 1 and has_additive_noise(data.likelihood):
            variance = mean_column_variance(data.Y)
    if config.kernel == "rbf":
        widths = np.repeat([input_dim, fed], [input_dim, fed]) if config.lengthscales_per_block else width
        return gpflow.kernels.SquaredExponential(variance=variance, lengthscales=np.sqrt(widths) * scales)
    return gpflow.kernels.ArcCosine(
        config.arccos_order, variance=variance, weight_variances=1.0 / (width * scales**2), bias_variance=1.0 / width
    )


def _noise_start_and_floor(
    X: np.ndarray, Y: np.ndarray, config: RandomFeatureDGPConfig, seed: int, num_data: int
) -> Tuple[float, Optional[float]]:
    """ε's starting variance and its lower bound (None: unbounded) for X ``[n, D]``, Y ``[n, P]``,
    a sample of ``num_data`` training rows, logged: the start max(0.01·var(Y),
    ``pilot_noise_fraction`` × the pilot GP's noise, 1.1 × the floor), the floor ``noise_floor`` or
    else ``pilot_noise_floor`` × the pilot's (none when the pilot fails, or the table has more than
    ``pilot_noise_floor_rows`` rows)."""
    fraction = check_positive("pilot_noise_fraction", config.pilot_noise_fraction)
    floor, floor_fraction, most_rows = config.noise_floor, config.pilot_noise_floor, config.pilot_noise_floor_rows
    if floor is not None:
        floor = check_positive("noise_floor", floor)
    elif floor_fraction is not None:
        floor_fraction = check_positive("pilot_noise_floor", floor_fraction)
        if not pilot_floor_applies(BUILDER, "noise_floor", num_data, most_rows):
            floor_fraction = None
    share, pilot = NOISE_SHARE * mean_column_variance(Y), pilot_noise_variance(X, Y, seed)
    if pilot is None:
        start = log_choice(
            BUILDER,
            "noise_variance",
            max(share, 1.1 * (floor or 0.0)),
            "1% of var(Y) (or 1.1 times the floor); the pilot exact GP failed",
        )
        return start, floor
    if floor is None and floor_fraction is not None:
        floor = log_choice(BUILDER, "noise_floor", floor_fraction * pilot, f"{floor_fraction:g} of a pilot exact GP's")
    starts = {
        "1% of var(Y)": share,
        f"{fraction:g} of a pilot exact GP's": fraction * pilot,
        "1.1 times the floor": 1.1 * (floor or 0.0),
    }
    reason = max(starts, key=starts.get)
    return log_choice(BUILDER, "noise_variance", starts[reason], f"{reason}, the largest of {', '.join(starts)}"), floor


def _column_scales(X: np.ndarray) -> np.ndarray:
    """Each column's standard deviation (1 for a constant column)."""
    std = np.std(X, axis=0)
    return np.where(std > 0, std, 1.0)


def _last_layer_posterior(
    hidden: List[RandomFeatureLayer],
    last: RandomFeatureLayer,
    data: BuilderData,
    feed_forward: bool,
    seed: int,
    choose_noise: bool,
) -> Dict[str, np.ndarray]:
    """``w_mean`` and ``w_std``, ``[F, L]`` (``[K, F, L]`` with K members): q(W) of the ``last``
    layer (as it starts) at the mean-field optimum of its Bayesian linear model y = Φ W + ε on the
    features of the ``hidden`` layers' mean outputs, member by member: with A = I + ΦᵀΦ/σ² (summed
    over at most 2,000 rows, scaled to N), mean A⁻¹ΦᵀY/σ² (the exact posterior mean, which is also
    the mean-field one) and standard deviations 1/sqrt(diag A) (the mean-field ones). With
    ``choose_noise`` σ² is first set, in the likelihood too, to the linear models' greatest evidence
    (:func:`~gpflow_deep.builders.bayesian_linear.evidence_noise_variance`), so that the noise
    starts as large as the features leave the residuals."""
    X, Y = data.X, data.Y
    rows = np.arange(len(X))
    if len(X) > MAX_ROWS_FOR_INITIAL_POSTERIOR:
        rows = np.sort(np.random.default_rng(seed).choice(len(X), MAX_ROWS_FOR_INITIAL_POSTERIOR, replace=False))
    X_rows = tf.convert_to_tensor(X[rows])
    members = last.num_members  # path k below is member k
    inputs = X_rows[None]
    fixed_seed = tf.constant([seed, 0], tf.int64)
    for layer in hidden:
        weights = layer.for_paths(layer.w_mean, members)
        inputs = tf.linalg.matmul(layer.features(inputs, fixed_seed, num_paths=members), weights)
        if feed_forward:
            inputs = tf.concat([inputs, tf.tile(X_rows[None], [members, 1, 1])], axis=-1)
    features, scale = last.features(inputs, fixed_seed, num_paths=members).numpy(), data.num_data / len(rows)
    if choose_noise:
        noise = evidence_noise_variance(features, Y[rows], scale)
        reason = "greatest evidence of the last layer's linear model on its initial features"
        set_additive_noise_variance(data.likelihood, log_choice(BUILDER, "noise_variance", noise, reason))
    means, stds = [], []
    for Phi in features:
        mean, chol = linear_model_posterior(Phi, Y[rows], additive_noise_variance(data.likelihood), scale)
        precision_diagonal = np.sum(chol**2, axis=1)  # A = LLᵀ: A_ii = Σ_j L_ij²
        means.append(mean)
        stds.append(np.tile(1.0 / np.sqrt(precision_diagonal)[:, None], (1, last.output_dim)))
    shape = last.w_mean.shape
    return dict(w_mean=np.reshape(means, shape), w_std=np.reshape(stds, shape))
