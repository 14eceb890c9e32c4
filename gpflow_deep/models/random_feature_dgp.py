"""RandomFeatureDGP: deep GPs as Bayesian networks of random features (Cutajar et al. 2017)."""

from typing import List, Sequence, Tuple

import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import RegressionData
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.objectives import expected_log_likelihood, total_regulariser
from gpflow_deep.propagation import LayerOutput, sample_layers, sample_layers_feeding_inputs


class RandomFeatureDGP(DeepMixtureModel):
    """A deep GP whose layers are random-feature expansions F^(l+1) = Φ(F^(l) Ω^(l)) W^(l), trained
    with the bound of Cutajar et al. (2017, eqs. 8-11):

        L = (n/m) Σ_{k ∈ batch} (1/N_MC) Σ_r log p(y_k | x_k, W̃_r, Ω̃_r)
            − Σ_l (KL[q(W^l) ‖ p(W^l)] + KL[q(Ω^l) ‖ p(Ω^l | θ^l)])

    Path r draws (W̃_r, Ω̃_r) once for the whole minibatch (eq. 12). With local reparameterisation
    a layer gives Gaussian marginals instead, and the last layer's marginal enters the likelihood's
    ``variational_expectations``. Predictions are the mixture over N_MC paths. With
    ``feed_forward`` the inputs X are appended to the inputs of every layer after the first
    (Section 4.3), which deep stacks need.

    :param layers: ``RandomFeatureLayer`` s (any layers keeping the protocol), input first; with
        ``feed_forward`` every layer after the first takes X's D columns as ``fed_input_dim``.
    :param likelihood: any GPflow likelihood.
    :param num_data: n, the number of training points.
    :param num_samples: N_MC, paths per training step (the paper starts at 1).
    :param feed_forward: append X to every later layer's inputs.
    :param options: ``num_prediction_samples`` (S for predictions when a call gives none, 100),
        ``seed``, ``prediction_batch_size``, ``name``: see :class:`DeepMixtureModel`.
    """

    def __init__(
        self,
        layers: Sequence,
        likelihood: Likelihood,
        num_data: int,
        num_samples: int = 1,
        *,
        feed_forward: bool = False,
        **options,
    ):
        super().__init__(layers, likelihood, num_data, **options)
        self.num_samples = check_positive_int("num_samples", num_samples)
        self.feed_forward = bool(feed_forward)
        fed = [getattr(layer, "fed_input_dim", 0) for layer in self.layers[1:]]
        expected = [self.input_dim if self.feed_forward else 0] * len(fed)
        if fed != expected:
            raise ValueError(
                f"feed_forward={self.feed_forward}: layers after the first need fed_input_dim {expected}, got {fed}"
            )

    def _paths(self, X: tf.Tensor, num_samples, seed, first_row=None) -> Tuple[List[LayerOutput], tf.Tensor]:
        propagate = sample_layers_feeding_inputs if self.feed_forward else sample_layers
        log_weights = tf.fill([num_samples], -tf.math.log(tf.cast(num_samples, X.dtype)))
        return propagate(self.layers, X, num_samples, seed, noise=self._noise(X, first_row)), log_weights

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The bound (eqs. 8-11) on a (mini)batch, scaled to the full data set."""
        X, Y = data
        mixture = self._mixture(X, self.num_samples, self.new_seed())
        return expected_log_likelihood(self.likelihood, mixture, X, Y, self.num_data) - total_regulariser(self.layers)

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.elbo(data)
