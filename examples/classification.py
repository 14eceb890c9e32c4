"""Three-class classification with a robust-max likelihood (the paper's MNIST likelihood) on
synthetic 2-D data, trained with minibatches.

Writes classification.png: the most probable class over the plane, shaded by its probability,
with the test points.

    python examples/classification.py [--quick] [--output classification.png]
"""

import argparse

import gpflow
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402


def spiral(num_points: int, seed: int = 1):
    """A three-armed spiral in [-3, 3]²: inputs ``[N, 2]`` and labels ``[N, 1]`` in {0, 1, 2}."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (num_points, 2))
    angle = np.arctan2(X[:, 1], X[:, 0]) + 0.3 * np.linalg.norm(X, axis=1)
    return X, (np.floor(3 * (angle + np.pi) / (2 * np.pi)) % 3).astype(float)[:, None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps on less data (for the tests)")
    parser.add_argument("--output", default="classification.png")
    args = parser.parse_args()
    X, Y = spiral(150 if args.quick else 1500)
    split = len(X) * 4 // 5
    train, test = slice(0, split), slice(split, None)

    likelihood = gpflow.likelihoods.MultiClass(3, invlink=gpflow.likelihoods.RobustMax(3))
    num_inducing = 10 if args.quick else 50
    model = gd.build_deep_gp(X[train], Y[train], 2, likelihood=likelihood, num_inducing=num_inducing, hidden_width=2)
    gd.fit(model, (X[train], Y[train]), 20 if args.quick else 4000, batch_size=200, seed=0, progress=False)

    probabilities, _ = model.predict_y(X[test], seed=0)
    accuracy = np.mean(np.argmax(probabilities, axis=1) == Y[test, 0])
    log_density = np.mean(model.predict_log_density((X[test], Y[test]), seed=0))
    print(f"test accuracy {accuracy:.3f}, test log-likelihood {log_density:.3f} per point")

    u, v = np.meshgrid(np.linspace(-3, 3, 100), np.linspace(-3, 3, 100))
    grid_probabilities = model.predict_y(np.stack([u.ravel(), v.ravel()], axis=1), seed=0)[0].numpy()
    colours = np.array([[0.12, 0.47, 0.71], [1.0, 0.5, 0.05], [0.17, 0.63, 0.17]])
    confidence = grid_probabilities.max(axis=1, keepdims=True)
    image = colours[grid_probabilities.argmax(axis=1)] * confidence + (1 - confidence)  # paler where unsure
    figure, axis = plt.subplots(figsize=(5.5, 5.2))
    axis.imshow(image.reshape(100, 100, 3), origin="lower", extent=(-3, 3, -3, 3))
    for label in range(3):
        points = X[test][Y[test, 0] == label]
        axis.scatter(*points.T, s=12, color=colours[label], edgecolors="k", linewidths=0.4)
    axis.set_title(f"robust-max DeepGP: test accuracy {100 * accuracy:.0f}%")
    figure.tight_layout()
    figure.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
