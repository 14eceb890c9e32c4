"""A GP layer approximated by random features (Cutajar et al. 2017): F^(l+1) = Φ(F^(l) Ω) W."""

from typing import Dict, List, Optional, Sequence, Tuple, Union

import gpflow
import numpy as np
import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import Parameter, TensorType
from gpflow.config import default_float
from gpflow.utilities import positive

from gpflow_deep.layers.protocol import check_mode
from gpflow_deep.layers.random_features.feature_maps import arccos_features, blockwise_matmul, rbf_features

OMEGA_MODES = ("prior-fixed", "var-fixed", "var-resampled")


@check_shapes(
    "mean: [members..., rows, columns]",
    "std: [members..., rows, columns]",
    "prior_variance: [rows, 1]",
    "return: []",
)
def diagonal_gaussian_kl(mean: tf.Tensor, std: tf.Tensor, prior_variance: tf.Tensor) -> tf.Tensor:
    """KL[Π N(m_ij, s²_ij) ‖ Π N(0, p_i)] = ½ Σ_ij (s²_ij/p_i + m²_ij/p_i − 1 − log(s²_ij/p_i)),
    averaged over the leading ``members`` axes if any."""
    ratio = std**2 / prior_variance
    total = 0.5 * tf.reduce_sum(ratio + mean**2 / prior_variance - 1.0 - tf.math.log(ratio))
    members = tf.reduce_prod(tf.shape(mean)[:-2])
    return total / tf.cast(members, total.dtype)


class RandomFeatureLayer(gpflow.base.Module):
    """L outputs ``Φ(F Ω) W`` with random features Φ of ``kernel`` (Cutajar et al. 2017, eqs. 6-7).

    Ω ``[D_in, N_RF]`` has the kernel's spectral prior N(0, Λ⁻¹) per column: Λ = diag(ℓ²) for a
    ``SquaredExponential``; ``weight_variances`` for an ``ArcCosine`` (whose bias is an extra row
    of Ω, of prior variance ``bias_variance``, against a constant input 1). W ``[F, L]`` has the
    prior N(0, I) and a factorised Gaussian posterior q(W) = Π N(m, s²) (eq. 9), initialised to
    the prior. Ω is treated in one of three ways (Section 3.3; ε ~ N(0, I), s and μ per entry):

    - ``"prior-fixed"``: Ω = Λ^{-1/2} ε with ε drawn once; no KL for Ω;
    - ``"var-fixed"`` (the paper's): Ω = μ + s ε with ε drawn once, q(Ω) = Π N(μ, s²)
      initialised to the prior, KL[q(Ω) ‖ p(Ω | ℓ)] in the regulariser;
    - ``"var-resampled"``: as var-fixed, ε drawn afresh on every path and call.

    By default every path draws one W ~ q(W) shared by all its points (the paper's estimator,
    eq. 12): the layer is ``path_dependent`` and its marginals are that draw's outputs with zero
    variance. ``local_reparameterisation`` gives the Gaussian marginals ``Φ m, Φ² s²`` instead.

    With ``num_members`` = K > 1 the layer holds K independent members, each its own fixed ε of Ω,
    q(Ω) and q(W) (every such array gains a leading axis K), and path s is member s mod K's: the
    variational posterior is the equal mixture of K sets of random features, against the variance
    starvation of one set, whose variance far from the data is what it is near it (members that
    share the kernel differ little there: ``docs/random_features.md``). The KLs are the members'
    average: with as many paths per member, the bound is the average of the members' bounds, a
    lower bound on the mixture's (a mixture's entropy is at least its members' average).

    :param kernel: a ``gpflow.kernels.SquaredExponential`` or ``ArcCosine`` over the layer's
        inputs, holding its hyperparameters (σ², lengthscales or weight variances).
    :param input_dim: D_in, the width of the layer below. :param output_dim: L.
    :param num_features: N_RF.
    :param fed_input_dim: the width D of the model's inputs when they are fed forward to this
        layer (appended to its inputs, :func:`~gpflow_deep.propagation.sample_layers_feeding_inputs`):
        Ω then has D_in + D rows; 0 (the default) for none.
    :param num_members: K, the members of the mixture posterior (1, the default, is the paper's).
    :param seed: seeds the fixed ε of Ω (an int or ints, as ``numpy.random.default_rng`` takes).
    :param w_mean: q(W)'s initial means, broadcast to ``[F, L]`` (``[K, F, L]`` with K members);
        zeros (the prior's) by default.
    :param w_std: q(W)'s initial standard deviations, broadcast as ``w_mean``; ones (the prior's) by default.
    """

    def __init__(
        self,
        kernel: gpflow.kernels.Kernel,
        input_dim: int,
        output_dim: int,
        num_features: int = 100,
        *,
        omega_mode: str = "var-fixed",
        local_reparameterisation: bool = False,
        fed_input_dim: int = 0,
        num_members: int = 1,
        seed: Union[int, Sequence[int]] = 0,
        w_mean: Optional[TensorType] = None,
        w_std: Optional[TensorType] = None,
        name: Optional[str] = None,
    ):
        super().__init__(name=name)
        if not isinstance(kernel, (gpflow.kernels.SquaredExponential, gpflow.kernels.ArcCosine)):
            raise TypeError(f"kernel must be a SquaredExponential or an ArcCosine, got {type(kernel).__name__}")
        if omega_mode not in OMEGA_MODES:
            raise ValueError(f"omega_mode must be one of {OMEGA_MODES}, got {omega_mode!r}")
        sizes = dict(input_dim=input_dim, output_dim=output_dim, num_features=num_features, num_members=num_members)
        for what, value in sizes.items():
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{what} must be a positive integer, got {value!r}")
        self.kernel = kernel
        self.input_dim, self.output_dim, self.num_features = int(input_dim), int(output_dim), int(num_features)
        self.fed_input_dim, self.num_members = int(fed_input_dim), int(num_members)
        self.omega_mode = omega_mode
        self.local_reparameterisation = bool(local_reparameterisation)
        omega_shape = self._member_shape(self._omega_rows, self.num_features)
        if omega_mode != "var-resampled":
            noise = np.random.default_rng(seed).standard_normal(omega_shape)
            self.omega_noise = Parameter(noise, dtype=default_float(), trainable=False, name="omega_noise")
        if omega_mode != "prior-fixed":
            prior_std = np.sqrt(self._prior_variances().numpy()) * np.ones(omega_shape)
            self.omega_mean = Parameter(np.zeros(omega_shape), dtype=default_float(), name="omega_mean")
            self.omega_std = Parameter(prior_std, transform=positive(), dtype=default_float(), name="omega_std")
        w_shape = self._member_shape(2 * self.num_features if self._is_rbf else self.num_features, self.output_dim)
        w_mean = np.broadcast_to(0.0 if w_mean is None else w_mean, w_shape)
        w_std = np.broadcast_to(1.0 if w_std is None else w_std, w_shape)
        self.w_mean = Parameter(w_mean, dtype=default_float(), name="w_mean")
        self.w_std = Parameter(w_std, transform=positive(), dtype=default_float(), name="w_std")

    @property
    def path_dependent(self) -> bool:
        """True unless the marginals are exact given fixed Ω (local reparameterisation, Ω fixed, one member)."""
        return not self.local_reparameterisation or self.omega_mode == "var-resampled" or self.num_members > 1

    def _member_shape(self, *shape: int) -> Tuple[int, ...]:
        """``shape`` of one member's array, with a leading axis K when there are several."""
        return shape if self.num_members == 1 else (self.num_members, *shape)

    def for_paths(self, values: tf.Tensor, num_paths) -> tf.Tensor:
        """A members' array ``[K, ...]`` as ``[num_paths, ...]``, path s taking member s mod K;
        one member's array (K = 1, no member axis) as it is."""
        if self.num_members == 1:
            return values
        return tf.gather(values, tf.range(num_paths) % self.num_members)

    @property
    def _is_rbf(self) -> bool:
        return isinstance(self.kernel, gpflow.kernels.SquaredExponential)

    @property
    def _omega_rows(self) -> int:
        """D_in + D fed forward, plus the bias row of an arc-cosine kernel."""
        return self._width + (0 if self._is_rbf else 1)

    @property
    def _width(self) -> int:
        """The width of the inputs ``marginals`` receives: D_in + D fed forward."""
        return self.input_dim + self.fed_input_dim

    def _prior_variances(self) -> tf.Tensor:
        """``[rows, 1]``: the prior variance of Ω's entries in each row (1/ℓ², or the arc-cosine weights)."""
        ones = tf.ones([self._width], self.kernel.variance.dtype)
        if self._is_rbf:
            variances = ones / tf.convert_to_tensor(self.kernel.lengthscales) ** 2
        else:
            weights = ones * tf.convert_to_tensor(self.kernel.weight_variances)
            variances = tf.concat([weights, [tf.convert_to_tensor(self.kernel.bias_variance)]], axis=0)
        return variances[:, None]

    @check_shapes(
        "seed: [2]",
        "return: [batch..., rows, R]",
    )
    def omega(self, num_paths: tf.Tensor, seed: Optional[tf.Tensor] = None) -> tf.Tensor:
        """Ω: ``[rows, N_RF]`` when fixed and one member, else ``[num_paths, rows, N_RF]`` (path s
        member s mod K's; resampled ones keyed by seed)."""
        if self.omega_mode == "prior-fixed":
            return tf.sqrt(self._prior_variances()) * self.for_paths(self.omega_noise, num_paths)
        if self.omega_mode == "var-fixed":
            return self.for_paths(self.omega_mean + self.omega_std * self.omega_noise, num_paths)
        mean, std = (self.for_paths(values, num_paths) for values in (self.omega_mean, self.omega_std))
        shape = tf.concat([[num_paths], tf.shape(self.omega_mean)[-2:]], axis=0)
        return mean + std * tf.random.stateless_normal(shape, seed, dtype=self.omega_mean.dtype)

    @check_shapes(
        "inputs: [broadcast S, N, D]",
        "return: [S, N, F]",
    )
    def features(self, inputs: TensorType, seed: Optional[tf.Tensor] = None, num_paths=None) -> tf.Tensor:
        """Φ(F Ω) at inputs F ``[S, N, D_in + D fed]`` (eq. 6 or 7), Ω per path when resampled
        (``num_paths`` of them, by default S; inputs ``[1, N, D]`` are shared by the paths)."""
        blocks, scale = self._feature_blocks(inputs, seed, num_paths)
        return scale * tf.concat(blocks, axis=-1)

    def _feature_blocks(self, inputs: TensorType, seed, num_paths) -> Tuple[List[tf.Tensor], tf.Tensor]:
        """Φ's column blocks ``[S, N, ·]`` and its scalar scale: Φ = scale × [blocks side by side]."""
        inputs = tf.convert_to_tensor(inputs)
        num_paths = tf.shape(inputs)[0] if num_paths is None else num_paths
        if not self._is_rbf:
            inputs = tf.concat([inputs, tf.ones_like(inputs[..., :1])], axis=-1)
        projections = tf.linalg.matmul(inputs, self.omega(num_paths, seed))
        variance = tf.convert_to_tensor(self.kernel.variance)
        if self._is_rbf:
            return rbf_features(projections, variance)
        return arccos_features(projections, variance, self.kernel.order)

    @check_shapes(
        "inputs: [broadcast S, N, D]",
        "return[0]: [S, N, L]",
        "return[1]: [S, N, L]",
    )
    def marginals(
        self, inputs: TensorType, *, seed=None, mode: str = "posterior", num_paths=None
    ) -> Tuple[tf.Tensor, tf.Tensor]:
        """Path s: ``(Φ_s W_s, 0)`` with W_s ~ q(W), or ``(Φ_s m, Φ_s² s²)`` with local
        reparameterisation. ``seed`` keys W_s (and Ω_s when resampled); unused if nothing is drawn.
        ``num_paths`` draws (by default the inputs' leading size S) when inputs are ``[1, N, D]``."""
        check_mode(self, mode)
        if seed is None and self.path_dependent:
            raise ValueError("RandomFeatureLayer draws W (or Ω) per path: marginals needs a [2] seed")
        omega_seed, w_seed = (None, None) if seed is None else self._seeds(seed)
        blocks, scale = self._feature_blocks(inputs, omega_seed, num_paths)  # Φ = scale × [blocks]
        num_paths = tf.shape(blocks[0])[0] if num_paths is None else num_paths
        if self.local_reparameterisation:
            w_mean, w_std = (self.for_paths(values, num_paths) for values in (self.w_mean, self.w_std))
            mean = scale * blockwise_matmul(blocks, w_mean)
            return mean, scale**2 * blockwise_matmul([block**2 for block in blocks], w_std**2)
        outputs = scale * blockwise_matmul(blocks, self.weight_draws(num_paths, w_seed))
        return outputs, tf.zeros_like(outputs)  # no gradient flows into the zeros: sqrt(0) is harmless

    def weight_draws(self, num_paths: tf.Tensor, seed: tf.Tensor) -> tf.Tensor:
        """``[num_paths, F, L]``: one W ~ q(W) per path (its member's), W = m + s ∘ ε with ε keyed by ``seed``."""
        mean, std = (self.for_paths(values, num_paths) for values in (self.w_mean, self.w_std))
        shape = tf.concat([[num_paths], tf.shape(self.w_mean)[-2:]], axis=0)
        return mean + std * tf.random.stateless_normal(shape, seed, dtype=self.w_mean.dtype)

    @staticmethod
    def _seeds(seed: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        seed = tf.cast(seed, tf.int64)
        return tuple(tf.random.experimental.stateless_fold_in(seed, i) for i in (0, 1))

    @check_shapes("return: []")
    def weights_kl(self) -> tf.Tensor:
        """KL[q(W) ‖ N(0, I)] (the members' average)."""
        prior_variance = tf.ones([tf.shape(self.w_mean)[-2], 1], self.w_mean.dtype)
        return diagonal_gaussian_kl(self.w_mean, self.w_std, prior_variance)

    @check_shapes("return: []")
    def omega_kl(self) -> tf.Tensor:
        """KL[q(Ω) ‖ p(Ω | ℓ)] (the members' average); zero when Ω is prior-fixed (it has no q)."""
        if self.omega_mode == "prior-fixed":
            return tf.zeros([], self.w_mean.dtype)
        return diagonal_gaussian_kl(self.omega_mean, self.omega_std, self._prior_variances())

    def regulariser(self, inputs=None) -> tf.Tensor:
        """KL[q(W) ‖ p(W)] + KL[q(Ω) ‖ p(Ω | ℓ)], whatever the inputs."""
        return self.weights_kl() + self.omega_kl()

    def natural_gradient_parameters(self):
        """None: q(W) and q(Ω) are factorised, not GPflow's (q_mu, q_sqrt) pairs."""
        return []

    def monitored_scalars(self) -> Dict[str, tf.Tensor]:
        """The two KLs, for TensorBoard."""
        return {"kl_w": self.weights_kl, "kl_omega": self.omega_kl}
