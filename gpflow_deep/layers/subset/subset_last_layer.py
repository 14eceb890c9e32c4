"""The last subset-of-data layer: q(F_S) conditioned on the subset's own targets in closed form
(Jain, Srijith & Khan 2021, eq. 12), with the Gaussian likelihood's noise variance. It keeps the
:class:`~gpflow_deep.layers.protocol.ObservedSubsetLayer` protocol that ``SoDDGP`` needs."""

from typing import NamedTuple, Optional, Tuple

import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float
from gpflow.kernels import Kernel
from gpflow.likelihoods import Gaussian

from gpflow_deep.layers.subset.subset_conditionals import path_projections
from gpflow_deep.layers.subset.subset_layer import SubsetLayer


@check_shapes(
    "q_mu: [M, L]",
    "q_sqrt: [L, M, M]",
    "targets: [M, L]",
    "observation: [S, M, M]",
    "return[0]: [batch..., M, L]",
    "return[1]: [batch..., L, M, M]",
    "return[2]: [batch...]",
)
def condition_on_targets(
    q_mu: tf.Tensor,
    q_sqrt: tf.Tensor,
    targets: tf.Tensor,
    noise_variance: tf.Tensor,
    observation: Optional[tf.Tensor] = None,
) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """q^(v) ∝ N(y_S | O v, σ² I) N(v | μ, Σ): eq. 12 for v = F_S (O = I, the default), and for a
    whitened layer's v = Lk⁻¹ F_S with O = Lk on each of S paths. Σ^ = (Σ⁻¹ + σ⁻² OᵀO)⁻¹ and
    μ^ = μ + σ⁻² Σ^ Oᵀ (y_S − O μ).

    With Σ = Lq Lqᵀ and R = chol(I + σ⁻² (O Lq)ᵀ (O Lq)): Σ^ = C Cᵀ for C = Lq R⁻ᵀ, and
    log|Σ^| = log|Σ| − log|R|², with no subtraction of nearly equal matrices and no Σ⁻¹.
    Returns μ^ ``[M, L]``, C ``[L, M, M]`` and Σ_l log|Σ^_l|, each path's (leading axis S) given O.
    """
    precision = 1.0 / noise_variance
    if observation is None:
        observed_mean, observed_sqrt = q_mu, q_sqrt
    else:
        observed_mean, observed_sqrt = observe(q_mu, q_sqrt, observation)
        q_sqrt = tf.broadcast_to(q_sqrt, tf.shape(observed_sqrt))
    M = tf.shape(q_mu)[-2]
    inner = tf.eye(M, dtype=q_mu.dtype) + precision * tf.linalg.matmul(observed_sqrt, observed_sqrt, transpose_a=True)
    R = tf.linalg.cholesky(inner)
    C = tf.linalg.matrix_transpose(tf.linalg.triangular_solve(R, tf.linalg.matrix_transpose(q_sqrt), lower=True))
    residual = targets - observed_mean
    if observation is not None:
        residual = tf.einsum("skm,skl->sml", observation, residual)  # Oᵀ (y_S − O μ)
    residual = tf.linalg.matrix_transpose(residual)[..., None]  # [..., L, M, 1]
    shift = tf.linalg.matmul(C, tf.linalg.matmul(C, residual, transpose_a=True))[..., 0]
    mean = q_mu + precision * tf.linalg.matrix_transpose(shift)
    log_det = tf.reduce_sum(tf.math.log(tf.square(tf.linalg.diag_part(q_sqrt))), axis=[-2, -1]) - 2.0 * tf.reduce_sum(
        tf.math.log(tf.linalg.diag_part(R)), axis=[-2, -1]
    )
    return mean, C, log_det


@check_shapes(
    "mean: [broadcast S, M, L]",
    "sqrt: [broadcast S, L, M, M]",
    "observation: [S, M, M]",
    "return[0]: [S, M, L]",
    "return[1]: [S, L, M, M]",
)
def observe(mean: tf.Tensor, sqrt: tf.Tensor, observation: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """O mean and O sqrt on each path: the Gaussian of O v for v ~ N(mean, sqrt sqrtᵀ). Lower
    triangular O and sqrt give a lower-triangular O sqrt. Einsums: a broadcasting batched matmul
    ([S, 1, M, M] · [1, L, M, M]) crashed TF 2.21's float32 CPU kernel in training."""
    if mean.shape.rank == 2:
        return tf.einsum("smk,kl->sml", observation, mean), tf.einsum("smk,lkn->slmn", observation, sqrt)
    return tf.einsum("smk,skl->sml", observation, mean), tf.einsum("smk,slkn->slmn", observation, sqrt)


class SubsetLastLayer(SubsetLayer):
    """The last layer of a subset-of-data deep GP: its marginals, its KL and the subset's marginals
    (for the subset's expected log-likelihood) all use q^(F_S), q(F_S) conditioned on y_S with the
    likelihood's σ² (one noise variance, as in the paper's derivation; the public code had a second one).

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
        """q^ (eq. 12) in the layer's coordinates: over F_S, shared by all paths, or (``whiten``) over
        V = Lk⁻¹ F_S, each path's own (y_S = Lk V + ε on the path whose Kuu is Lk Lkᵀ)."""
        if self.whiten and chol_kuu is None:
            raise ValueError(f"{self.name}: a whitened q^ is conditioned on y_S through each path's Cholesky factor")
        mean, sqrt, _ = super().posterior_over_subset()
        observation = chol_kuu if self.whiten else None
        return condition_on_targets(mean, sqrt, self.subset_targets, self.likelihood.variance, observation)

    @check_shapes(
        "chol_kuu: [S, M, M]",
        "return[0]: [broadcast S, M, L]",
        "return[1]: [broadcast S, M, L]",
    )
    def subset_marginals(self, chol_kuu: Optional[tf.Tensor] = None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Means and variances of q^(F_S) at the subset rows (each path's with ``whiten``)."""
        return self._subset_marginals(self.posterior_over_subset(chol_kuu), chol_kuu)

    def _subset_marginals(self, posterior, chol_kuu: Optional[tf.Tensor]) -> Tuple[tf.Tensor, tf.Tensor]:
        mean, sqrt, _ = posterior
        if self.whiten:
            mean, sqrt = observe(mean, sqrt, chol_kuu)  # F_S = Lk V
        return mean, tf.linalg.matrix_transpose(tf.reduce_sum(tf.square(sqrt), axis=-1))

    @check_shapes(
        "inputs: [S, N, D]",
        "return.means: [S, N_minus_M, L]",
        "return.variances: [S, N_minus_M, L]",
        "return.subset_means: [paths..., M, L]",
        "return.subset_variances: [paths..., M, L]",
        "return.kl: []",
    )
    def training_terms(self, inputs: TensorType) -> "LastLayerTerms":
        """What the ELBO (eq. 11) takes from the last layer on the paths whose inputs (subset rows
        first) it received, from one Kuu Cholesky and one q^ per path: the marginals at the rows
        after the subset (the ELBO scores the subset's rows by q^ alone), the marginals of q^(F_S)
        at the subset rows (each path's with ``whiten``, else shared) and KL[q^ ‖ p] averaged over
        the paths."""
        subset, points = tf.split(tf.convert_to_tensor(inputs), [self.num_subset, -1], axis=1)
        projections = path_projections(self.kernel, subset, points)
        chol_kuu = projections.chol_kuu
        posterior = self.posterior_over_subset(chol_kuu)
        mean, var = self._with_mean_and_noise(points, *self._conditional(projections, posterior))
        subset_mean, subset_var = self._subset_marginals(posterior, chol_kuu)
        return LastLayerTerms(mean, var, subset_mean, subset_var, tf.reduce_mean(self._kl(posterior, chol_kuu)))


class LastLayerTerms(NamedTuple):
    """:meth:`SubsetLastLayer.training_terms`: ``means, variances`` ``[S, N − M, L]`` at the rows
    after the subset, ``subset_means, subset_variances`` ``[S or none, M, L]`` of q^(F_S), and the
    ``kl`` ``[]``."""

    means: tf.Tensor
    variances: tf.Tensor
    subset_means: tf.Tensor
    subset_variances: tf.Tensor
    kl: tf.Tensor
