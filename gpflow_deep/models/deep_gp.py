"""DeepGP: doubly stochastic variational inference (Salimbeni & Deisenroth, 2017)."""

import tensorflow as tf
from gpflow.base import RegressionData

from gpflow_deep.models.base import objective_shapes
from gpflow_deep.models.monte_carlo import MonteCarloModel


class DeepGP(MonteCarloModel):
    """A deep GP trained with the doubly stochastic ELBO (Salimbeni & Deisenroth 2017, eq. 17):

        L = (N/B) Σ_n (1/S) Σ_s E_{q(f_n^L | path s)}[log p(y_n | f_n^L)] − β Σ_l KL[q(U^l) ‖ p(U^l)]

    Inner layers are sampled (eq. 15: ``propagation=Sampled()``); the last layer's Gaussian
    marginal goes into the likelihood's ``variational_expectations`` (analytic for a Gaussian,
    quadrature otherwise). Predictions are the mixture over S paths (eq. 18), and
    ``predict_f_samples(..., full_cov=True)`` draws functions jointly. β = 1 is the ELBO; other
    values give the β-weighted KL of the DSPP paper's DGP baseline. ``data_term`` swaps the
    expected log-likelihood for another function of :mod:`gpflow_deep.objectives`
    (``predictive_log_likelihood``: a deep PPGPR), ``propagation`` the rule for another.

    Arguments: ``(layers, likelihood, num_data, num_samples=1, *, propagation, data_term, beta,
    **options)`` as :class:`~gpflow_deep.models.monte_carlo.MonteCarloModel` (``GPLayer`` s in
    the paper; S = 1 paths per step in the paper).
    """

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The doubly stochastic ELBO (with β = 1 and the default data term) on a (mini)batch,
        scaled to the full data set."""
        return self.maximum_log_likelihood_objective(data)
