"""DSPP: deep sigma point processes (Jankowiak, Pleiss & Gardner, 2020)."""

from typing import List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes, inherit_check_shapes
from gpflow.base import Parameter, RegressionData
from gpflow.config import default_float
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.core.validation import check_non_negative
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.objectives import DataTerm, expected_log_likelihood, predictive_log_likelihood
from gpflow_deep.propagation import LayerOutput, sigma_point_layers


class DSPP(DeepMixtureModel):
    """A deep sigma point process: a finite mixture of S Gaussians, fitted by regularised
    maximum likelihood of its own predictive distribution (Jankowiak et al. 2020, eq. 21)::

        L = (N/B) Σ_n log Σ_s w_s p(y_n | path s) − β Σ_l KL[q(U_l) ‖ p(U_l)]

    with p(y | path s) = ∫ p(y | f) N(f | μ_s, σ²_s) df (for a Gaussian likelihood
    N(y | μ_s, σ²_s + σ²_obs): the latent variance sits inside the Gaussian, as in PPGPR). Path s
    carries ``g = μ(x) + ξ_l^(s) ⊙ σ(x)`` through every hidden layer l (rule QR3: learned sigma
    points ξ, lined up across units and layers) and ends in the last layer's marginal. Nothing
    is sampled: objective and predictions are deterministic (``num_samples`` and ``seed`` of the
    predictions do not apply), so full-batch ``gpflow.optimizers.Scipy`` works as well as Adam.

    :param layers: layers keeping the layer protocol and drawing nothing per path (``GPLayer`` s
        in the paper), input first.
    :param likelihood: any GPflow likelihood (the paper uses a Gaussian, or
        :class:`~gpflow_deep.likelihoods.LinearMixingGaussian` for several outputs).
    :param num_data: N, the number of training points.
    :param sigma_points: one ``[S, W_l]`` array per hidden layer; see :func:`random_sigma_points`
        and :func:`gauss_hermite_sigma_points`.
    :param weights: the S initial mixture weights (uniform by default); learned through a softmax.
    :param beta: β, the weight of the KL regulariser.
    :param data_term: the objective's data term; the predictive log-likelihood by default.
    :param options: ``num_prediction_samples`` (draws of ``predict_f_samples`` when a call gives
        none), ``seed``, ``prediction_batch_size``, ``name``: see :class:`DeepMixtureModel`.
    """

    monte_carlo = False

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
        S = _check_sigma_points(self.layers, sigma_points, weights)
        self.sigma_points = [
            Parameter(points, dtype=default_float(), name=f"sigma_points_{index}")
            for index, points in enumerate(sigma_points)
        ]
        weights = np.full(S, 1.0 / S) if weights is None else np.asarray(weights, dtype=float)
        self.weight_logits = Parameter(np.log(weights), dtype=default_float(), name="weight_logits")
        self.beta = check_non_negative("beta", beta)
        self.data_term = data_term

    @property
    def num_sigma_points(self) -> int:
        """S, the number of mixture components."""
        return int(self.weight_logits.shape[0])

    @check_shapes("return: [S]")
    def log_weights(self) -> tf.Tensor:
        """``[S]`` log mixture weights (a log-softmax of the learned logits)."""
        return tf.nn.log_softmax(self.weight_logits)

    def _paths(self, X: tf.Tensor, num_samples=None, seed=None, first_row=None) -> Tuple[List[LayerOutput], tf.Tensor]:
        outputs = sigma_point_layers(self.layers, self.sigma_points, X)
        if not self.sigma_points:  # one layer: S identical paths
            outputs = [_repeat(output, self.num_sigma_points) for output in outputs]
        return outputs, self.log_weights()

    @objective_shapes
    def predictive_log_likelihood(self, data: RegressionData) -> tf.Tensor:
        """The regularised predictive log-likelihood (eq. 21) on a (mini)batch, scaled to N."""
        X, Y = data
        mixture, kl = self._mixture_and_regulariser(X, None, None)
        return self.data_term(self.likelihood, mixture, X, Y, self.num_data) - self.beta * kl

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.predictive_log_likelihood(data)


class BlendedLogLikelihood:
    """The data term ``(1 − α) · PLL + α · ELL`` over the same sigma paths (α = ``weight``).

    PLL is the predictive log-likelihood (N/B) Σ_n log Σ_s w_s p(y_n | path s), the paper's data
    term; ELL is the expected log-likelihood (N/B) Σ_n Σ_s w_s E[log p(y_n | f_s)], DSVI's, with the
    sigma points as quadrature nodes. PLL ≥ ELL (Jensen, twice: over the paths and over the latent
    f of a path). The log of a sum lets each training point be explained by whichever path passes
    closest to it; the ELL term makes every path pay for its misfit in proportion to its weight,
    and the latent variance of every path pay against the noise, which is what keeps the
    predictive from collapsing onto a small training set (``docs/dspp.md``). α = 0 is the paper's
    objective, α = 1 a deterministic (quadrature) DSVI ELBO.
    """

    def __init__(self, weight: float):
        weight = float(weight)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"the expected log-likelihood weight must be in [0, 1], got {weight}")
        self.weight = weight

    def __call__(self, likelihood: Likelihood, mixture: GaussianMixture, X: tf.Tensor, Y: tf.Tensor, num_data):
        predictive = predictive_log_likelihood(likelihood, mixture, X, Y, num_data)
        expected = expected_log_likelihood(likelihood, mixture, X, Y, num_data)
        return (1.0 - self.weight) * predictive + self.weight * expected

    def __repr__(self) -> str:
        return f"BlendedLogLikelihood(weight={self.weight})"


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


def _check_sigma_points(layers: Sequence, sigma_points, weights) -> int:
    hidden = [layer.output_dim for layer in layers[:-1]]
    if len(sigma_points) != len(hidden):
        raise ValueError(f"sigma_points: need one array per hidden layer ({len(hidden)}), got {len(sigma_points)}")
    sizes = set()
    for index, (points, width) in enumerate(zip(sigma_points, hidden)):
        shape = np.shape(points)
        if len(shape) != 2 or shape[1] != width:
            raise ValueError(f"sigma_points[{index}] must be [S, {width}] (the layer's width), got shape {shape}")
        sizes.add(shape[0])
    if weights is not None:
        weights = np.asarray(weights)
        if weights.ndim != 1 or np.any(weights <= 0):
            raise ValueError("weights must be a vector of positive numbers")
        sizes.add(weights.shape[0])
    if len(sizes) > 1:
        raise ValueError(f"sigma_points and weights disagree on the number of sigma points: {sorted(sizes)}")
    if not sizes:
        raise ValueError("a one-layer DSPP needs weights to fix the number of (identical) components")
    return sizes.pop()


def _repeat(output: LayerOutput, num_paths: int) -> LayerOutput:
    return LayerOutput(*(tf.repeat(field[:1], num_paths, axis=0) for field in output))
