"""RandomFeatureDGP: deep GPs as Bayesian networks of random features (Cutajar et al. 2017)."""

import math

import tensorflow as tf
from gpflow.base import RegressionData

from gpflow_deep.models.base import DEFAULT_PREDICTION_SAMPLES, objective_shapes
from gpflow_deep.models.monte_carlo import MonteCarloModel
from gpflow_deep.propagation import FeedInputs, Sampled


class RandomFeatureDGP(MonteCarloModel):
    """A deep GP whose layers are random-feature expansions F^(l+1) = Φ(F^(l) Ω^(l)) W^(l), trained
    with the bound of Cutajar et al. (2017, eqs. 8-11):

        L = (n/m) Σ_{k ∈ batch} (1/N_MC) Σ_r log p(y_k | x_k, W̃_r, Ω̃_r)
            − Σ_l (KL[q(W^l) ‖ p(W^l)] + KL[q(Ω^l) ‖ p(Ω^l | θ^l)])

    Path r draws (W̃_r, Ω̃_r) once for the whole minibatch (eq. 12). With local reparameterisation
    a layer gives Gaussian marginals instead, and the last layer's marginal enters the likelihood's
    ``variational_expectations``. Predictions are the mixture over N_MC paths. With
    ``feed_forward`` the inputs X are appended to the inputs of every layer after the first
    (Section 4.3, :class:`~gpflow_deep.propagation.FeedInputs`), which deep stacks need.

    Arguments: ``(layers, likelihood, num_data, num_samples=None, *, feed_forward=False, **options)``,
    the rest as :class:`~gpflow_deep.models.monte_carlo.MonteCarloModel`: ``RandomFeatureLayer`` s
    (any layers keeping the protocol), with ``feed_forward`` every layer after the first taking X's
    D columns as ``fed_input_dim``; N_MC = ``num_samples`` paths per step (None: 1, the paper's
    start). With layers of K members (``num_members``), path s is member s mod K's: N_MC must be a
    multiple of K (None: K) so that every member's bound has the same weight, and predictions
    default to the multiple of K at or above 100 paths.

    ``gd.fit`` steps it at 0.003 unless told otherwise (``default_learning_rate``; the paper's is
    0.01): with Ω's q fitted, the features overfit as training goes on, and a smaller step scored
    better on 19 of 20 fresh boston splits (``docs/benchmarks.md`` §12). It takes 0.7 of that step
    away along a half cosine by default (``default_anneal``), with the noise bounded below by 0.8 of
    a pilot GP's (the builder's ``pilot_noise_floor``): without the floor the anneal narrowed the
    intervals on noisy tables through the command line (``docs/random_features.md``).
    """

    default_learning_rate = 0.003
    default_anneal = 0.7

    def __init__(self, layers, likelihood, num_data, num_samples=None, *, feed_forward: bool = False, **options):
        members = math.lcm(*(getattr(layer, "num_members", 1) for layer in layers))
        options.setdefault("num_prediction_samples", members * math.ceil(DEFAULT_PREDICTION_SAMPLES / members))
        propagation = FeedInputs() if feed_forward else Sampled()
        num_samples = members if num_samples is None else num_samples
        super().__init__(layers, likelihood, num_data, num_samples, propagation=propagation, **options)
        if self.num_samples % members:
            raise ValueError(
                f"num_samples must be a multiple of the layers' num_members ({members}), so that every member "
                f"trains on as many paths; got {self.num_samples}"
            )
        self.feed_forward = bool(feed_forward)

    @objective_shapes
    def elbo(self, data: RegressionData) -> tf.Tensor:
        """The bound (eqs. 8-11) on a (mini)batch, scaled to the full data set."""
        return self.maximum_log_likelihood_objective(data)
