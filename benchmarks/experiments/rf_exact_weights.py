"""Is it q(W)'s mean-field family that holds a random-feature GP back? Its exact posterior beside it.

For each split of the calibration suite (a random 90/10 split with that seed), a one-layer
``build_random_feature_dgp`` (its defaults, ``num_layers=1``) is trained as ``python -m benchmarks
calibration`` trains it (``--steps`` full-batch Adam steps at its default rate, the split as seed).
Its features Φ are then fixed (Ω as trained; ``"var-fixed"`` draws it once), and y = Φ W + ε with the
prior W ~ N(0, I) is a Bayesian linear model whose posterior is Gaussian with a full covariance.
Scored on the test part in original units:

- ``mean_field``: the trained model's own predictive (q(W) factorised, eq. 9 of Cutajar et al.);
- ``exact``: the exact posterior of W at the trained noise variance;
- ``exact_evidence``: the exact posterior at the noise variance that maximises the evidence
  p(Y | Φ, σ²) (what training a full-covariance q(W) jointly with σ² would aim at).

Example::

    python -m benchmarks rf_exact_weights --splits 2000-2009 --results benchmarks/results/rf_exact_weights.jsonl
"""

from typing import List, Optional, Tuple

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import norm

from benchmarks.common import provenance, split_experiment_arguments
from benchmarks.suites.calibration import test_scores, trained
from gpflow_deep.builders.bayesian_linear import linear_model_posterior

BUILDER = "build_random_feature_dgp"
NOISE_BOUNDS = (1e-4, 10.0)
"""The evidence's search range for σ², in units of the standardised targets' variance."""


def exact_predictive(Phi, Y, Phi_test, noise_variance: float) -> Tuple[np.ndarray, np.ndarray]:
    """Mean ``[m, 1]`` and variance ``[m, 1]`` of y at ``Phi_test [m, F]`` under the exact posterior
    of W ``[F, 1]`` given ``Phi [n, F]``, ``Y [n, 1]``: A = I + ΦᵀΦ/σ², mean Φ* A⁻¹ΦᵀY/σ², variance
    φ*ᵀA⁻¹φ* + σ²."""
    weights, chol = linear_model_posterior(Phi, Y, noise_variance)
    half = np.linalg.solve(chol, Phi_test.T)  # L⁻¹φ*: its squared column norms are φ*ᵀA⁻¹φ*
    return Phi_test @ weights, np.sum(half**2, axis=0)[:, None] + noise_variance


def log_evidence(Phi, Y, noise_variance: float) -> float:
    """log N(Y | 0, ΦΦᵀ + σ²I) for ``Phi [n, F]``, ``Y [n, 1]``, through the F × F matrix A (Woodbury):
    log|K| = log|A| + n log σ², YᵀK⁻¹Y = (YᵀY − YᵀΦ m)/σ² with m = A⁻¹ΦᵀY/σ², W's posterior mean."""
    n = len(Y)
    mean, chol = linear_model_posterior(Phi, Y, noise_variance)
    quadratic = (float(np.sum(Y**2)) - float(np.sum((Phi.T @ Y) * mean))) / noise_variance
    log_det = 2.0 * np.sum(np.log(np.diag(chol))) + n * np.log(noise_variance)
    return -0.5 * (quadratic + log_det + n * np.log(2.0 * np.pi))


def evidence_noise(Phi, Y) -> float:
    """The σ² in :data:`NOISE_BOUNDS` that maximises :func:`log_evidence` (a bounded search on log σ²)."""
    bounds = np.log(NOISE_BOUNDS)
    found = minimize_scalar(lambda log_s2: -log_evidence(Phi, Y, np.exp(log_s2)), bounds=bounds, method="bounded")
    return float(np.exp(found.x))


def scored(model, part, steps_noise: float) -> dict:
    """The three predictives' test log-likelihoods (original units) and the two noise variances."""
    import tensorflow as tf

    y_std = float(np.reshape(part.y_std, -1)[0])
    [layer] = model.layers
    if layer.omega_mode == "var-resampled":
        raise ValueError("the exact posterior needs fixed features: Ω drawn once")
    fixed = tf.constant([0, 0], tf.int64)  # unused: Ω and its ε are fixed
    Phi, Phi_test = (layer.features(X[None], fixed)[0].numpy() for X in (part.X_train, part.X_test))
    record = dict(mean_field=test_scores(model, part.X_test, part.Y_test, y_std)["log_likelihood"])
    best_noise = evidence_noise(Phi, part.Y_train)
    for name, noise in (("exact", steps_noise), ("exact_evidence", best_noise)):
        mean, variance = exact_predictive(Phi, part.Y_train, Phi_test, noise)
        record[name] = float(np.mean(norm.logpdf(part.Y_test, mean, np.sqrt(variance)))) - np.log(y_std)
    record.update(trained_noise=steps_noise, evidence_noise=best_noise)
    return record


def main(argv: Optional[List[str]] = None) -> int:
    args = split_experiment_arguments("python -m benchmarks rf_exact_weights", __doc__, argv)
    import gpflow_deep as gd
    from gpflow_deep.app.benchmark import append_result, parse_splits

    for split in parse_splits(args.splits):
        part = gd.datasets.uci_split(gd.datasets.load(args.dataset), split)
        model = trained(BUILDER, part.X_train, part.Y_train, args.steps, split, options=dict(num_layers=1))
        record = scored(model, part, float(model.likelihood.variance.numpy()))
        print(
            f"{args.dataset} split {split}: mean-field {record['mean_field']:.3f}, exact {record['exact']:.3f}, "
            f"exact at the evidence's noise {record['exact_evidence']:.3f} "
            f"(noise {record['trained_noise']:.4f} trained, {record['evidence_noise']:.4f} by the evidence)",
            flush=True,
        )
        record = dict(kind="rf_exact_weights", builder=BUILDER, dataset=args.dataset, split=split, **record)
        record.update(steps=args.steps, num_layers=1, **provenance())
        if args.results:
            append_result(args.results, record)
    return 0
