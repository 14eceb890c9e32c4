"""AEPDGP: deep GPs by approximate expectation propagation (Bui et al. 2016), with Monte Carlo
propagation (Hernández-Muñoz 2018) or deterministic moment matching."""

from typing import List, Sequence, Tuple

import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import RegressionData
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.core.row_noise import independent_noise
from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.objectives import predictive_log_likelihood, total_regulariser
from gpflow_deep.propagation import LayerOutput, sample_layers
from gpflow_deep.propagation.moment_matching import moment_matched_layers

PROPAGATIONS = ("monte_carlo", "moment_matching")


class AEPDGP(DeepMixtureModel):
    """A deep GP fitted by maximising the approximate EP energy (slides, after Seeger 2005)::

        F = Σ_l [(1 − N) Φ(q_l) + N Φ(cavity_l) − Φ(prior_l)] + (N/B) Σ_n log Z_n,
        log Z_n = log E_{cavities}[p(y_n | x_n)] ≈ log (1/S) Σ_s ∫ p(y_n | f) N(f | μ_s, σ²_s) df

    with one tied site per latent GP (q ∝ p g^N, cavity ∝ p g^(N−1); ``AEPLayer``) and no explicit
    EP updates: sites, kernels, inducing inputs and noises are all trained by gradient. Path s of
    log Z_n draws every layer's outputs from its cavity marginal at the path's own inputs,
    inter-layer noise added (``propagation="monte_carlo"``: a log-mean-exp over S paths), or
    carries one Gaussian matched layer by layer (``"moment_matching"``, Bui et al. 2016: one path,
    RBF kernels). Predictions take the same propagation through the posteriors q.

    :param layers: ``AEPLayer`` s (or layers with ``"cavity"`` marginals and the EP regulariser),
        input first, each built for the same N.
    :param likelihood: any GPflow likelihood with ``predict_log_density``.
    :param num_data: N, the number of training points.
    :param num_samples: S, Monte Carlo paths per training step (20 in the public code).
    :param propagation: ``"monte_carlo"`` or ``"moment_matching"``.
    :param options: ``num_prediction_samples`` (S for predictions when a call gives none, 100),
        ``seed``, ``prediction_batch_size``, ``name``: see :class:`DeepMixtureModel`.
    """

    def __init__(
        self,
        layers: Sequence,
        likelihood: Likelihood,
        num_data: int,
        num_samples: int = 20,
        *,
        propagation: str = "monte_carlo",
        **options,
    ):
        super().__init__(layers, likelihood, num_data, **options)
        if propagation not in PROPAGATIONS:
            raise ValueError(f"propagation must be one of {PROPAGATIONS}, got {propagation!r}")
        for index, layer in enumerate(self.layers):
            if getattr(layer, "num_data", self.num_data) != self.num_data:
                raise ValueError(f"layers[{index}] has a site for N={layer.num_data}, but num_data={self.num_data}")
        self.num_samples = check_positive_int("num_samples", num_samples)
        self.propagation = propagation
        self.monte_carlo = propagation == "monte_carlo"

    def _propagate(self, X: tf.Tensor, num_samples, seed, mode: str, noise=independent_noise):
        """Every layer's outputs on the paths through q (``"posterior"``) or the cavities, and the
        paths' log-weights (uniform over S Monte Carlo paths; one path when moment matching)."""
        if not self.monte_carlo:
            return moment_matched_layers(self.layers, X, mode), tf.zeros([1], X.dtype)
        log_weights = tf.fill([num_samples], -tf.math.log(tf.cast(num_samples, X.dtype)))
        return sample_layers(self.layers, X, num_samples, seed, mode=mode, noise=noise), log_weights

    def _paths(self, X: tf.Tensor, num_samples, seed, first_row=None) -> Tuple[List[LayerOutput], tf.Tensor]:
        return self._propagate(X, num_samples, seed, "posterior", self._noise(X, first_row))

    @objective_shapes
    def energy(self, data: RegressionData) -> tf.Tensor:
        """The EP energy F on a (mini)batch, its data term scaled to the full data set."""
        X, Y = data
        outputs, log_weights = self._propagate(X, self.num_samples, self.new_seed(), "cavity")
        cavity = GaussianMixture(outputs[-1].means, outputs[-1].variances, log_weights)
        return predictive_log_likelihood(self.likelihood, cavity, X, Y, self.num_data) - total_regulariser(self.layers)

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.energy(data)
