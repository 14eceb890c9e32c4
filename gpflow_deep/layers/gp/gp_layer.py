"""The sparse variational GP layer that every model of the package stacks."""

from typing import Optional, Tuple

import gpflow
import numpy as np
import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float, default_jitter
from gpflow.covariances import Kuu
from gpflow.inducing_variables import (
    InducingPoints,
    SeparateIndependentInducingVariables,
    SharedIndependentInducingVariables,
)
from gpflow.kernels import Kernel, SeparateIndependent, SharedIndependent
from gpflow.kullback_leiblers import gauss_kl
from gpflow.mean_functions import MeanFunction
from gpflow.utilities import positive, triangular

from gpflow_deep.core.covariances import inducing_cross_covariance
from gpflow_deep.layers.gp.packed_kl import diagonal_positions, packs_triangle, whitened_kl
from gpflow_deep.layers.gp.sparse_marginals import full_covariances, marginals, projections
from gpflow_deep.layers.protocol import check_mode


class GPLayer(gpflow.base.Module):
    """L independent sparse variational GPs mapping ``[..., N, D_in]`` to ``[..., N, L]``.

    q(u) = N(q_mu, q_sqrt q_sqrtᵀ) per latent GP, whitened by default (u = chol(Kuu) v, with the
    parameters on v). The layer's marginals at inputs with any leading sample axes are computed
    with one Cholesky of Kuu: the sample axes are folded into the batch of points.

    :param kernel: a GPflow kernel shared by all latent GPs, or a ``SharedIndependent`` /
        ``SeparateIndependent`` multi-output kernel.
    :param inducing_variable: an array ``[M, D_in]`` of inducing inputs, an ``InducingPoints``
        (both shared by all latent GPs), or a ``Shared``/``SeparateIndependentInducingVariables``.
    :param num_latent_gps: L, the layer's output width; taken from the kernel when it is a
        multi-output kernel.
    :param mean_function: a GPflow mean function mapping ``[..., N, D_in]`` to ``[..., N, L]``;
        None for a zero mean.
    :param q_diag: a diagonal ``q_sqrt [M, L]`` (mean-field) instead of a full ``[L, M, M]``.
    :param q_mu: initial ``[M, L]``; zeros by default.
    :param q_sqrt: initial ``[L, M, M]`` (or ``[M, L]`` if ``q_diag``); identity by default,
        which is q(v) = p(v) in the whitened parameterisation.
    :param whiten: use the whitened parameterisation (the paper's).

    It keeps the layer protocol (:mod:`gpflow_deep.layers.protocol`): deterministic given its
    inputs, one (posterior) distribution, the KL as regulariser, (q_mu, q_sqrt) offered to natural
    gradients when ``q_sqrt`` is full.
    """

    path_dependent = False

    def __init__(
        self,
        kernel: Kernel,
        inducing_variable,
        num_latent_gps: Optional[int] = None,
        mean_function: Optional[MeanFunction] = None,
        *,
        q_diag: bool = False,
        q_mu: Optional[TensorType] = None,
        q_sqrt: Optional[TensorType] = None,
        whiten: bool = True,
        name: Optional[str] = None,
    ):
        super().__init__(name=name)
        self.kernel = _as_multioutput_kernel(kernel, num_latent_gps)
        self.inducing_variable = _as_multioutput_inducing(inducing_variable, self.kernel)
        self.mean_function = mean_function
        self.q_diag = bool(q_diag)
        self.whiten = bool(whiten)
        L, M = self.num_latent_gps, self.num_inducing
        if q_mu is None:
            q_mu = np.zeros((M, L))
        self.q_mu = Parameter(q_mu, dtype=default_float(), name="q_mu")
        _check_shape("q_mu", self.q_mu, (M, L))
        if q_sqrt is None:
            q_sqrt = np.ones((M, L)) if self.q_diag else np.tile(np.eye(M)[None], (L, 1, 1))
        transform = positive() if self.q_diag else triangular()
        self.q_sqrt = Parameter(q_sqrt, transform=transform, dtype=default_float(), name="q_sqrt")
        _check_shape("q_sqrt", self.q_sqrt, (M, L) if self.q_diag else (L, M, M))
        self._packed_diagonal = diagonal_positions(self.q_sqrt) if packs_triangle(self.q_sqrt) else None

    @property
    def num_latent_gps(self) -> int:
        """L, the number of latent GPs (the layer's output width)."""
        return self.kernel.num_latent_gps

    @property
    def output_dim(self) -> int:
        """The layer's output width, L."""
        return self.num_latent_gps

    @property
    def num_inducing(self) -> int:
        """M, the number of inducing points per latent GP."""
        return int(self.inducing_variable.num_inducing)

    @property
    def input_dim(self) -> int:
        """D_in, the width of the layer's inputs."""
        return int(_inducing_points(self.inducing_variable)[0].Z.shape[-1])

    def _projections(self, X: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        """``A, P`` at inputs ``X: [N, D]``: ``[M, N]`` when Kuu is shared, else ``[L, M, N]``."""
        return projections(self._kuu(), inducing_cross_covariance(self.inducing_variable, self.kernel, X), self.whiten)

    def _kff_diag(self, X: tf.Tensor) -> tf.Tensor:
        if isinstance(self.kernel, SharedIndependent):
            return self.kernel.kernel.K_diag(X)[:, None]
        return tf.stack([k.K_diag(X) for k in self.kernel.kernels], axis=-1)

    def _add_mean(self, inputs: tf.Tensor, mean: tf.Tensor) -> tf.Tensor:
        if self.mean_function is None:
            return mean
        return mean + self.mean_function(inputs)

    @check_shapes(
        "inputs: [batch..., N, D]",
        "return[0]: [batch..., N, L]",
        "return[1]: [batch..., N, L]",
    )
    def marginals(self, inputs: TensorType, *, seed=None, mode: str = "posterior") -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of each latent GP at each input, leading axes kept (``seed`` unused:
        the layer draws nothing of its own)."""
        check_mode(self, mode)
        inputs = tf.convert_to_tensor(inputs)
        batch_shape = tf.shape(inputs)[:-1]
        X = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]])
        A, P = self._projections(X)
        mean, var = marginals(A, P, self._kff_diag(X), self.q_mu, self.q_sqrt, self.q_diag)
        out_shape = tf.concat([batch_shape, [self.num_latent_gps]], axis=0)
        return self._add_mean(inputs, tf.reshape(mean, out_shape)), tf.reshape(var, out_shape)

    @check_shapes(
        "inputs: [B, N, D]",
        "return[0]: [B, N, L]",
        "return[1]: [B, L, N, N]",
    )
    def full_covariance(self, inputs: TensorType) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean ``[B, N, L]`` and covariance over the N points of each batch ``[B, L, N, N]``."""
        inputs = tf.convert_to_tensor(inputs)
        B, N = tf.shape(inputs)[0], tf.shape(inputs)[1]
        A, P = self._projections(tf.reshape(inputs, [B * N, -1]))
        stack = 1 if A.shape.rank == 2 else self.num_latent_gps
        A, P = (tf.reshape(T, [stack, self.num_inducing, B, N]) for T in (A, P))
        cov = full_covariances(A, P, tf.map_fn(self._kff_full, inputs), self.q_sqrt, self.q_diag)
        if stack == 1:
            mean = tf.einsum("mbn,ml->bnl", P[0], self.q_mu)
        else:
            mean = tf.einsum("lmbn,ml->bnl", P, self.q_mu)
        return self._add_mean(inputs, mean), cov

    def _kff_full(self, X: tf.Tensor) -> tf.Tensor:
        if isinstance(self.kernel, SharedIndependent):
            return self.kernel.kernel.K(X)[None]
        return tf.stack([k.K(X) for k in self.kernel.kernels], axis=0)

    @check_shapes("return: []")
    def prior_kl(self) -> tf.Tensor:
        """KL[q(u) ‖ p(u)] summed over the L latent GPs."""
        if self.whiten and self._packed_diagonal is not None:
            return whitened_kl(self.q_mu, self.q_sqrt.unconstrained_variable, self._packed_diagonal)
        if self.whiten:
            return gauss_kl(self.q_mu, self.q_sqrt)
        return gauss_kl(self.q_mu, self.q_sqrt, self._kuu())

    def regulariser(self, inputs=None) -> tf.Tensor:
        """The KL, whatever the inputs (the protocol's regulariser)."""
        return self.prior_kl()

    def natural_gradient_parameters(self):
        """``[(q_mu, q_sqrt)]`` when q_sqrt is full (GPflow's natural gradients need that); else none."""
        return [] if self.q_diag else [(self.q_mu, self.q_sqrt)]

    def monitored_scalars(self):
        """The KL, for TensorBoard."""
        return {"kl": self.prior_kl}

    def _kuu(self) -> tf.Tensor:
        """``[M, M]`` shared or ``[L, M, M]`` separate, with GPflow's default jitter."""
        return Kuu(self.inducing_variable, self.kernel, jitter=default_jitter())


def _check_shape(name: str, value: tf.Tensor, expected: Tuple[int, ...]) -> None:
    if tuple(value.shape) != expected:
        raise ValueError(f"{name} must have shape {list(expected)}, got {list(value.shape)}")


def _as_multioutput_kernel(kernel: Kernel, num_latent_gps: Optional[int]) -> Kernel:
    if isinstance(kernel, (SharedIndependent, SeparateIndependent)):
        if num_latent_gps is not None and num_latent_gps != kernel.num_latent_gps:
            raise ValueError(f"num_latent_gps={num_latent_gps} but the kernel has {kernel.num_latent_gps} latent GPs")
        return kernel
    if isinstance(kernel, gpflow.kernels.MultioutputKernel):
        raise TypeError(
            "kernel: GPLayer supports a plain GPflow kernel, SharedIndependent or SeparateIndependent; "
            f"got {type(kernel).__name__}"
        )
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a gpflow.kernels.Kernel, got {type(kernel).__name__}")
    if num_latent_gps is None or int(num_latent_gps) < 1:
        raise ValueError("num_latent_gps: a positive integer is needed with a single-output kernel")
    return SharedIndependent(kernel, output_dim=int(num_latent_gps))


def _inducing_points(inducing_variable) -> Tuple[InducingPoints, ...]:
    if isinstance(inducing_variable, SharedIndependentInducingVariables):
        return (inducing_variable.inducing_variable,)
    return tuple(inducing_variable.inducing_variable_list)


def _as_multioutput_inducing(inducing_variable, kernel: Kernel):
    if isinstance(inducing_variable, (np.ndarray, tf.Tensor, tf.Variable)):
        Z = np.asarray(inducing_variable)
        if Z.ndim != 2:
            raise ValueError(f"inducing_variable: an array must be [M, D_in], got shape {Z.shape}")
        inducing_variable = InducingPoints(Z.astype(default_float()))
    if isinstance(inducing_variable, InducingPoints):
        return SharedIndependentInducingVariables(inducing_variable)
    if isinstance(inducing_variable, SeparateIndependentInducingVariables):
        count = len(inducing_variable.inducing_variable_list)
        if count != kernel.num_latent_gps:
            raise ValueError(
                f"inducing_variable has {count} separate sets but the kernel has {kernel.num_latent_gps} latent GPs"
            )
        return inducing_variable
    if isinstance(inducing_variable, SharedIndependentInducingVariables):
        return inducing_variable
    raise TypeError(
        "inducing_variable must be an [M, D_in] array, InducingPoints, "
        "SharedIndependentInducingVariables or SeparateIndependentInducingVariables; "
        f"got {type(inducing_variable).__name__}"
    )
