"""DSPP: deep sigma point processes (Jankowiak, Pleiss & Gardner, 2020)."""

from typing import List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes, inherit_check_shapes
from gpflow.base import Parameter, RegressionData
from gpflow.config import default_float
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.validation import check_non_negative
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.objectives import BlendedLogLikelihood, DataTerm, predictive_log_likelihood, regularised_data_term
from gpflow_deep.propagation import SigmaPoints
from gpflow_deep.propagation.sigma_points import sigma_point_count

__all__ = ["DSPP", "BlendedLogLikelihood", "gauss_hermite_sigma_points", "random_sigma_points"]


class DSPP(DeepMixtureModel):
    """A deep sigma point process: a finite mixture of S Gaussians, fitted by regularised
    maximum likelihood of its own predictive distribution (Jankowiak et al. 2020, eq. 21)::

        L = (N/B) Σ_n log Σ_s w_s p(y_n | path s) − β Σ_l KL[q(U_l) ‖ p(U_l)]

    with p(y | path s) = ∫ p(y | f) N(f | μ_s, σ²_s) df (for a Gaussian likelihood
    N(y | μ_s, σ²_s + σ²_obs): the latent variance sits inside the Gaussian, as in PPGPR). Path s
    carries ``g = μ(x) + ξ_l^(s) ⊙ σ(x)`` through every hidden layer l (rule QR3,
    :class:`~gpflow_deep.propagation.SigmaPoints`: learned sigma points ξ, lined up across units
    and layers) and ends in the last layer's marginal. Nothing is sampled: objective and
    predictions are deterministic (``num_samples`` and ``seed`` of the predictions do not apply),
    so full-batch ``gpflow.optimizers.Scipy`` works as well as Adam.

    :param layers: layers keeping the layer protocol and drawing nothing per path (``GPLayer`` s
        in the paper), input first.
    :param likelihood: any GPflow likelihood (the paper uses a Gaussian, or
        :class:`~gpflow_deep.likelihoods.LinearMixingGaussian` for several outputs).
    :param num_data: N, the number of training points.
    :param sigma_points: one ``[S, W_l]`` array per hidden layer; see :func:`random_sigma_points`
        and :func:`gauss_hermite_sigma_points`.
    :param weights: the S initial mixture weights (uniform by default); learned through a softmax.
    :param beta: β, the weight of the KL regulariser.
    :param data_term: the objective's data term; the predictive log-likelihood by default
        (:class:`~gpflow_deep.objectives.BlendedLogLikelihood` blends in the expected one).
    :param options: ``num_prediction_samples`` (draws of ``predict_f_samples`` when a call gives
        none) and the rest of :class:`DeepMixtureModel`'s.
    """

    paths_equally_weighted = False  # sigma points with learned weights

    def __init__(
        self,
        layers: Sequence,
        likelihood: Likelihood,
        num_data: int,
        sigma_points: Sequence[np.ndarray],
        weights: Optional[np.ndarray] = None,
        beta: float = 1.0,
        *,
        data_term: DataTerm = predictive_log_likelihood,
        **options,
    ):
        super().__init__(layers, likelihood, num_data, **options)
        if weights is not None and (np.ndim(weights) != 1 or np.any(np.asarray(weights) <= 0)):
            raise ValueError("weights must be a vector of positive numbers")
        S = sigma_point_count(self.layers, sigma_points, None if weights is None else len(weights))
        self.sigma_points = [
            Parameter(points, dtype=default_float(), name=f"sigma_points_{index}")
            for index, points in enumerate(sigma_points)
        ]
        weights = np.full(S, 1.0 / S) if weights is None else np.asarray(weights, dtype=float)
        self.weight_logits = Parameter(np.log(weights), dtype=default_float(), name="weight_logits")
        self.propagation = SigmaPoints(self.sigma_points, self.weight_logits)
        self.beta = check_non_negative("beta", beta)
        self.data_term = data_term

    @property
    def num_sigma_points(self) -> int:
        """S, the number of mixture components."""
        return self.propagation.num_paths

    @check_shapes("return: [S]")
    def log_weights(self) -> tf.Tensor:
        """``[S]`` log mixture weights (a log-softmax of the learned logits)."""
        return self.propagation.log_weights()

    @objective_shapes
    def predictive_log_likelihood(self, data: RegressionData) -> tf.Tensor:
        """The regularised predictive log-likelihood (eq. 21) on a (mini)batch, scaled to N."""
        X, Y = data
        paths = self._paths(X, None, None)
        return regularised_data_term(
            self.data_term, self.beta, self.likelihood, self.layers, paths, X, Y, self.num_data
        )

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.predictive_log_likelihood(data)


def random_sigma_points(num_sigma_points: int, widths: Sequence[int], seed: int = 0) -> List[np.ndarray]:
    """Standard-normal sigma points ``[S, W_l]`` for hidden layers of the given widths (the paper's
    initialisation; pair with uniform weights)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((num_sigma_points, width)) for width in widths]


def gauss_hermite_sigma_points(num_sigma_points: int, widths: Sequence[int]) -> Tuple[List[np.ndarray], np.ndarray]:
    """Gauss–Hermite nodes and weights for a standard normal, lined up across units and layers.

    For one hidden unit this is the exact S-point Gauss–Hermite rule for the two-layer integral;
    with more units every unit takes the same node on a path (rule QR3), a starting point that
    training then moves.
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(num_sigma_points)
    return [np.tile(nodes[:, None], (1, width)) for width in widths], weights / weights.sum()
