"""Random-feature deep GPs (Cutajar et al. 2017): RBF against arc-cosine (ReLU) features.

A 1-D signal with kinks: |x| plus a ripple. Two 2-layer ``RandomFeatureDGP`` s, one with random
Fourier features of the RBF kernel (DGP-RBF), one with order-1 arc-cosine features (DGP-ARC, a
Bayesian ReLU network); each layer is a Bayesian linear model on its features, so a training step
costs one matrix product per layer. Writes random_features.png.

    python examples/random_features.py [--quick] [--output random_features.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps only (for the tests)")
    parser.add_argument("--output", default="random_features.png")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (200, 1))
    Y = np.abs(X) + 0.3 * np.sin(4 * X) + 0.05 * rng.normal(size=X.shape)
    grid = np.linspace(-2.5, 2.5, 200)[:, None]
    iterations = 20 if args.quick else 3000

    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for axis, kernel in zip(axes, ("rbf", "arccos")):
        model = gd.build_random_feature_dgp(X, Y, 2, kernel=kernel, seed=0)
        result = gd.fit(model, (X, Y), iterations, learning_rate=0.03, seed=0, progress=False)
        mean, var = (v.numpy()[:, 0] for v in model.predict_y(grid, num_samples=100, seed=0))
        lpd = float(np.mean(model.predict_log_density((X, Y), num_samples=100, seed=0)))
        axis.fill_between(grid[:, 0], mean - 2 * np.sqrt(var), mean + 2 * np.sqrt(var), alpha=0.2)
        axis.plot(grid[:, 0], mean, lw=1.5)
        axis.plot(X, Y, ".", color="C3", ms=3)
        axis.set_title(
            f"DGP-{kernel.upper()}: log-density {lpd:.2f}/point, {1000 * result.seconds_per_iteration:.1f} ms/step"
        )
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
