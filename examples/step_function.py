"""A step function: one GP smooths the jump, a deep GP can bend its inputs to keep it sharp.

Writes step_function.png with the predictive of a 1-layer and a 3-layer model and sampled
functions (drawn jointly over the grid with ``full_cov=True``).

    python examples/step_function.py [--quick] [--output step_function.png]
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
    parser.add_argument("--output", default="step_function.png")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(-1, 1, (100, 1)), axis=0)
    Y = (X > 0).astype(float) + 0.02 * rng.normal(size=X.shape)
    grid = np.linspace(-1.5, 1.5, 60 if args.quick else 300)[:, None]

    figure, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for axis, layers in zip(axes, (1, 3)):
        model = gd.build_deep_gp(X, Y, num_layers=layers, num_inducing=20, hidden_width=1)
        gd.fit(model, (X, Y), 20 if args.quick else 3000, seed=0, progress=False)
        mean, var = (v.numpy()[:, 0] for v in model.predict_y(grid, seed=0))
        samples = model.predict_f_samples(grid, num_samples=10, seed=1, full_cov=True).numpy()[..., 0]
        lpd = float(np.mean(model.predict_log_density((X, Y), seed=0)))
        axis.fill_between(grid[:, 0], mean - 2 * np.sqrt(var), mean + 2 * np.sqrt(var), alpha=0.2)
        axis.plot(grid[:, 0], samples.T, color="k", lw=0.5, alpha=0.5)
        axis.plot(X, Y, ".", color="C3", ms=3)
        axis.set_title(f"{layers} layer{'s' if layers > 1 else ''}: training log-density {lpd:.2f} per point")
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
