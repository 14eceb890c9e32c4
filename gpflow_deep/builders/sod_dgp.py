"""``build_sod_dgp``: the setup of Jain, Srijith & Khan (2021) from data."""

from typing import Callable, Optional, Union

import gpflow
import numpy as np
from gpflow.kernels import Kernel

from ..layers.subset_last_layer import SubsetLastLayer
from ..layers.subset_layer import SubsetLayer
from ..models.sod_dgp import SoDDGP
from ..validation import check_positive_int
from .initialisation import training_arrays
from .stack import KernelFactory
from .subsets import select_subset

SMALL_DATA = 800  # below this many training points the paper's "small" subset size applies


def default_subset_size(num_data: int) -> int:
    """The paper's M: 50 for small data sets, 100 for medium ones, and never more than half the
    data (the paper's code requires M < N/2), at least 1."""
    return max(1, min(50 if num_data < SMALL_DATA else 100, num_data // 2))


def build_sod_dgp(
    X: np.ndarray,
    Y: np.ndarray,
    num_layers: int = 2,
    subset_size: Optional[int] = None,
    *,
    subset: Union[str, Callable[[np.ndarray], np.ndarray]] = "kmeans",
    hidden_width: Optional[int] = None,
    kernel_factory: Optional[KernelFactory] = None,
    kernel_variance: float = 0.5,
    lengthscale: float = 0.5,
    noise_variance: float = 0.01,
    inner_noise_variance: float = 1e-5,
    inner_q_sqrt_scale: float = 1e-5,
    joint_sampling: bool = True,
    num_samples: int = 10,
    num_prediction_samples: int = 50,
    seed: int = 0,
) -> SoDDGP:
    """A ``SoDDGP`` with the paper's settings (its Section 4 and public code):

    - the subset: ``subset_size`` points (:func:`default_subset_size` by default: 50 or 100,
      at most N/2) chosen by k-means, each centre's nearest data point (``subset="random"``, or
      any function of X returning indices);
    - hidden layers of width ``hidden_width`` = min(30, D), zero mean functions;
    - RBF kernels with one lengthscale (the paper's code), variance and lengthscale 0.5; any kernel
      through ``kernel_factory(layer_index, input_width)``;
    - noise variances 1e-5 between layers and 0.01 at the last (the Gaussian likelihood's,
      shared with the last layer's q^);
    - q(F_S) means uniform in [0, 1) (the code's random start), Cholesky factors
      ``inner_q_sqrt_scale`` · I on inner layers and I on the last;
    - hidden layers sampled jointly on each path (``joint_sampling``: F_S drawn from q, the other
      points from the GP given that draw, eq. 15) rather than point by point (the public code);
    - T = 10 paths in training, 50 in predictions.
    """
    num_layers = check_positive_int("num_layers", num_layers)
    X, Y = training_arrays(X, Y)
    N, D = X.shape
    if subset_size is None:
        size = None if callable(subset) else default_subset_size(N)
    else:
        size = check_positive_int("subset_size", subset_size)
        if size > N:
            raise ValueError(f"subset_size={size} is more than the N={N} training points")
    indices = select_subset(X, size, subset, seed)
    M = len(indices)
    width = check_positive_int("hidden_width", hidden_width if hidden_width is not None else min(30, D))
    make_kernel = kernel_factory or _rbf_factory(kernel_variance, lengthscale)
    rng = np.random.default_rng(seed)
    likelihood = gpflow.likelihoods.Gaussian(variance=noise_variance)

    layers = []
    widths = [D] + [width] * (num_layers - 1)
    for index, input_dim in enumerate(widths[:-1]):
        layers.append(
            SubsetLayer(
                make_kernel(index, input_dim),
                M,
                input_dim,
                width,
                q_mu=rng.uniform(size=(M, width)),
                q_sqrt=inner_q_sqrt_scale * np.tile(np.eye(M)[None], (width, 1, 1)),
                noise_variance=inner_noise_variance,
                joint_sampling=joint_sampling,
                name=f"layer_{index}",
            )
        )
    layers.append(
        SubsetLastLayer(
            make_kernel(num_layers - 1, widths[-1]),
            M,
            widths[-1],
            likelihood,
            Y[indices],
            q_mu=rng.uniform(size=(M, Y.shape[1])),
            name=f"layer_{num_layers - 1}",
        )
    )
    return SoDDGP(
        layers,
        likelihood,
        X[indices],
        num_data=N,
        num_samples=num_samples,
        num_prediction_samples=num_prediction_samples,
        seed=seed,
    )


def _rbf_factory(variance: float, lengthscale: float) -> KernelFactory:
    def make(_: int, input_width: int) -> Kernel:
        return gpflow.kernels.SquaredExponential(variance=variance, lengthscales=lengthscale)

    return make
