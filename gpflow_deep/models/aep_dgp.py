"""AEPDGP: deep GPs by approximate expectation propagation (Bui et al. 2016), with Monte Carlo
propagation (Hernández-Muñoz 2018) or deterministic moment matching."""

import contextlib

import tensorflow as tf
from check_shapes import inherit_check_shapes
from gpflow.base import RegressionData

from gpflow_deep.layers.protocol import EPLayer
from gpflow_deep.models.base import objective_shapes
from gpflow_deep.models.monte_carlo import MonteCarloModel
from gpflow_deep.objectives import predictive_log_likelihood


class AEPDGP(MonteCarloModel):
    """A deep GP fitted by maximising the approximate EP energy (slides, after Seeger 2005)::

        F = Σ_l [(1 − N) Φ(q_l) + N Φ(cavity_l) − Φ(prior_l)] + (N/B) Σ_n log Z_n,
        log Z_n = log E_{cavities}[p(y_n | x_n)] ≈ log (1/S) Σ_s ∫ p(y_n | f) N(f | μ_s, σ²_s) df

    with one tied site per latent GP (q ∝ p g^N, cavity ∝ p g^(N−1); ``AEPLayer``) and no explicit
    EP updates: sites, kernels, inducing inputs and noises are all trained by gradient. The data
    term is the predictive log-likelihood of the paths through the cavities (``training_mode``),
    the regulariser each layer's −[(1 − N) Φ(q) + N Φ(cavity) − Φ(prior)]. Path s of log Z_n draws
    every layer's outputs from its cavity marginal at the path's own inputs, inter-layer noise
    added (``propagation=Sampled()``, alias ``"monte_carlo"``: a log-mean-exp over S paths), or
    carries one Gaussian matched layer by layer (``MomentMatching()``, alias ``"moment_matching"``,
    Bui et al. 2016: one path, RBF kernels). Predictions take the same rule through the posteriors q.

    Arguments: ``(layers, likelihood, num_data, num_samples=20, *, propagation, **options)`` as
    :class:`~gpflow_deep.models.monte_carlo.MonteCarloModel`: ``AEPLayer`` s (or layers with
    ``"cavity"`` marginals and the EP regulariser), each an ``EPLayer`` built for the same N; a
    likelihood with ``predict_log_density``; S = 20 Monte Carlo paths per step (the public code's).

    ``gd.fit`` steps it at 0.003 unless told otherwise (``default_learning_rate``; the public code's
    is 0.001, ``RandomFeatureDGP``'s also 0.003, the other models' 0.01): the data term lets the
    likelihood's noise fall towards zero, and a smaller step slows that fall (``docs/aep.md``, "The
    likelihood's noise"). It takes 0.7 of that step away by the last iteration along a half cosine
    (``default_anneal``): 0.012 (0.004) higher over a hundred fresh boston splits, 0.004 (0.002)
    lower over fifty of concrete, level through the command line on two noisy tables, its intervals
    no narrower (``docs/aep.md``, "An annealed step"). ``gd.fit(..., anneal=0)`` keeps the step constant.
    """

    default_num_samples = 20
    default_learning_rate = 0.003
    default_anneal = 0.7
    default_data_term = staticmethod(predictive_log_likelihood)
    training_mode = "cavity"

    def __init__(self, *args, **options):
        super().__init__(*args, **options)
        for index, layer in enumerate(self.layers):
            if isinstance(layer, EPLayer) and layer.num_data != self.num_data:
                raise ValueError(f"layers[{index}] has a site for N={layer.num_data}, but num_data={self.num_data}")

    @inherit_check_shapes
    def maximum_log_likelihood_objective(self, data: RegressionData) -> tf.Tensor:
        """The energy, each site's algebra (R Rᵀ, Cholesky factors) done once for the cavity's
        marginals and the regulariser (``AEPLayer.shared_site_algebra``)."""
        with contextlib.ExitStack() as stack:
            for layer in self.layers:
                if hasattr(layer, "shared_site_algebra"):
                    stack.enter_context(layer.shared_site_algebra())
            return super().maximum_log_likelihood_objective(data)

    @objective_shapes
    def energy(self, data: RegressionData) -> tf.Tensor:
        """The EP energy F on a (mini)batch, its data term scaled to the full data set."""
        return self.maximum_log_likelihood_objective(data)
