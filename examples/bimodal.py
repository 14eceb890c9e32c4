"""A bimodal toy: y = ±f(x) with a random sign. AEP's predictive has two modes, DeepGP's one.

The approximate-EP energy fits log E[p(y_n | paths)] (a log-mean-exp over cavity paths), which
rewards putting some paths on each branch; the DSVI ELBO fits E[log p(y_n | path)], which every
path must satisfy on its own, so one Gaussian straddling both branches is its best answer.

    python examples/bimodal.py [--quick] [--iterations 1500] [--output docs/images/aep_bimodal.png]
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.signal import find_peaks  # noqa: E402

import gpflow_deep as gd  # noqa: E402


def bimodal_data(num_points: int = 150, seed: int = 0):
    """x ~ U(−2, 2), y = s (1.5 + sin 2x) + 0.1 ε with s = ±1 at random: ``[N, 1]`` arrays."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(num_points, 1))
    sign = rng.choice([-1.0, 1.0], size=(num_points, 1))
    return X, sign * (1.5 + np.sin(2 * X)) + 0.1 * rng.normal(size=(num_points, 1))


def fit_both(X, Y, iterations: int, seed: int = 0):
    """A 2-layer AEPDGP and a 2-layer DeepGP (hidden width 2, M=20), same data and steps."""
    aep = gd.build_aep_dgp(X, Y, 2, hidden_width=2, num_inducing=20, noise_variance=0.1, seed=seed)
    dgp = gd.build_deep_gp(X, Y, 2, hidden_width=2, num_inducing=20, num_samples=5, seed=seed)
    for model in (aep, dgp):
        gd.fit(model, (X, Y), iterations, learning_rate=0.02, seed=seed, progress=False)
    return aep, dgp


def predictive_density(model, x: float, y_grid: np.ndarray, num_samples: int = 300) -> np.ndarray:
    """p(y | x) on ``y_grid`` (the mixture over ``num_samples`` posterior paths, fixed seed)."""
    X = np.full((len(y_grid), 1), x)
    return np.exp(model.predict_log_density((X, y_grid[:, None]), num_samples=num_samples, seed=1))


def count_modes(density: np.ndarray, prominence: float = 0.2) -> int:
    """Peaks of a density on a grid that stand out by ``prominence`` times its maximum (the Monte
    Carlo mixture is ragged at fine scale; those ripples are not modes)."""
    return len(find_peaks(density, prominence=prominence * density.max())[0])


def branch_to_middle_ratios(model, x: float) -> np.ndarray:
    """p(y = ±f(x) | x) / p(y = 0 | x): both above 1 for a predictive with a mode on each branch,
    both below 1 for one mode in between."""
    branch = 1.5 + np.sin(2 * x)
    density = predictive_density(model, x, np.array([-branch, 0.0, branch]))
    return density[[0, 2]] / density[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--quick", action="store_true", help="a few steps on a coarse grid only (for the tests)")
    parser.add_argument("--output", default=os.path.join("docs", "images", "aep_bimodal.png"))
    args = parser.parse_args()
    X, Y = bimodal_data()
    aep, dgp = fit_both(X, Y, 10 if args.quick else args.iterations)
    y_grid = np.linspace(-3.5, 3.5, 71 if args.quick else 281)
    x_grid = np.linspace(-2, 2, 11 if args.quick else 81)
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for ax, (name, model) in zip(axes[:2], (("AEPDGP (Monte Carlo)", aep), ("DeepGP (DSVI)", dgp))):
        image = np.stack([predictive_density(model, x, y_grid, 100) for x in x_grid], axis=1)
        ax.imshow(image, origin="lower", aspect="auto", extent=(-2, 2, -3.5, 3.5), cmap="Blues")
        ax.scatter(X[:, 0], Y[:, 0], s=4, c="k")
        ax.set(title=f"{name}: p(y | x)", xlabel="x", ylabel="y")
    for name, model in (("AEPDGP", aep), ("DeepGP", dgp)):
        density = predictive_density(model, 0.5, y_grid)
        modes = count_modes(density)
        axes[2].plot(y_grid, density, label=f"{name}: {modes} mode{'s' if modes != 1 else ''}")
        print(f"{name}: {modes} mode{'s' if modes != 1 else ''} of p(y | x = 0.5)")
    axes[2].set(title="p(y | x = 0.5)", xlabel="y")
    axes[2].legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
