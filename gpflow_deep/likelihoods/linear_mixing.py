"""The linear model of coregionalisation as a likelihood: correlated Gaussian outputs from
independent latent functions."""

from typing import Optional

import numpy as np
import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import MeanAndVariance, Parameter, TensorType
from gpflow.config import default_float
from gpflow.likelihoods import Likelihood
from gpflow.utilities import positive

LOG_2PI = float(np.log(2 * np.pi))


class LinearMixingGaussian(Likelihood):
    """Correlated outputs from independent latent functions: ``y = f A + ε``, ε ~ N(0, diag(σ²)).

    ``f`` has L latent values per point, the learned mixing matrix ``A: [L, P]`` maps them to P
    outputs, and each output has its own noise variance. This is the linear model of
    coregionalisation that Jankowiak et al. (2020, appendix A.3) put on the last layer of a DSPP
    for multi-output regression. With Gaussian f of variance v, y is Gaussian with covariance
    ``Aᵀ diag(v) A + diag(σ²)``: outputs are correlated, and ``predict_log_density`` is the exact
    multivariate density.

    :param num_latent: L, the width of the last layer.
    :param num_outputs: P, the number of columns of Y.
    :param mixing: initial ``[L, P]``; the identity (padded with zeros) by default.
    :param variance: initial noise variance of every output.
    :param variance_lower_bound: a floor under every noise variance.
    """

    def __init__(
        self,
        num_latent: int,
        num_outputs: int,
        mixing: Optional[TensorType] = None,
        variance: float = 1.0,
        variance_lower_bound: float = 1e-6,
    ):
        super().__init__(input_dim=None, latent_dim=num_latent, observation_dim=num_outputs)
        if mixing is None:
            mixing = np.eye(num_latent, num_outputs)
        if np.shape(mixing) != (num_latent, num_outputs):
            raise ValueError(f"mixing must be [{num_latent}, {num_outputs}], got shape {np.shape(mixing)}")
        self.mixing = Parameter(mixing, dtype=default_float(), name="mixing")
        self.variance = Parameter(
            np.full(num_outputs, variance), transform=positive(lower=variance_lower_bound), name="variance"
        )

    def _mix(self, F: tf.Tensor) -> tf.Tensor:
        return tf.tensordot(F, self.mixing, [[-1], [0]])

    def _mixed_variance(self, Fvar: tf.Tensor) -> tf.Tensor:
        """Marginal variance of f A per output: Σ_l A_lp² v_l."""
        return tf.tensordot(Fvar, tf.square(self.mixing), [[-1], [0]])

    @inherit_check_shapes
    def _log_prob(self, X: TensorType, F: TensorType, Y: TensorType) -> tf.Tensor:
        residual = Y - self._mix(F)
        return -0.5 * tf.reduce_sum(LOG_2PI + tf.math.log(self.variance) + tf.square(residual) / self.variance, axis=-1)

    @inherit_check_shapes
    def _conditional_mean(self, X: TensorType, F: TensorType) -> tf.Tensor:
        return self._mix(F)

    @inherit_check_shapes
    def _conditional_variance(self, X: TensorType, F: TensorType) -> tf.Tensor:
        return tf.broadcast_to(self.variance, tf.shape(self._mix(F)))

    @inherit_check_shapes
    def _predict_mean_and_var(self, X: TensorType, Fmu: TensorType, Fvar: TensorType) -> MeanAndVariance:
        return self._mix(Fmu), self._mixed_variance(Fvar) + self.variance

    @inherit_check_shapes
    def _predict_log_density(self, X: TensorType, Fmu: TensorType, Fvar: TensorType, Y: TensorType) -> tf.Tensor:
        covariance = tf.einsum("lp,...l,lq->...pq", self.mixing, Fvar, self.mixing)
        covariance += tf.linalg.diag(self.variance)
        chol = tf.linalg.cholesky(covariance)
        residual = (Y - self._mix(Fmu))[..., None]
        whitened = tf.linalg.triangular_solve(chol, residual, lower=True)[..., 0]
        half_log_det = tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)), axis=-1)
        P = tf.cast(tf.shape(Y)[-1], Y.dtype)
        return -0.5 * (P * LOG_2PI + tf.reduce_sum(tf.square(whitened), axis=-1)) - half_log_det

    @inherit_check_shapes
    def _variational_expectations(self, X: TensorType, Fmu: TensorType, Fvar: TensorType, Y: TensorType) -> tf.Tensor:
        return self._log_prob(X, Fmu, Y) - 0.5 * tf.reduce_sum(self._mixed_variance(Fvar) / self.variance, axis=-1)
