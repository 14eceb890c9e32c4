"""Subset-of-data deep GPs (Jain, Srijith & Khan 2021): inducing inputs that are training points.

``SoDDGP`` s with one and two layers on a 1-D signal whose frequency grows along x. The first
layer's inducing inputs are a fixed k-means subset of the training inputs (marked), never
optimised; a second layer's are that subset's own samples from the first, drawn afresh on every
path. Beside them a 2-layer ``DeepGP`` with as many inducing points, which trains their locations
and more variational parameters. With the default ``setup="data"`` (q(F_S) started from the prior and
the data, the inner Cholesky factors trained in small steps, DSVI's linear hidden means) two layers
fit as well as one and as DSVI here; with ``setup="paper"`` they did not (docs/sod.md, "Two layers"). Writes
subset_of_data.png.

    python examples/subset_of_data.py [--quick] [--output subset_of_data.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import gpflow_deep as gd  # noqa: E402

SUBSET_SIZE = 25


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps only (for the tests)")
    parser.add_argument("--output", default="subset_of_data.png")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(0, 3, (150, 1)), axis=0)
    Y = np.sin(X**2.2) + 0.1 * rng.normal(size=X.shape)
    grid = np.linspace(-0.2, 3.2, 200)[:, None]
    iterations = 20 if args.quick else 3000

    models = {
        "SoDDGP, 1 layer": gd.build_sod_dgp(X, Y, 1, SUBSET_SIZE, seed=0),
        "SoDDGP, 2 layers": gd.build_sod_dgp(X, Y, 2, SUBSET_SIZE, hidden_width=1, seed=0),
        "DeepGP, 2 layers": gd.build_deep_gp(X, Y, 2, num_inducing=SUBSET_SIZE, hidden_width=1, seed=0),
    }
    figure, axes = plt.subplots(1, 3, figsize=(15, 4), sharey=True)
    for axis, (name, model) in zip(axes, models.items()):
        gd.fit(model, (X, Y), iterations, seed=0, progress=False)
        mean, var = (v.numpy()[:, 0] for v in model.predict_y(grid, num_samples=50, seed=0))
        lpd = float(np.mean(model.predict_log_density((X, Y), num_samples=50, seed=0)))
        axis.fill_between(grid[:, 0], mean - 2 * np.sqrt(var), mean + 2 * np.sqrt(var), alpha=0.2)
        axis.plot(grid[:, 0], mean, lw=1.5)
        axis.plot(X, Y, ".", color="C3", ms=3)
        parameters = sum(int(np.prod(v.shape)) for v in model.trainable_variables)
        axis.set_title(f"{name}: log-density {lpd:.2f}/point\n{parameters} trainable numbers")
    subset = models["SoDDGP, 1 layer"].subset_inputs.numpy()[:, 0]
    axes[0].plot(subset, np.full_like(subset, axes[0].get_ylim()[0]), "k|", ms=12, label="the subset (fixed)")
    axes[0].legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
