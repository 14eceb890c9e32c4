"""``build_deep_gp``: the setup of Salimbeni & Deisenroth (2017) from data."""

from dataclasses import dataclass
from typing import Optional

from gpflow_deep.builders.configuration import SETUP_ALIAS, Presets, configure
from gpflow_deep.builders.preparation import gaussian_likelihood, prepare_data
from gpflow_deep.builders.stack import StackFields, gp_layer_stack, plan_from_data
from gpflow_deep.models import DeepGP

BUILDER = "build_deep_gp"
PAPER_NUM_INDUCING = 100
PAPER_NOISE_VARIANCE = 0.01


@dataclass(frozen=True)
class DeepGPConfig(StackFields, Presets):
    """The choices of ``build_deep_gp``: the inducing inputs and kernels of :class:`StackFields`
    and the fields below. The paper's setup (its supplement, "Experiment Details") is the default
    but for the noise's start, which ``.default()`` takes from the data. A field left None is
    decided from the data.

    :ivar inner_noise_variance: a white-noise term in inner kernels (the paper's noise between layers).
    :ivar inner_q_sqrt_scale: inner layers' q(U) = N(0, scale² I) (whitened); the last layer's is N(0, I).
    :ivar q_diag: diagonal ``q_sqrt`` instead of full Cholesky factors.
    :ivar whiten: q over the whitened inducing values.
    :ivar noise_variance: the Gaussian likelihood's initial variance, when no likelihood is given;
        None: the noise variance of a pilot exact GP on at most 500 rows
        (:func:`~gpflow_deep.builders.pilot_gp.pilot_noise_variance`; the paper's 0.01 of the
        standardised targets' variance is far below the noise of a noisy table, which then rises
        too slowly to be reached in 3,000 steps).
    :ivar num_samples: S, the Monte Carlo paths per training step.
    """

    inner_noise_variance: float = 1e-5
    inner_q_sqrt_scale: float = 1e-5
    q_diag: bool = False
    whiten: bool = True
    noise_variance: Optional[float] = None
    num_samples: int = 1

    @classmethod
    def paper(cls) -> "DeepGPConfig":
        """The paper's setup: the defaults with the noise started at 0.01."""
        return cls(noise_variance=PAPER_NOISE_VARIANCE)


def build_deep_gp(
    X, Y, num_layers: int = 2, *, config=None, likelihood=None, num_data=None, seed: int = 0, **overrides
) -> DeepGP:
    """A ``DeepGP`` of ``num_layers`` ``GPLayer`` s from X ``[n, D]`` and Y ``[n, P]``, set up as
    ``config`` says (:class:`DeepGPConfig`, by default ``.default()``; ``setup="paper"`` is
    ``config=DeepGPConfig.paper()``, ``setup="data"`` the default; ``overrides`` are its fields):
    k-means inducing inputs carried through each inner layer's fixed linear mean (the identity, or
    the PCA projection of the data reaching it), a zero mean on the last layer, RBF-ARD kernels with
    a white-noise term inside, q(U) nearly deterministic on inner layers, the noise started at a
    pilot GP's (the paper's 0.01 with ``setup="paper"``).

    The likelihood is Gaussian unless ``likelihood`` is given; the last layer has its latent
    dimension (Y's column count for a Gaussian). With ``num_data`` = N, X and Y are a sample of
    a training set of N rows: k-means and the projections see the sample, the objective is
    scaled to N.
    """
    config = configure(BUILDER, DeepGPConfig, config, overrides, SETUP_ALIAS)
    data = prepare_data(
        X,
        Y,
        num_layers,
        likelihood,
        lambda X, Y, _: gaussian_likelihood(BUILDER, config.noise_variance, Y, X, seed),
        num_data,
    )
    bounds = (PAPER_NUM_INDUCING, PAPER_NUM_INDUCING)
    layers = gp_layer_stack(
        plan_from_data(BUILDER, data, config, seed, trainable_means=False, bounds=bounds),
        config.kernels(),
        inner_noise_variance=config.inner_noise_variance,
        inner_q_sqrt_scale=config.inner_q_sqrt_scale,
        q_diag=config.q_diag,
        whiten=config.whiten,
    )
    return DeepGP(layers, data.likelihood, num_data=data.num_data, num_samples=config.num_samples, seed=seed)
