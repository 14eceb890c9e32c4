"""``build_aep_dgp``: an approximate-EP deep GP with the public code's setup, from data."""

from dataclasses import dataclass
from functools import partial
from typing import Optional

import numpy as np
from gpflow.likelihoods import Gaussian

from gpflow_deep.builders.configuration import Presets, configure, log_choice
from gpflow_deep.builders.pilot_gp import PILOT_FLOOR_ROWS, pilot_floor_applies, pilot_noise_variance
from gpflow_deep.builders.preparation import prepare_data
from gpflow_deep.builders.stack import LayerPlan, StackFields, plan_from_data
from gpflow_deep.core.validation import check_above, check_non_negative
from gpflow_deep.layers import AEPLayer
from gpflow_deep.models.aep_dgp import AEPDGP

BUILDER = "build_aep_dgp"
PUBLIC_CODE_NUM_INDUCING = 100
PUBLIC_CODE_LIKELIHOOD_VARIANCE = 0.01
PILOT_FLOOR_FRACTION = 0.25
"""The default floor's share of a pilot exact GP's noise variance."""


@dataclass(frozen=True)
class AEPDGPConfig(StackFields, Presets):
    """The choices of ``build_aep_dgp``: the inducing inputs and kernels of :class:`StackFields`
    (as ``build_deep_gp``'s, for a like-for-like comparison; moment matching needs RBF kernels)
    and the fields below, the public AEP-MCM code's but for the noise's floor, which ``.default()``
    takes from the data and ``.paper()`` leaves at GPflow's 1e-6. A field left None is decided from
    the data.

    :ivar noise_variance: the inter-layer noise variance on inner layers, learned.
    :ivar inner_posterior_std: in (0, 1): inner layers' sites R = rI with r such that q has this
        standard deviation (nearly deterministic inner layers); the last layer's sites have
        γ = 0 and R = I.
    :ivar likelihood_variance: the Gaussian likelihood's initial variance, when no likelihood is
        given; None: the public code's 0.01, or twice ``likelihood_floor`` if that is more.
    :ivar likelihood_floor: a lower bound on that variance, in the targets' units squared; None:
        a quarter of a pilot exact GP's noise variance on at most 500 rows
        (:func:`~gpflow_deep.builders.pilot_gp.pilot_noise_variance`), 0 if that fit fails; 0:
        GPflow's own 1e-6, the public code's unbounded noise. AEP's data term
        ln E_cavity[p(y | f)] is a predictive log-likelihood, so the noise can fall far below the
        table's; a fixed floor kept boston's intervals and cost log-likelihood where the table's
        noise lay below it, the pilot's quarter follows the table (``docs/aep.md``, "The
        likelihood's noise").
    :ivar pilot_noise_floor_rows: the pilot's floor (``likelihood_floor`` None) bounds the noise of a
        training set of at most this many rows (N, ``num_data``); a larger one has GPflow's own
        bound. None: of every size. Through the command line with a Gaussian likelihood, the pilot's
        quarter held the noise at its bound and cost 0.133 nats a test row on Birthdays (329,000
        training rows), 0.028 on flights (289,000), one run each (``docs/aep.md``, "The likelihood's
        noise").
    :ivar num_samples: S, the Monte Carlo paths per training step.
    :ivar num_prediction_samples: the paths for predictions.
    :ivar propagation: ``"monte_carlo"`` or ``"moment_matching"`` (Bui et al.).
    """

    noise_variance: float = 0.01
    inner_posterior_std: float = 0.01
    likelihood_variance: Optional[float] = None
    likelihood_floor: Optional[float] = None
    pilot_noise_floor_rows: Optional[int] = PILOT_FLOOR_ROWS
    num_samples: int = 20
    num_prediction_samples: int = 100
    propagation: str = "monte_carlo"

    @classmethod
    def paper(cls) -> "AEPDGPConfig":
        """The public code's setup: the defaults with the noise unbounded (GPflow's 1e-6)."""
        return cls(likelihood_floor=0.0)


def build_aep_dgp(
    X, Y, num_layers: int = 2, *, config=None, likelihood=None, num_data=None, seed: int = 0, **overrides
) -> AEPDGP:
    """An ``AEPDGP`` of ``num_layers`` ``AEPLayer`` s from X ``[n, D]`` and Y ``[n, P]``, set up as
    ``config`` says (:class:`AEPDGPConfig`, by default ``.default()``, with ``overrides`` of its
    fields): k-means inducing inputs carried through fixed linear means (identity or PCA) on inner
    layers, a zero mean on the last (``builders.stack.plan_stack``), learned inter-layer noise,
    sites started at nearly deterministic inner layers.

    The likelihood is Gaussian, its noise bounded below by a quarter of a pilot exact GP's on a
    training set of at most 10,000 rows, unless ``likelihood`` is given (Bernoulli, MultiClass, Poisson…).
    With ``num_data`` = N, X and Y are a sample of a training set of N rows: k-means and the
    projections see the sample; the sites and the objective count N points.
    """
    config = configure(BUILDER, AEPDGPConfig, config, overrides, None)
    if not 0 < config.inner_posterior_std < 1:
        raise ValueError(f"inner_posterior_std must lie in (0, 1) (the prior's), got {config.inner_posterior_std!r}")
    data = prepare_data(X, Y, num_layers, likelihood, partial(_gaussian, config, seed), num_data)
    bounds = (PUBLIC_CODE_NUM_INDUCING, PUBLIC_CODE_NUM_INDUCING)
    plans = plan_from_data(BUILDER, data, config, seed, trainable_means=False, bounds=bounds)
    kernel_factory = config.kernels()
    inner_scale = np.sqrt(1.0 / config.inner_posterior_std**2 - 1.0)
    layers = [
        AEPLayer(
            kernel_factory(plan.index, plan.input_dim),
            plan.inducing_inputs,
            plan.output_dim,
            num_data=data.num_data,
            mean_function=plan.mean_function,
            noise_variance=config.noise_variance if plan.hidden else None,
            site_scale=_site_scale(plan, inner_scale if plan.hidden else 1.0),
            name=f"layer_{plan.index}",
        )
        for plan in plans
    ]
    return AEPDGP(
        layers,
        data.likelihood,
        num_data=data.num_data,
        num_samples=config.num_samples,
        propagation=config.propagation,
        num_prediction_samples=config.num_prediction_samples,
        seed=seed,
    )


def _gaussian(config: AEPDGPConfig, seed: int, X: np.ndarray, Y: np.ndarray, num_data: int) -> Gaussian:
    """The default likelihood for X ``[n, D]``, Y ``[n, P]``, a sample of ``num_data`` training rows:
    a Gaussian of the config's initial variance and floor."""
    floor = config.likelihood_floor
    if floor is None and not pilot_floor_applies(BUILDER, "likelihood_floor", num_data, config.pilot_noise_floor_rows):
        floor = 0.0
    if floor is None:
        floor = _pilot_floor(X, Y, seed)
    floor = check_non_negative("likelihood_floor", floor)
    variance = config.likelihood_variance
    if variance is None:
        variance = max(PUBLIC_CODE_LIKELIHOOD_VARIANCE, 2 * floor)
    variance = check_above("likelihood_variance", variance, "likelihood_floor", floor)
    return Gaussian(variance=variance, variance_lower_bound=floor or None)


def _pilot_floor(X: np.ndarray, Y: np.ndarray, seed: int) -> float:
    """:data:`PILOT_FLOOR_FRACTION` of the pilot exact GP's noise variance for X ``[n, D]``, Y
    ``[n, P]`` (0 when its fit fails), logged."""
    pilot = pilot_noise_variance(X, Y, seed)
    if pilot is None:
        return log_choice(BUILDER, "likelihood_floor", 0.0, "the pilot exact GP failed: GPflow's 1e-6")
    return log_choice(
        BUILDER, "likelihood_floor", PILOT_FLOOR_FRACTION * pilot, "a quarter of a pilot exact GP's noise"
    )


def _site_scale(plan: LayerPlan, scale: float) -> np.ndarray:
    """``[L, M, M]``: R = scale · I for each of the layer's L outputs."""
    return scale * np.tile(np.eye(len(plan.inducing_inputs)), (plan.output_dim, 1, 1))
