"""The last subset-of-data layer: q(F_S) conditioned on the subset's own targets in closed form
(Jain, Srijith & Khan 2021, eq. 12), with the Gaussian likelihood's noise variance."""

from typing import Optional, Tuple

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float
from gpflow.kernels import Kernel
from gpflow.likelihoods import Gaussian

from .subset_layer import SubsetLayer


@check_shapes(
    "q_mu: [batch..., M, L]",
    "q_sqrt: [batch..., L, M, M]",
    "targets: [M, L]",
    "return[0]: [batch..., M, L]",
    "return[1]: [batch..., L, M, M]",
    "return[2]: [batch...]",
)
def condition_on_targets(
    q_mu: tf.Tensor, q_sqrt: tf.Tensor, targets: tf.Tensor, noise_variance: tf.Tensor
) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """q^(F_S) ∝ N(y_S | F_S, σ² I) q(F_S) (eq. 12): Σ^ = (Σ⁻¹ + σ⁻² I)⁻¹, μ^ = Σ^(σ⁻² y_S + Σ⁻¹ μ).

    With Σ = Lq Lqᵀ and R = chol(I + σ⁻² Lqᵀ Lq): Σ^ = C Cᵀ for C = Lq R⁻ᵀ, μ^ = μ + σ⁻² Σ^ (y_S − μ)
    and log|Σ^| = log|Σ| − log|R|², with no subtraction of nearly equal matrices and no Σ⁻¹.
    Returns μ^ ``[M, L]``, C ``[L, M, M]`` and Σ_l log|Σ^_l|, for each leading (path) index if any.
    """
    M = tf.shape(q_mu)[-2]
    precision = 1.0 / noise_variance
    inner = tf.eye(M, dtype=q_mu.dtype) + precision * tf.linalg.matmul(q_sqrt, q_sqrt, transpose_a=True)
    R = tf.linalg.cholesky(inner)
    C = tf.linalg.matrix_transpose(tf.linalg.triangular_solve(R, tf.linalg.matrix_transpose(q_sqrt), lower=True))
    residual = tf.linalg.matrix_transpose(targets - q_mu)[..., None]  # [..., L, M, 1]
    shift = tf.linalg.matmul(C, tf.linalg.matmul(C, residual, transpose_a=True))[..., 0]
    mean = q_mu + precision * tf.linalg.matrix_transpose(shift)
    log_det = tf.reduce_sum(tf.math.log(tf.square(tf.linalg.diag_part(q_sqrt))), axis=[-2, -1]) - 2.0 * tf.reduce_sum(
        tf.math.log(tf.linalg.diag_part(R)), axis=[-2, -1]
    )
    return mean, C, log_det


class SubsetLastLayer(SubsetLayer):
    """The last layer of a subset-of-data deep GP: its marginals, its KL and the subset's expected
    log-likelihood all use q^(F_S), q(F_S) conditioned on y_S with the likelihood's σ² (one noise
    variance, as in the paper's derivation; the public code had a second one).

    :param kernel: a GPflow kernel shared by the L outputs.
    :param num_subset: M, the subset size.
    :param input_dim: D_in, the width of the layer's inputs.
    :param likelihood: the model's Gaussian likelihood, whose ``variance`` is σ².
    :param subset_targets: y_S ``[M, L]``, the targets of the subset rows.
    :param q_mu: initial μ ``[M, L]``; zeros by default.
    :param q_sqrt: initial Cholesky factors of Σ ``[L, M, M]``; identities by default.
    :param whiten: q over Lk⁻¹ F_S on each path (see :class:`SubsetLayer`); q^ is then each path's own.
    """

    def __init__(
        self,
        kernel: Kernel,
        num_subset: int,
        input_dim: int,
        likelihood: Gaussian,
        subset_targets: TensorType,
        *,
        q_mu: Optional[TensorType] = None,
        q_sqrt: Optional[TensorType] = None,
        whiten: bool = False,
        name: Optional[str] = None,
    ):
        if not isinstance(likelihood, Gaussian):
            raise TypeError(
                "likelihood: the closed-form q^(F_S) needs a gpflow.likelihoods.Gaussian, "
                f"got {type(likelihood).__name__}"
            )
        targets = tf.convert_to_tensor(subset_targets, dtype=default_float())
        if targets.shape.rank != 2 or targets.shape[0] != num_subset:
            raise ValueError(f"subset_targets must be [{num_subset}, L], got shape {targets.shape.as_list()}")
        options = dict(q_mu=q_mu, q_sqrt=q_sqrt, whiten=whiten, name=name)
        super().__init__(kernel, num_subset, input_dim, targets.shape[1], noise_variance=None, **options)
        self.likelihood = likelihood
        self.subset_targets = Parameter(targets, trainable=False, name="subset_targets")

    @property
    def path_free_kl(self) -> bool:
        """False: the KL is q^'s, and a whitened q^ is each path's own (eq. 12 on each path)."""
        return False

    @check_shapes(
        "chol_kuu: [S, M, M]",
        "return[0]: [broadcast S, M, L]",
        "return[1]: [broadcast S, L, M, M]",
        "return[2]: [broadcast S]",
    )
    def posterior_over_subset(self, chol_kuu: Optional[tf.Tensor] = None) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """q^(F_S) (eq. 12): mean, a square root of the covariance and Σ_l log|Σ^_l|, shared by all
        paths or (``whiten``) each path's own."""
        mean, sqrt, _ = super().posterior_over_subset(chol_kuu)
        return condition_on_targets(mean, sqrt, self.subset_targets, self.likelihood.variance)

    @check_shapes(
        "chol_kuu: [S, M, M]",
        "return[0]: [broadcast S, M, L]",
        "return[1]: [broadcast S, M, L]",
    )
    def subset_marginals(self, chol_kuu: Optional[tf.Tensor] = None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Means and variances of q^(F_S) at the subset rows."""
        mean, sqrt, _ = self.posterior_over_subset(chol_kuu)
        return mean, tf.linalg.matrix_transpose(tf.reduce_sum(tf.square(sqrt), axis=-1))

    @check_shapes(
        "inputs: [S, N, D]",
        "return: []",
    )
    def subset_expected_log_likelihood(self, inputs: TensorType) -> tf.Tensor:
        """E_{q^(F_S)}[log p(y_S | F_S)], averaged over the paths whose inputs (subset rows first)
        the layer received: the same on every path unless ``whiten``."""
        chol_kuu = self.subset_cholesky(inputs) if self.whiten else None
        mean, var = self.subset_marginals(chol_kuu)
        expectations = self.likelihood.variational_expectations(
            tf.zeros_like(mean[..., :0]), mean, var, tf.broadcast_to(self.subset_targets, tf.shape(mean))
        )
        return tf.reduce_mean(tf.reduce_sum(expectations, axis=-1))
