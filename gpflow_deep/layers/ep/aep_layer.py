"""A sparse GP layer with a tied EP site: approximate EP (Bui et al. 2016; Hernández-Muñoz 2018)."""

import contextlib
from typing import Dict, Iterator, Optional, Tuple

import gpflow
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float, default_jitter
from gpflow.covariances import Kuu
from gpflow.inducing_variables import InducingPoints
from gpflow.kernels import Kernel, SquaredExponential
from gpflow.mean_functions import MeanFunction
from gpflow.utilities import positive

from gpflow_deep.core.covariances import inducing_cross_covariance
from gpflow_deep.layers.ep.gaussian_inputs import gaussian_input_moments
from gpflow_deep.layers.ep.gaussian_normalisers import log_normaliser, moments
from gpflow_deep.layers.gp.sparse_marginals import marginals, projections
from gpflow_deep.layers.protocol import MODES, check_mode


class AEPLayer(gpflow.base.Module):
    """L latent GPs sharing a kernel and M inducing inputs, each with a tied EP site g(u).

    In the whitened coordinates v = Lu⁻¹ u (prior N(0, I)) the site of one latent GP is
    g(v) = exp(vᵀγ/N − ½ vᵀ R Rᵀ v / N), so that

        q(v)      ∝ p(v) g(v)^N:      precision I + R Rᵀ,             natural mean γ
        cavity(v) ∝ p(v) g(v)^(N−1):  precision I + ((N−1)/N) R Rᵀ,   natural mean ((N−1)/N) γ

    Both precisions are at least I, hence positive definite, for every value of the parameters
    (R is lower triangular with a positive diagonal, learned in log scale). The layer's outputs are
    the sparse GP marginals under q or the cavity, plus the linear mean m(x), plus the inter-layer
    noise variance σ²_l (added: the slides' conditional variance subtracts it by a sign typo).

    :param kernel: a single-output GPflow kernel shared by the L latent GPs.
    :param inducing_variable: an ``[M, D_in]`` array or ``InducingPoints``.
    :param num_latent_gps: L, the layer's output width.
    :param num_data: N, the number of training points the tied site stands for.
    :param mean_function: maps ``[..., N, D_in]`` to ``[..., N, L]``; None for zero.
    :param noise_variance: σ²_l, the initial inter-layer noise (a learned positive parameter); None
        for a layer without noise (the last one, whose likelihood has its own).
    :param site_mean: initial γ ``[M, L]``; zeros by default.
    :param site_scale: initial R ``[L, M, M]``; the identity by default (q(v) = N(0, I/2)).
    """

    path_dependent = False
    _site_memo = None  # the open shared_site_algebra's tensors, by mode

    def __init__(
        self,
        kernel: Kernel,
        inducing_variable,
        num_latent_gps: int,
        num_data: int,
        mean_function: Optional[MeanFunction] = None,
        *,
        noise_variance: Optional[float] = 0.01,
        site_mean: Optional[TensorType] = None,
        site_scale: Optional[TensorType] = None,
        name: Optional[str] = None,
    ):
        super().__init__(name=name)
        if not isinstance(kernel, Kernel) or isinstance(kernel, gpflow.kernels.MultioutputKernel):
            raise TypeError(f"kernel must be a single-output gpflow.kernels.Kernel, got {type(kernel).__name__}")
        if not isinstance(inducing_variable, InducingPoints):
            inducing_variable = InducingPoints(np.asarray(inducing_variable, dtype=default_float()))
        self.kernel = kernel
        self.inducing_variable = inducing_variable
        self.mean_function = mean_function
        self.num_data = int(num_data)
        L, M = int(num_latent_gps), int(inducing_variable.num_inducing)
        if L < 1 or self.num_data < 1:
            raise ValueError(f"num_latent_gps and num_data must be positive, got {num_latent_gps} and {num_data}")
        self._num_latent_gps = L
        site_mean = np.zeros((M, L)) if site_mean is None else site_mean
        site_scale = np.tile(np.eye(M)[None], (L, 1, 1)) if site_scale is None else site_scale
        self.site_mean = Parameter(site_mean, dtype=default_float(), name="site_mean")
        scale_transform = tfp.bijectors.FillScaleTriL(diag_bijector=tfp.bijectors.Exp(), diag_shift=None)
        self.site_scale = Parameter(site_scale, transform=scale_transform, dtype=default_float(), name="site_scale")
        if tuple(self.site_mean.shape) != (M, L) or tuple(self.site_scale.shape) != (L, M, M):
            raise ValueError(f"site_mean must be [{M}, {L}] and site_scale [{L}, {M}, {M}]")
        self.noise_variance = None
        if noise_variance is not None:
            self.noise_variance = Parameter(noise_variance, transform=positive(), dtype=default_float())

    @property
    def input_dim(self) -> int:
        """D_in, the width of the layer's inputs."""
        return int(self.inducing_variable.Z.shape[-1])

    @property
    def output_dim(self) -> int:
        """L, the number of latent GPs."""
        return self._num_latent_gps

    @property
    def num_inducing(self) -> int:
        """M, the number of inducing inputs."""
        return int(self.inducing_variable.Z.shape[0])

    @check_shapes(
        "return[0]: [L, M, M]",
        "return[1]: [M, L]",
    )
    def natural_parameters(self, mode: str = "posterior") -> Tuple[tf.Tensor, tf.Tensor]:
        """Cholesky factor of the precision and natural mean of q(v) (``"posterior"``), of the
        cavity (``"cavity"``) or of the prior (``"prior"``), in whitened coordinates.

        Inside :meth:`shared_site_algebra` each mode is computed once and R Rᵀ once for both."""
        check_mode(self, mode, MODES + ("prior",))
        eye = tf.eye(self.num_inducing, batch_shape=[self.output_dim], dtype=self.site_mean.dtype)
        if mode == "prior":
            return eye, tf.zeros_like(self.site_mean)
        memo = self._site_memo if self._site_memo is not None else {}
        if mode not in memo:
            if "site_gram" not in memo:
                memo["site_gram"] = tf.linalg.matmul(self.site_scale, self.site_scale, transpose_b=True)
            N = tf.cast(self.num_data, self.site_mean.dtype)
            share = 1.0 if mode == "posterior" else (N - 1.0) / N
            memo[mode] = tf.linalg.cholesky(eye + share * memo["site_gram"]), share * self.site_mean
        return memo[mode]

    @contextlib.contextmanager
    def shared_site_algebra(self) -> Iterator[None]:
        """While open, R Rᵀ and each mode's Cholesky factor are computed once and reused by every
        call (the cavity's marginals and the regulariser of one training step): one op each in the
        step's graph, so one backward pass each. Open it only around one evaluation of the
        objective (the tensors it holds belong to that graph or eager step)."""
        object.__setattr__(self, "_site_memo", {})
        try:
            yield
        finally:
            object.__setattr__(self, "_site_memo", None)

    def log_normalisers(self) -> Dict[str, tf.Tensor]:
        """Φ of q, of the cavity and of the prior, each ``[L]`` (one per latent GP)."""
        with self.shared_site_algebra() if self._site_memo is None else contextlib.nullcontext():
            return {mode: log_normaliser(*self.natural_parameters(mode)) for mode in ("posterior", "cavity", "prior")}

    @check_shapes("return: []")
    def regulariser(self, inputs=None) -> tf.Tensor:
        """−Σ_l [(1 − N) Φ(q) + N Φ(cavity) − Φ(prior)]: the layer's part of the EP energy, negated
        (the protocol's regulariser is subtracted from the data term)."""
        phi = self.log_normalisers()
        N = tf.cast(self.num_data, self.site_mean.dtype)
        return -tf.reduce_sum((1.0 - N) * phi["posterior"] + N * phi["cavity"] - phi["prior"])

    @check_shapes(
        "inputs: [batch..., N, D]",
        "return[0]: [batch..., N, L]",
        "return[1]: [batch..., N, L]",
    )
    def marginals(self, inputs: TensorType, *, seed=None, mode: str = "posterior") -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance (inter-layer noise included) of each latent GP at each input under
        q(u) or the cavity, leading axes kept (``seed`` unused: the layer draws nothing itself)."""
        check_mode(self, mode, MODES)
        inputs = tf.convert_to_tensor(inputs)
        X = tf.reshape(inputs, [-1, tf.shape(inputs)[-1]])
        A, _ = projections(self._kuu(), inducing_cross_covariance(self.inducing_variable, self.kernel, X), whiten=True)
        q_mu, q_sqrt = moments(*self.natural_parameters(mode))  # q_sqrt = C⁻ᵀ, upper-triangular
        mean, var = marginals(A, A, self.kernel.K_diag(X)[:, None], q_mu, q_sqrt, q_diag=False, upper=True)
        shape = tf.concat([tf.shape(inputs)[:-1], [self.output_dim]], axis=0)
        mean, var = tf.reshape(mean, shape), tf.reshape(var, shape)
        if self.mean_function is not None:
            mean += self.mean_function(inputs)
        return mean, self._add_noise(var)

    @check_shapes(
        "mean: [N, D]",
        "var: [N, D]",
        "return[0]: [N, L]",
        "return[1]: [N, L]",
    )
    def moment_match(self, mean: TensorType, var: TensorType, mode: str = "posterior") -> Tuple[tf.Tensor, tf.Tensor]:
        """The Gaussian matched to the layer's outputs (noise included) when its inputs are
        N(mean, diag(var)), under q(u) or the cavity (RBF kernels; Bui et al. 2016)."""
        check_mode(self, mode, MODES)
        if not isinstance(self.kernel, SquaredExponential):
            raise ValueError(f"moment matching needs a SquaredExponential kernel, got {type(self.kernel).__name__}")
        q_mu, q_sqrt = moments(*self.natural_parameters(mode))
        q_cov = tf.linalg.matmul(q_sqrt, q_sqrt, transpose_b=True)
        Lu = tf.linalg.cholesky(self._kuu())
        args = (self.kernel, self.inducing_variable, self.mean_function, Lu, q_mu, q_cov, mean, var)
        out_mean, out_var = gaussian_input_moments(*args)
        return out_mean, self._add_noise(out_var)

    def natural_gradient_parameters(self):
        """None: the site is not parameterised as (q_mu, q_sqrt)."""
        return []

    def monitored_scalars(self):
        """The EP regulariser, and the inter-layer noise if the layer has one."""
        scalars = {"ep_regulariser": self.regulariser}
        if self.noise_variance is not None:
            scalars["noise_variance"] = lambda: tf.convert_to_tensor(self.noise_variance)
        return scalars

    def _add_noise(self, var: tf.Tensor) -> tf.Tensor:
        return var if self.noise_variance is None else var + self.noise_variance

    def _kuu(self) -> tf.Tensor:
        return Kuu(self.inducing_variable, self.kernel, jitter=default_jitter())
