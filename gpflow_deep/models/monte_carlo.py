"""The models fitted on fresh random paths every step: one data term minus β times the regularisers."""

from typing import Optional, Sequence, Union

import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import RegressionData
from gpflow.likelihoods import Likelihood

from gpflow_deep.core.validation import check_non_negative, check_positive_int
from gpflow_deep.models.base import DeepMixtureModel
from gpflow_deep.objectives import DataTerm, expected_log_likelihood, regularised_data_term
from gpflow_deep.propagation import Propagation, Sampled, as_propagation


class MonteCarloModel(DeepMixtureModel):
    """A deep mixture model whose S paths are drawn afresh on every step, fitted by

        data_term(likelihood, mixture of the S paths, X, Y, N) − β Σ_l regulariser_l(inputs_l)

    with every layer evaluated in the class's ``training_mode`` (``"posterior"``; approximate EP
    trains through its ``"cavity"``). Subclasses name the objective after their paper and set the
    defaults below.

    :param layers: layers keeping the layer protocol, input first.
    :param likelihood: any GPflow likelihood the data term can use.
    :param num_data: N, the number of training points.
    :param num_samples: S, paths per training step; None for the class's ``default_num_samples``.
    :param propagation: a rule of :mod:`gpflow_deep.propagation`, or one of its aliases
        (``"monte_carlo"``, ``"moment_matching"``); None for :class:`~gpflow_deep.propagation.Sampled`.
    :param data_term: a data term of :mod:`gpflow_deep.objectives`; None for ``default_data_term``.
    :param beta: β, the weight of the regularisers.
    :param options: ``num_prediction_samples`` (S for predictions when a call gives none, 100),
        ``seed``, ``prediction_batch_size``, ``name``: see :class:`DeepMixtureModel`.
    """

    default_num_samples = 1
    default_data_term = staticmethod(expected_log_likelihood)
    training_mode = "posterior"

    def __init__(
        self,
        layers: Sequence,
        likelihood: Likelihood,
        num_data: int,
        num_samples: Optional[int] = None,
        *,
        propagation: Union[None, str, Propagation] = None,
        data_term: Optional[DataTerm] = None,
        beta: float = 1.0,
        **options,
    ):
        super().__init__(layers, likelihood, num_data, **options)
        self.propagation = Sampled() if propagation is None else as_propagation(propagation)
        num_samples = self.default_num_samples if num_samples is None else num_samples
        self.num_samples = check_positive_int("num_samples", num_samples)
        self.data_term = self.default_data_term if data_term is None else data_term
        self.beta = check_non_negative("beta", beta)

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        X, Y = data
        paths = self._paths(X, self.num_samples, self.new_seed(), mode=self.training_mode)
        return regularised_data_term(
            self.data_term, self.beta, self.likelihood, self.layers, paths, X, Y, self.num_data
        )
