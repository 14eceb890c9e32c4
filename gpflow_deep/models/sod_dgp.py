"""SoDDGP: subset-of-data variational inference for deep GPs (Jain, Srijith & Khan 2021)."""

from typing import Optional, Sequence

import tensorflow as tf
from check_shapes import check_shapes, inherit_check_shapes
from gpflow.base import Parameter, RegressionData, TensorType
from gpflow.config import default_float
from gpflow.likelihoods import Gaussian

from gpflow_deep.core.mixtures import GaussianMixture
from gpflow_deep.core.validation import check_positive_int
from gpflow_deep.layers.protocol import ObservedSubsetLayer
from gpflow_deep.models.base import DeepMixtureModel, objective_shapes
from gpflow_deep.models.parameter_count import num_trainable_parameters
from gpflow_deep.objectives import (
    complement_expected_log_likelihood,
    complement_weights,
    in_subset,
    layer_inputs,
    subset_expected_log_likelihood,
    total_regulariser,
)
from gpflow_deep.propagation import SubsetFirst, sample_layers, uniform_log_weights


class SoDDGP(DeepMixtureModel):
    """A deep GP whose inducing points are a subset S of the training data (eq. 11):

        L = (N/B) Σ_{n ∈ batch, n ∉ S} (1/T) Σ_t E_{q(f_n | path t)}[log p(y_n | f_n)]
            + E_{q^(F_S)}[log p(y_S | F_S)]
            − KL[q(F_S¹) ‖ p(F_S¹ | X_S)] − Σ_{l≥2} (1/T) Σ_t KL[q(F_Sˡ) ‖ p(F_Sˡ | Z_S,tˡ⁻¹)]

    (the last KL with q^). Every path carries [X_S; X] through the layers (eqs. 15-16,
    :class:`~gpflow_deep.propagation.SubsetFirst`), so the subset's samples Z_S,t are the next
    layer's inducing inputs on that path. The complement S̄'s term is minibatched over all N
    training points with the subset's rows (matched by value on x and y) masked out
    (:mod:`gpflow_deep.objectives.subset`). Predictions carry [X_S; X*] and drop the subset rows
    (eq. 17).

    :param layers: subset-of-data layers of M rows (``SubsetLayer`` s), the last an
        ``ObservedSubsetLayer`` (a ``SubsetLastLayer``) holding y_S and ``likelihood``.
    :param likelihood: the Gaussian likelihood whose variance the last layer shares.
    :param subset_inputs: X_S ``[M, D]``, the rows of the training inputs in the subset.
    :param num_data: N, the number of training points (subset included).
    :param subset_copies: ``[M]``, how many of the N training rows equal each subset point (itself
        included); None: 1 each, every subset point distinct.
    :param num_samples: T, paths per training step (the paper's 10).
    :param options: ``num_prediction_samples`` (T for predictions: the paper's 50 here) and the
        rest of :class:`DeepMixtureModel`'s.
    """

    def __init__(
        self,
        layers: Sequence,
        likelihood: Gaussian,
        subset_inputs: TensorType,
        num_data: int,
        num_samples: int = 10,
        subset_copies: Optional[TensorType] = None,
        **options,
    ):
        options.setdefault("num_prediction_samples", 50)
        super().__init__(layers, likelihood, num_data, **options)
        last = self.layers[-1]
        if not isinstance(last, ObservedSubsetLayer) or last.likelihood is not likelihood:
            raise ValueError(
                "layers[-1] must be an ObservedSubsetLayer (a SubsetLastLayer) sharing the model's likelihood "
                "(one noise variance)"
            )
        X_S = tf.convert_to_tensor(subset_inputs, dtype=default_float())
        if X_S.shape.rank != 2 or X_S.shape[1] != self.input_dim:
            raise ValueError(f"subset_inputs must be [M, {self.input_dim}], got shape {X_S.shape.as_list()}")
        self.subset_inputs = Parameter(X_S, trainable=False, name="subset_inputs")
        copies = tf.ones(X_S.shape[:1], default_float()) if subset_copies is None else subset_copies
        copies = tf.convert_to_tensor(copies, dtype=default_float())
        if copies.shape != X_S.shape[:1] or not bool(tf.reduce_all(copies >= 1.0)):
            raise ValueError(f"subset_copies must be [{X_S.shape[0]}] counts of at least 1, got {copies.numpy()!r}")
        self.subset_copies = copies  # a count of the training data, like num_data: not a saved variable
        self.propagation = SubsetFirst(self.subset_inputs)
        self.num_samples = check_positive_int("num_samples", num_samples)

    @property
    def num_subset(self) -> int:
        """M, the subset size."""
        return int(self.subset_inputs.shape[0])

    @property
    def num_trainable_parameters(self) -> int:
        """The number of trained scalars (kernels, q(F_S) of every layer, noise variances)."""
        return num_trainable_parameters(self)

    @check_shapes(
        "X: [B, D]",
        "Y: [B, P]",
        "return: [B]",
    )
    def in_subset(self, X: tf.Tensor, Y: tf.Tensor) -> tf.Tensor:
        """Whether each row (x, y) is a subset point (equal to some (x_S, y_S))."""
        return in_subset(X, Y, self.subset_inputs, self.layers[-1].subset_targets)

    @check_shapes(
        "X: [B, D]",
        "Y: [B, P]",
        "return: [B]",
    )
    def complement_weights(self, X: tf.Tensor, Y: tf.Tensor) -> tf.Tensor:
        """Each row's weight in the complement's term: 1, 0 for a distinct subset point, and
        1 − m/c for a row equal to m subset points that c training rows equal."""
        return complement_weights(X, Y, self.subset_inputs, self.layers[-1].subset_targets, self.subset_copies)

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The SoD ELBO (eq. 11) on a (mini)batch of the training data, scaled to all N points:
        the hidden layers carry [X_S; X] on T paths, and the last layer gives its marginals, the
        marginals of q^(F_S) and its KL from one pass (``training_terms``)."""
        X, Y = data
        hidden = self.propagation.carried(self.layers[:-1], X, self.num_samples, self.new_seed())
        received = [self.propagation.with_subset(X)[None]] + [output.values for output in hidden]
        last = self.layers[-1].training_terms(received[-1])
        paths = tf.shape(last.means)[0]  # T, or 1 for a single layer: its inputs are the same on every path
        batch = GaussianMixture(last.means, last.variances, uniform_log_weights(paths, X.dtype))
        complement = complement_expected_log_likelihood(
            self.likelihood, batch, X, Y, self.num_data, self.complement_weights(X, Y)
        )
        subset = subset_expected_log_likelihood(
            self.likelihood, last.subset_means, last.subset_variances, self.layers[-1].subset_targets
        )
        kl = tf.add_n([layer.regulariser(inputs) for layer, inputs in zip(self.layers, received[:-1])] + [last.kl])
        return complement + subset - kl

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        return self.elbo(data)

    def regulariser(self) -> tf.Tensor:
        """Σ_l KL on ``num_samples`` fresh paths of the subset alone (a Monte Carlo estimate)."""
        inputs = tf.convert_to_tensor(self.subset_inputs)
        outputs = sample_layers(self.layers, inputs, self.num_samples, self.new_seed())
        return total_regulariser(self.layers, layer_inputs(inputs, outputs))
