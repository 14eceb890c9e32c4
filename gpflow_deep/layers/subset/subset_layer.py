"""A subset-of-data GP layer (Jain, Srijith & Khan 2021): its inducing inputs are the first M rows
of its own inputs on each path, and its only variational parameters are q(F_S) over them."""

from typing import Optional, Tuple

import gpflow
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float
from gpflow.kernels import Kernel
from gpflow.mean_functions import MeanFunction
from gpflow.utilities import positive, triangular

from gpflow_deep.layers.protocol import check_mode
from gpflow_deep.layers.subset.subset_conditionals import (
    conditional_marginals,
    marginals_given_draws,
    marginals_given_white_draws,
    path_projections,
    prior_kl,
    standard_normal_kl,
    subset_cholesky,
    white_conditional_marginals,
)


class SubsetLayer(gpflow.base.Module):
    """L GPs sharing one kernel, with q(F_S,l) = N(μ_l, Σ_l) over their values at the subset.

    The model's propagation carries [X_S; X] along the point axis: at the first layer the first
    M rows are the fixed subset X_S, above it they are the subset's own samples Z_S from the layer
    below on the same path, so each path has its own Kuu (eqs. 10, 13-16). The layer's outputs
    are Z = F + ε with explicit noise ε ~ N(0, σ_l²) (eq. 3), added to the marginal variance.
    With a ``mean_function`` m, F = m(inputs) + G with G ~ GP(0, k) and q over G_S, GPflow's
    convention: the KL is G_S's, and m adds to every row's mean (the paper's m is zero).

    :param kernel: a GPflow kernel shared by the L outputs (isotropic stationary kernels are
        evaluated per path in one batch; others per path with ``tf.map_fn``).
    :param num_subset: M, the subset size.
    :param input_dim: D_in, the width of the layer's inputs.
    :param output_dim: L, the layer's output width.
    :param q_mu: initial μ ``[M, L]``; zeros by default.
    :param q_sqrt: initial lower-triangular Cholesky factors of Σ ``[L, M, M]``; identities by default.
    :param q_sqrt_unit: the optimiser's unit for the Cholesky factors: q_sqrt = unit × the trained
        variable. The model is unchanged, but Adam, whose steps are about the learning rate
        whatever the gradient's size, moves the factors ``unit`` times as far (docs/sod.md,
        "Training the hidden covariances").
    :param noise_variance: initial σ_l² between this layer and the next (trainable); None for no
        noise (a last layer, whose noise is the likelihood's).
    :param trainable_covariances: learn ``q_sqrt`` and the noise variance; False holds both at
        their start.
    :param mean_function: m ``[S, N, D] → [S, N, L]``, e.g. DSVI's fixed linear projection
        (``gpflow.mean_functions.Identity``); None for the paper's zero mean.
    :param joint_sampling: on each path, draw F_S ~ q(F_S) jointly and the other points' values from
        the GP conditioned on that draw (eq. 15: the subset's and the batch's values are one sample
        of the same function; the layer is then ``path_dependent``). False gives every point its
        own marginal, F_S integrated out (the public code's diagonal sampling), which lets a
        path's Z_S and its batch values disagree.
    :param whiten: q over V = Lk⁻¹ F_S (Kuu = Lk Lkᵀ at the path's subset inputs), so that on each
        path q(F_S | Z_S) = N(Lk μ, Lk Σ Lkᵀ) moves with the path's inducing inputs and the KL,
        KL[q(V) ‖ N(0, I)], does not depend on the path (docs/sod.md, "Whitened"). At the first
        layer, whose subset inputs are fixed, this only reparameterises q; False is the paper's
        q(F_S) over the function values themselves.
    """

    def __init__(
        self,
        kernel: Kernel,
        num_subset: int,
        input_dim: int,
        output_dim: int,
        *,
        q_mu: Optional[TensorType] = None,
        q_sqrt: Optional[TensorType] = None,
        noise_variance: Optional[float] = 1e-5,
        q_sqrt_unit: float = 1.0,
        trainable_covariances: bool = True,
        mean_function: Optional[MeanFunction] = None,
        joint_sampling: bool = False,
        whiten: bool = False,
        name: Optional[str] = None,
    ):
        super().__init__(name=name)
        self.joint_sampling, self.whiten = bool(joint_sampling), bool(whiten)
        if not isinstance(kernel, Kernel):
            raise TypeError(f"kernel must be a gpflow.kernels.Kernel, got {type(kernel).__name__}")
        if mean_function is not None and not isinstance(mean_function, MeanFunction):
            raise TypeError(f"mean_function must be a gpflow MeanFunction or None, got {type(mean_function).__name__}")
        self.kernel = kernel
        self.mean_function = mean_function
        self.num_subset, self.input_dim, self.output_dim = int(num_subset), int(input_dim), int(output_dim)
        M, L = self.num_subset, self.output_dim
        self.q_mu = Parameter(np.zeros((M, L)) if q_mu is None else q_mu, dtype=default_float(), name="q_mu")
        q_sqrt = np.tile(np.eye(M)[None], (L, 1, 1)) if q_sqrt is None else q_sqrt
        if not q_sqrt_unit > 0:
            raise ValueError(f"q_sqrt_unit must be positive, got {q_sqrt_unit}")
        self.q_sqrt_unit = float(q_sqrt_unit)
        transform = (
            triangular()
            if q_sqrt_unit == 1
            else tfp.bijectors.Chain([tfp.bijectors.Scale(np.asarray(q_sqrt_unit, default_float())), triangular()])
        )
        self.q_sqrt = Parameter(
            q_sqrt, transform=transform, dtype=default_float(), trainable=trainable_covariances, name="q_sqrt"
        )
        for label, value, shape in (("q_mu", self.q_mu, (M, L)), ("q_sqrt", self.q_sqrt, (L, M, M))):
            if tuple(value.shape) != shape:
                raise ValueError(f"{label} must have shape {list(shape)}, got {list(value.shape)}")
        self.noise_variance = None
        if noise_variance is not None:
            self.noise_variance = Parameter(
                noise_variance,
                transform=positive(),
                dtype=default_float(),
                trainable=trainable_covariances,
                name="noise",
            )

    @check_shapes(
        "chol_kuu: [S, M, M]",
        "return[0]: [broadcast S, M, L]",
        "return[1]: [broadcast S, L, M, M]",
        "return[2]: [broadcast S]",
    )
    def posterior_over_subset(self, chol_kuu: Optional[tf.Tensor] = None) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """q in the layer's own coordinates, F_S or (``whiten``) V = Lk⁻¹ F_S, used by the marginals
        and the KL: mean ``[M, L]``, a lower-triangular square root of the covariance per output
        ``[L, M, M]`` and Σ_l log|Σ_l| ``[]``. The same on every path here; ``chol_kuu``, each path's
        Lk, is for subclasses whose q depends on the path (:class:`SubsetLastLayer`)."""
        return tf.convert_to_tensor(self.q_mu), tf.convert_to_tensor(self.q_sqrt), self._log_det_q()

    @check_shapes(
        "inputs: [broadcast S, N, D]",
        "return[0]: [S, N, L]",
        "return[1]: [S, N, L]",
    )
    def marginals(
        self, inputs: TensorType, *, seed=None, mode: str = "posterior", num_paths=None
    ) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of Z = F + ε at every path's inputs, whose first M rows are that
        path's subset: given the path's own draw of F_S (``joint_sampling``, ``seed`` required;
        ``num_paths`` draws, by default S, so that inputs ``[1, N, D]`` shared by all paths cost one
        Kuu, Kuf and solve) or with F_S integrated out."""
        check_mode(self, mode)
        inputs = tf.convert_to_tensor(inputs)
        projections = path_projections(self.kernel, inputs[:, : self.num_subset], inputs)
        if self.joint_sampling:
            num_paths = tf.shape(inputs)[0] if num_paths is None else num_paths
            given_draws = marginals_given_white_draws if self.whiten else marginals_given_draws
            mean, var = given_draws(projections, self._draw_subset_values(num_paths, seed))
        else:
            mean, var = self._conditional(projections, self.posterior_over_subset(projections.chol_kuu))
        return self._with_mean_and_noise(inputs, mean, var)

    def _conditional(self, projections, posterior) -> Tuple[tf.Tensor, tf.Tensor]:
        """Marginals of F at every path's inputs with F_S (or V) integrated over ``posterior``."""
        conditional = white_conditional_marginals if self.whiten else conditional_marginals
        return conditional(projections, *posterior[:2])

    def _with_mean_and_noise(self, inputs: tf.Tensor, mean: tf.Tensor, var: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        """Z = m(inputs) + F + ε: the mean function's values and the inter-layer noise added."""
        if self.mean_function is not None:
            mean = mean + self.mean_function(inputs)
        if self.noise_variance is not None:
            var = var + self.noise_variance
        return mean, var

    @check_shapes(
        "inputs: [S, N, D]",
        "return: []",
    )
    def regulariser(self, inputs: Optional[TensorType] = None) -> tf.Tensor:
        """(1/S) Σ_s KL[q(F_S) ‖ p(F_S | Z_S,s)]: the KL against the prior at each path's subset
        inputs (the first M rows of ``inputs``), a Monte Carlo expectation beyond the first layer."""
        if inputs is None:
            raise ValueError(f"{type(self).__name__}.regulariser needs the inputs the layer saw on the paths")
        chol_kuu = None if self.path_free_kl else self.subset_cholesky(inputs)
        return tf.reduce_mean(self._kl(self.posterior_over_subset(chol_kuu), chol_kuu))

    def _kl(self, posterior, chol_kuu: Optional[tf.Tensor]) -> tf.Tensor:
        """KL[q ‖ p] on each path ``[S]`` (or ``[]`` if path-free): against N(0, I) for a whitened q,
        against N(0, Kuu) at the path's subset inputs otherwise."""
        return standard_normal_kl(*posterior) if self.whiten else prior_kl(*posterior, chol_kuu)

    @property
    def path_free_kl(self) -> bool:
        """Whether the KL is the same on every path: KL[q(V) ‖ N(0, I)] with ``whiten``."""
        return self.whiten

    def _log_det_q(self) -> tf.Tensor:
        """Σ_l log|Σ_l| of q's own covariances."""
        return tf.reduce_sum(tf.math.log(tf.square(tf.linalg.diag_part(self.q_sqrt))))

    @check_shapes(
        "inputs: [S, N, D]",
        "return: [S, M, M]",
    )
    def subset_cholesky(self, inputs: TensorType) -> tf.Tensor:
        """chol Kuu at each path's subset inputs, the first M rows of ``inputs``."""
        return subset_cholesky(self.kernel, tf.convert_to_tensor(inputs)[:, : self.num_subset])

    @property
    def path_dependent(self) -> bool:
        """True with ``joint_sampling``: each path draws its own F_S."""
        return self.joint_sampling

    def _draw_subset_values(self, num_paths, seed) -> tf.Tensor:
        """``[S, M, L]`` draws from q, one per path: of F_S, or with ``whiten`` of V = Lk⁻¹ F_S."""
        if seed is None:
            raise ValueError(f"{self.name}: joint sampling draws F_S on every path and needs a seed")
        mean, sqrt = tf.convert_to_tensor(self.q_mu), tf.convert_to_tensor(self.q_sqrt)
        shape = tf.stack([num_paths, self.output_dim, self.num_subset])
        noise = tf.random.stateless_normal(shape, seed=seed, dtype=mean.dtype)
        return mean + tf.linalg.matrix_transpose(tf.einsum("lmk,slk->slm", sqrt, noise))

    def natural_gradient_parameters(self):
        """``[(q_mu, q_sqrt)]``, the Gaussian q(F_S)."""
        return [(self.q_mu, self.q_sqrt)]

    def monitored_scalars(self):
        """The inter-layer noise variance, for TensorBoard (the KL depends on the sampled subset)."""
        return (
            {} if self.noise_variance is None else {"noise_variance": lambda: tf.convert_to_tensor(self.noise_variance)}
        )
