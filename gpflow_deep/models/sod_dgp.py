"""SoDDGP: subset-of-data variational inference for deep GPs (Jain, Srijith & Khan 2021)."""

from typing import List, Sequence, Tuple

import tensorflow as tf
from check_shapes import check_shapes, inherit_check_shapes
from gpflow.base import Parameter, RegressionData, TensorType
from gpflow.config import default_float
from gpflow.likelihoods import Gaussian

from gpflow_deep.core.mixtures import per_component
from gpflow_deep.core.row_noise import independent_noise, row_keyed_noise
from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.layers.subset.subset_last_layer import SubsetLastLayer
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.models.parameter_count import num_trainable_parameters
from gpflow_deep.objectives import layer_inputs, minibatch_scale, total_regulariser
from gpflow_deep.propagation import LayerOutput, sample_layers


class SoDDGP(DeepMixtureModel):
    """A deep GP whose inducing points are a subset S of the training data (eq. 11):

        L = (N/B) Σ_{n ∈ batch, n ∉ S} (1/T) Σ_t E_{q(f_n | path t)}[log p(y_n | f_n)]
            + E_{q^(F_S)}[log p(y_S | F_S)]
            − KL[q(F_S¹) ‖ p(F_S¹ | X_S)] − Σ_{l≥2} (1/T) Σ_t KL[q(F_Sˡ) ‖ p(F_Sˡ | Z_S,tˡ⁻¹)]

    (the last KL with q^). Every path carries [X_S; X] through the layers (eqs. 15-16), so the
    subset's samples Z_S,t are the next layer's inducing inputs on that path. The complement S̄'s
    term is minibatched: batches are drawn from all N training points and the rows that belong to
    the subset (matched by value on x and y) are masked out, because the subset's term is counted
    in full every step; each training point counts once per epoch. Predictions carry [X_S; X*]
    and drop the subset rows (eq. 17).

    :param layers: ``SubsetLayer`` s, the last a ``SubsetLastLayer`` holding y_S and ``likelihood``.
    :param likelihood: the Gaussian likelihood whose variance the last layer shares.
    :param subset_inputs: X_S ``[M, D]``, the rows of the training inputs in the subset.
    :param num_data: N, the number of training points (subset included).
    :param num_samples: T, paths per training step (the paper's 10).
    :param options: ``num_prediction_samples`` (T for predictions when a call gives none: the
        paper's 50 here), ``seed``, ``prediction_batch_size``, ``name``: see :class:`DeepMixtureModel`.
    """

    def __init__(
        self,
        layers: Sequence,
        likelihood: Gaussian,
        subset_inputs: TensorType,
        num_data: int,
        num_samples: int = 10,
        **options,
    ):
        options.setdefault("num_prediction_samples", 50)
        super().__init__(layers, likelihood, num_data, **options)
        last = self.layers[-1]
        if not isinstance(last, SubsetLastLayer) or last.likelihood is not likelihood:
            raise ValueError("layers[-1] must be a SubsetLastLayer sharing the model's likelihood (one noise variance)")
        X_S = tf.convert_to_tensor(subset_inputs, dtype=default_float())
        if X_S.shape.rank != 2 or X_S.shape[1] != self.input_dim:
            raise ValueError(f"subset_inputs must be [M, {self.input_dim}], got shape {X_S.shape.as_list()}")
        for index, layer in enumerate(self.layers):
            if getattr(layer, "num_subset", None) != X_S.shape[0]:
                raise ValueError(f"layers[{index}] is not a subset layer of M={X_S.shape[0]} rows")
        self.subset_inputs = Parameter(X_S, trainable=False, name="subset_inputs")
        self.num_samples = check_positive_int("num_samples", num_samples)

    @property
    def num_subset(self) -> int:
        """M, the subset size."""
        return int(self.subset_inputs.shape[0])

    @property
    def num_trainable_parameters(self) -> int:
        """The number of trained scalars (kernels, q(F_S) of every layer, noise variances)."""
        return num_trainable_parameters(self)

    def _with_subset(self, X: tf.Tensor) -> tf.Tensor:
        """[X_S; X]: every path carries the subset's rows first."""
        return tf.concat([tf.convert_to_tensor(self.subset_inputs), X], axis=0)

    def _paths(self, X: tf.Tensor, num_samples, seed, first_row=None) -> Tuple[List[LayerOutput], tf.Tensor]:
        noise = independent_noise
        if first_row is not None:  # the subset's rows keyed apart from the inputs'
            noise = row_keyed_noise([(0, self.num_subset), (first_row, tf.shape(X)[0])])
        outputs = sample_layers(self.layers, self._with_subset(X), num_samples, seed, noise=noise)
        log_weights = tf.fill([num_samples], -tf.math.log(tf.cast(num_samples, X.dtype)))
        M = self.num_subset
        return [LayerOutput(*(field[:, M:] for field in output)) for output in outputs], log_weights

    @check_shapes(
        "X: [B, D]",
        "Y: [B, P]",
        "return: [B]",
    )
    def in_subset(self, X: tf.Tensor, Y: tf.Tensor) -> tf.Tensor:
        """Whether each row (x, y) is a subset point (equal to some (x_S, y_S))."""
        subset = tf.concat([self.subset_inputs, self.layers[-1].subset_targets], axis=1)
        rows = tf.concat([X, Y], axis=1)
        return tf.reduce_any(tf.reduce_all(tf.equal(rows[:, None, :], subset[None]), axis=-1), axis=-1)

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The SoD ELBO (eq. 11) on a (mini)batch of the training data, scaled to all N points."""
        X, Y = data
        inputs = self._with_subset(X)
        hidden = sample_layers(self.layers[:-1], inputs, self.num_samples, self.new_seed())
        received = [inputs[None]] + [output.values for output in hidden]
        mean, var, subset, last_kl = self.layers[-1].training_terms(received[-1])
        M = self.num_subset
        expectations = per_component(self.likelihood.variational_expectations, X, mean[:, M:], var[:, M:], Y)
        complement = tf.where(self.in_subset(X, Y), tf.zeros_like(X[:, 0]), tf.reduce_mean(expectations, axis=0))
        hidden_kl = [layer.regulariser(layer_input) for layer, layer_input in zip(self.layers, received[:-1])]
        kl = tf.add_n(hidden_kl + [last_kl])
        return minibatch_scale(X, self.num_data) * tf.reduce_sum(complement) + subset - kl

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.elbo(data)

    def regulariser(self) -> tf.Tensor:
        """Σ_l KL on ``num_samples`` fresh paths of the subset alone (a Monte Carlo estimate)."""
        inputs = tf.convert_to_tensor(self.subset_inputs)
        outputs = sample_layers(self.layers, inputs, self.num_samples, self.new_seed())
        return total_regulariser(self.layers, layer_inputs(inputs, outputs))
