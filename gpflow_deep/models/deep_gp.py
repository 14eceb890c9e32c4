"""DeepGP: doubly stochastic variational inference (Salimbeni & Deisenroth, 2017)."""

from typing import List, Sequence, Tuple

import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import RegressionData
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.validation import check_non_negative, check_positive_int
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.objectives import DataTerm, expected_log_likelihood
from gpflow_deep.propagation import LayerOutput, sample_layers, sample_layers_jointly


class DeepGP(DeepMixtureModel):
    """A deep GP trained with the doubly stochastic ELBO (Salimbeni & Deisenroth 2017, eq. 17):

        L = (N/B) Σ_n (1/S) Σ_s E_{q(f_n^L | path s)}[log p(y_n | f_n^L)] − β Σ_l KL[q(U^l) ‖ p(U^l)]

    Inner layers are sampled (eq. 15); the last layer's Gaussian marginal goes into the likelihood's
    ``variational_expectations`` (analytic for a Gaussian, quadrature otherwise). Predictions are
    the mixture over S paths (eq. 18). β = 1 is the ELBO; other values give the β-weighted KL of
    the DSPP paper's DGP baseline. ``data_term`` swaps the expected log-likelihood for another
    function of :mod:`gpflow_deep.objectives` (``predictive_log_likelihood``: a deep PPGPR).

    :param layers: layers keeping the layer protocol (``GPLayer`` s in the paper), input first.
    :param likelihood: any GPflow likelihood with ``variational_expectations``.
    :param num_data: N, the number of training points.
    :param num_samples: S, paths per training step (the paper uses 1).
    :param beta: β, the weight of the KL.
    :param data_term: the objective's data term; the expected log-likelihood by default.
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
        beta: float = 1.0,
        data_term: DataTerm = expected_log_likelihood,
        **options,
    ):
        super().__init__(layers, likelihood, num_data, **options)
        self.num_samples = check_positive_int("num_samples", num_samples)
        self.beta = check_non_negative("beta", beta)
        self.data_term = data_term

    def _paths(self, X: tf.Tensor, num_samples, seed, first_row=None) -> Tuple[List[LayerOutput], tf.Tensor]:
        log_weights = tf.fill([num_samples], -tf.math.log(tf.cast(num_samples, X.dtype)))
        return sample_layers(self.layers, X, num_samples, seed, noise=self._noise(X, first_row)), log_weights

    def _joint_paths(self, X: tf.Tensor, num_samples: int, seed: tf.Tensor) -> List[LayerOutput]:
        return sample_layers_jointly(self.layers, X, num_samples, seed)

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The doubly stochastic ELBO (with β = 1 and the default data term) on a (mini)batch,
        scaled to the full data set."""
        X, Y = data
        mixture, kl = self._mixture_and_regulariser(X, self.num_samples, self.new_seed())
        return self.data_term(self.likelihood, mixture, X, Y, self.num_data) - self.beta * kl

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.elbo(data)
