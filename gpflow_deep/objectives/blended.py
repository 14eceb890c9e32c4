"""A data term between the predictive and the expected log-likelihood (the package's DSPP default)."""

import tensorflow as tf
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.objectives.data_terms import data_term_shapes, expected_log_likelihood, predictive_log_likelihood


class BlendedLogLikelihood:
    """The data term ``(1 − α) · PLL + α · ELL`` over the same paths (α = ``weight``).

    PLL is the predictive log-likelihood (N/B) Σ_n log Σ_s w_s p(y_n | path s), the DSPP paper's
    data term; ELL is the expected log-likelihood (N/B) Σ_n Σ_s w_s E[log p(y_n | f_s)], DSVI's,
    with sigma points as quadrature nodes. PLL ≥ ELL (Jensen, twice: over the paths and over the
    latent f of a path). The log of a sum lets each training point be explained by whichever path
    passes closest to it; the ELL term makes every path pay for its misfit in proportion to its
    weight, and the latent variance of every path pay against the noise, which is what keeps the
    predictive from collapsing onto a small training set
    (``docs/notes/dspp_defaults_investigation.md``). α = 0 is the paper's objective, α = 1 a
    deterministic (quadrature) DSVI ELBO.
    """

    def __init__(self, weight: float):
        weight = float(weight)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"the expected log-likelihood weight must be in [0, 1], got {weight}")
        self.weight = weight

    @data_term_shapes
    def __call__(
        self, likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor, num_data
    ) -> tf.Tensor:
        predictive = predictive_log_likelihood(likelihood, mixture, X, Y, num_data)
        expected = expected_log_likelihood(likelihood, mixture, X, Y, num_data)
        return (1.0 - self.weight) * predictive + self.weight * expected

    def __repr__(self) -> str:
        return f"BlendedLogLikelihood(weight={self.weight})"
