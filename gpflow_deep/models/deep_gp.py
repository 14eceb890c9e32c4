"""DeepGP: doubly stochastic variational inference (Salimbeni & Deisenroth, 2017)."""

from typing import List, Optional, Sequence, Tuple

import tensorflow as tf
from check_shapes import check_shapes, inherit_check_shapes
from gpflow.base import RegressionData, TensorType
from gpflow.likelihoods import Likelihood

from ..layers import GPLayer
from ..mixtures import GaussianMixture, per_component
from ..propagation import LayerOutput, sample_layers, sample_layers_jointly
from ..validation import check_positive_int
from .base import DeepMixtureModel, resolve_seed, validate_inputs

DEFAULT_PREDICTION_SAMPLES = 100  # the paper's code evaluates the test log-likelihood with 100


class DeepGP(DeepMixtureModel):
    """A deep GP trained with the doubly stochastic ELBO (Salimbeni & Deisenroth 2017, eq. 17):

        L = (N/B) Σ_n (1/S) Σ_s E_{q(f_n^L | path s)}[log p(y_n | f_n^L)] − Σ_l KL[q(U^l) ‖ p(U^l)]

    Inner layers are sampled (eq. 15); the last layer's Gaussian marginal goes into the likelihood's
    ``variational_expectations`` (analytic for a Gaussian, quadrature otherwise). Predictions are
    the mixture over S paths (eq. 18).

    :param layers: ``GPLayer`` s, input first.
    :param likelihood: any GPflow likelihood with ``variational_expectations``.
    :param num_data: N, the number of training points.
    :param num_samples: S, paths per training step (the paper uses 1).
    :param num_prediction_samples: S for predictions when a call gives none.
    :param seed: seeds ``self.rng`` (see :class:`DeepMixtureModel`).
    """

    def __init__(
        self,
        layers: Sequence[GPLayer],
        likelihood: Likelihood,
        num_data: int,
        num_samples: int = 1,
        *,
        num_prediction_samples: int = DEFAULT_PREDICTION_SAMPLES,
        seed: int = 0,
        prediction_batch_size: int = 1000,
        name: Optional[str] = None,
    ):
        super().__init__(
            layers, likelihood, num_data, seed=seed, prediction_batch_size=prediction_batch_size, name=name
        )
        self.num_samples = check_positive_int("num_samples", num_samples)
        self.num_prediction_samples = check_positive_int("num_prediction_samples", num_prediction_samples)

    def _paths(self, X: tf.Tensor, num_samples: tf.Tensor, seed: tf.Tensor) -> Tuple[List[LayerOutput], tf.Tensor]:
        log_weights = tf.fill([num_samples], -tf.math.log(tf.cast(num_samples, X.dtype)))
        return sample_layers(self.layers, X, num_samples, seed), log_weights

    @check_shapes(
        "data[0]: [N, D]",
        "data[1]: [N, P]",
        "return: []",
    )
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The doubly stochastic ELBO on a (mini)batch, scaled to the full data set."""
        X, Y = data
        mixture = self._mixture(X, self.num_samples, self.new_seed())
        expectations = per_component(self.likelihood.variational_expectations, X, mixture.means, mixture.variances, Y)
        return self.minibatch_scale(X) * tf.reduce_sum(tf.reduce_mean(expectations, axis=0)) - self.prior_kl()

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.elbo(data)

    def _path_options(self, num_samples: Optional[int], seed) -> dict:
        if num_samples is None:
            num_samples = self.num_prediction_samples
        return dict(num_samples=check_positive_int("num_samples", num_samples), seed=resolve_seed(self, seed))

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return.means: [S, N, P]",
        "return.variances: [S, N, P]",
        "return.log_weights: [S]",
    )
    def predict_mixture(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> GaussianMixture:
        """The predictive mixture over f: S equally weighted Gaussians per point."""
        outputs, log_weights = self._predict("paths", Xnew, **self._path_options(num_samples, seed))
        return GaussianMixture(outputs[-1].means, outputs[-1].variances, log_weights)

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return[0]: [N, P]",
        "return[1]: [N, P]",
    )
    def predict_f(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of the predictive mixture over the last layer's f."""
        return self._predict("f", Xnew, **self._path_options(num_samples, seed))

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return[0]: [N, P]",
        "return[1]: [N, P]",
    )
    def predict_y(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of the predictive mixture over y (likelihood included)."""
        return self._predict("y", Xnew, **self._path_options(num_samples, seed))

    @validate_inputs
    @check_shapes(
        "data[0]: [N, D]",
        "data[1]: [N, P]",
        "return: [N]",
    )
    def predict_log_density(self, data: RegressionData, num_samples: Optional[int] = None, seed=None) -> tf.Tensor:
        """log p(y_n | x_n) per point: log-mean-exp over S paths of each path's exact density."""
        X, Y = data
        return self._predict("log_density", X, Y, **self._path_options(num_samples, seed))

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return: [S, N, P]",
    )
    def predict_f_samples(
        self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None, full_cov: bool = False
    ) -> tf.Tensor:
        """S draws of the last layer's f; ``full_cov`` makes each a joint draw over the N points."""
        return self.predict_all_layers(Xnew, num_samples, seed, full_cov)[-1].values

    @validate_inputs
    def predict_all_layers(
        self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None, full_cov: bool = False
    ) -> List[LayerOutput]:
        """Every layer's marginals and samples on S paths: one ``LayerOutput`` per layer, each
        field ``[S, N, D_l]``. With ``full_cov`` the samples are joint over the N points (O(N³),
        no chunking)."""
        options = self._path_options(num_samples, seed)
        if full_cov:
            return sample_layers_jointly(self.layers, Xnew, **options)
        return self._predict("paths", Xnew, **options)[0]
