"""``build_deep_gp``: the setup of Salimbeni & Deisenroth (2017) from data."""

from dataclasses import dataclass

from gpflow_deep.builders.configuration import Presets, configure
from gpflow_deep.builders.preparation import gaussian_likelihood, prepare_data
from gpflow_deep.builders.stack import StackFields, gp_layer_stack, plan_from_data
from gpflow_deep.models import DeepGP

BUILDER = "build_deep_gp"
PAPER_NUM_INDUCING = 100


@dataclass(frozen=True)
class DeepGPConfig(StackFields, Presets):
    """The choices of ``build_deep_gp``: the inducing inputs and kernels of :class:`StackFields`
    and the fields below. The paper's setup (its supplement, "Experiment Details") is the default,
    so ``.paper()`` and ``.default()`` agree. A field left None is decided from the data.

    :ivar inner_noise_variance: a white-noise term in inner kernels (the paper's noise between layers).
    :ivar inner_q_sqrt_scale: inner layers' q(U) = N(0, scale² I) (whitened); the last layer's is N(0, I).
    :ivar q_diag: diagonal ``q_sqrt`` instead of full Cholesky factors.
    :ivar whiten: q over the whitened inducing values.
    :ivar noise_variance: the Gaussian likelihood's initial variance, when no likelihood is given.
    :ivar num_samples: S, the Monte Carlo paths per training step.
    """

    inner_noise_variance: float = 1e-5
    inner_q_sqrt_scale: float = 1e-5
    q_diag: bool = False
    whiten: bool = True
    noise_variance: float = 0.01
    num_samples: int = 1


def build_deep_gp(
    X, Y, num_layers: int = 2, *, config=None, likelihood=None, num_data=None, seed: int = 0, **overrides
) -> DeepGP:
    """A ``DeepGP`` of ``num_layers`` ``GPLayer`` s from X ``[n, D]`` and Y ``[n, P]``, set up as
    ``config`` says (:class:`DeepGPConfig`, by default ``.default()``, with ``overrides`` of its
    fields): k-means inducing inputs carried through each inner layer's fixed linear mean (the
    identity, or the PCA projection of the data reaching it), a zero mean on the last layer, RBF-ARD
    kernels with a white-noise term inside, q(U) nearly deterministic on inner layers.

    The likelihood is Gaussian unless ``likelihood`` is given; the last layer has its latent
    dimension (Y's column count for a Gaussian). With ``num_data`` = N, X and Y are a sample of
    a training set of N rows: k-means and the projections see the sample, the objective is
    scaled to N.
    """
    config = configure(BUILDER, DeepGPConfig, config, overrides, None)
    data = prepare_data(
        X, Y, num_layers, likelihood, lambda Y: gaussian_likelihood(BUILDER, config.noise_variance, Y), num_data
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
