"""Two interleaved half moons, classified by a 2-layer DeepGP with a Bernoulli likelihood.

Writes binary_classification.png: the predicted probability of class 1 over the plane (the
mixture's average over 100 paths) with its 0.5 contour, and the training points.

    python examples/binary_classification.py [--quick] [--output binary_classification.png]
"""

import argparse

import gpflow
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402


def half_moons(num_points: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, num_points)
    angle = rng.uniform(0, np.pi, num_points)
    X = np.stack([np.cos(angle) + label, np.sin(angle) * (1 - 2 * label) + 0.5 * label], axis=1)
    return X + 0.15 * rng.normal(size=X.shape), label.astype(float)[:, None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps on less data (for the tests)")
    parser.add_argument("--output", default="binary_classification.png")
    args = parser.parse_args()
    X, Y = half_moons(60 if args.quick else 300)
    model = gd.build_deep_gp(
        X, Y, 2, likelihood=gpflow.likelihoods.Bernoulli(), num_inducing=10 if args.quick else 40, hidden_width=2
    )
    gd.fit(model, (X, Y), 20 if args.quick else 2000, seed=0, progress=False)
    accuracy = np.mean((model.predict_y(X, seed=0)[0].numpy() > 0.5) == Y)

    u, v = np.meshgrid(np.linspace(-1.8, 2.8, 120), np.linspace(-1.3, 1.8, 90))
    grid = np.stack([u.ravel(), v.ravel()], axis=1)
    probability = model.predict_y(grid, seed=0)[0].numpy().reshape(u.shape)
    figure, axis = plt.subplots(figsize=(7, 4.8))
    image = axis.contourf(u, v, probability, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.8)
    axis.contour(u, v, probability, levels=[0.5], colors="k", linewidths=1)
    axis.scatter(*X[Y[:, 0] == 0].T, s=10, c="C0", edgecolors="k", linewidths=0.3, label="class 0")
    axis.scatter(*X[Y[:, 0] == 1].T, s=10, c="C3", edgecolors="k", linewidths=0.3, label="class 1")
    figure.colorbar(image, ax=axis, label="p(class 1)")
    axis.set_title(f"2-layer DeepGP, Bernoulli likelihood: training accuracy {100 * accuracy:.0f}%")
    axis.legend(loc="lower left")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
