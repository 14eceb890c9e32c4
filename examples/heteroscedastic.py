"""Noise that grows along x: the DSVI ELBO spreads one noise level, a DSPP's intervals follow it.

Trains a 2-layer DeepGP (doubly stochastic ELBO) and a 2-layer DSPP (the regularised predictive
likelihood of its finite mixture) on y = sin(2x) + ε with sd(ε) growing from 0.02 to 0.6, and
writes heteroscedastic.png: each model's predictive mean and central 90% interval (quantiles of
the predictive mixture), with the interval's coverage on each half of the data in the title.
Trained without early stopping, the DSPP's mean also bends towards single points: the small-data
trap of ``docs/dspp.md``.

    python examples/heteroscedastic.py [--quick] [--output heteroscedastic.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402
from gpflow_deep.core.mixtures import predict_mean_and_var  # noqa: E402
from gpflow_deep.evaluation.calibration import central_interval  # noqa: E402


def noisy_data(num_points: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(-3, 3, (num_points, 1)), axis=0)
    noise_sd = 0.02 + 0.58 * (X + 3) / 6
    return X, np.sin(2 * X) + noise_sd * rng.normal(size=X.shape)


def interval(model, X):
    """Mean and central 90% interval of y under the model's predictive mixture at X."""
    mixture = model.predict_mixture(X, seed=0)
    means, variances = (v.numpy()[..., 0] for v in predict_mean_and_var(model.likelihood, X, *mixture[:2]))
    log_weights = mixture.log_weights.numpy()
    lower, upper = central_interval(0.9, means, variances, log_weights)
    return np.exp(log_weights) @ means, lower, upper


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps on less data (for the tests)")
    parser.add_argument("--output", default="heteroscedastic.png")
    args = parser.parse_args()
    X, Y = noisy_data(60 if args.quick else 300)
    grid = np.linspace(-3.2, 3.2, 200)[:, None]
    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    num_inducing = 10 if args.quick else 30
    models = {
        "DeepGP, 2 layers": gd.build_deep_gp(X, Y, 2, num_inducing=num_inducing, hidden_width=1),
        "DSPP, 2 layers": gd.build_dspp(X, Y, 2, num_inducing=num_inducing),
    }
    for axis, (name, model) in zip(axes, models.items()):
        gd.fit(model, (X, Y), 20 if args.quick else 2000, seed=0, progress=False)
        mean, lower, upper = interval(model, grid)
        _, low_at_data, high_at_data = interval(model, X)
        inside = (low_at_data <= Y[:, 0]) & (Y[:, 0] <= high_at_data)
        left, right = X[:, 0] < 0, X[:, 0] >= 0
        axis.fill_between(grid[:, 0], lower, upper, alpha=0.25, label="90% interval")
        axis.plot(grid[:, 0], mean, color="C0", label="mean")
        axis.plot(X, Y, ".", color="C3", ms=3, label="data")
        axis.set_title(
            f"{name}: 90% interval covers {100 * inside[left].mean():.0f}% (x<0), "
            f"{100 * inside[right].mean():.0f}% (x≥0)"
        )
        axis.set_xlabel("x")
    axes[0].set_ylabel("y")
    axes[0].legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
