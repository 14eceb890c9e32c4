"""What every builder does first: the arrays checked, the training set's size, the likelihood and
the last layer's width."""

from typing import Callable, NamedTuple, Optional

import numpy as np
from gpflow.likelihoods import Gaussian, Likelihood

from gpflow_deep.builders.configuration import log_choice
from gpflow_deep.builders.initialisation import mean_column_variance, training_arrays
from gpflow_deep.builders.pilot_gp import PILOT_ROWS, pilot_noise_variance
from gpflow_deep.core.validation import check_positive_int, check_targets

MAX_HIDDEN_WIDTH = 30
NOISE_SHARE = 0.01  # a default noise variance, as a fraction of the targets' variance


class BuilderData(NamedTuple):
    """A builder's checked inputs.

    :ivar X: ``[n, D]`` the rows the initialisation sees (k-means, projections, scales, subsets).
    :ivar Y: ``[n, P]`` their targets.
    :ivar num_data: N ≥ n, the size of the training set the objective is scaled to.
    :ivar likelihood: the given likelihood or the builder's default.
    :ivar output_dim: the last layer's width: the likelihood's latent dimension, else P.
    :ivar num_layers: the number of layers, checked.
    """

    X: np.ndarray
    Y: np.ndarray
    num_data: int
    likelihood: Likelihood
    output_dim: int
    num_layers: int


def prepare_data(
    X,
    Y,
    num_layers: int,
    likelihood: Optional[Likelihood],
    default_likelihood: Callable[[np.ndarray, np.ndarray, int], Likelihood],
    num_data: Optional[int],
) -> BuilderData:
    """X ``[n, D]`` and Y ``[n, P]`` checked as GPflow's float, N = ``num_data`` (n if None, else at
    least n: X, Y are then a sample of a larger training set), ``likelihood`` or
    ``default_likelihood(X, Y, N)``, and Y checked against it."""
    num_layers = check_positive_int("num_layers", num_layers)
    X, Y = training_arrays(X, Y)
    if num_data is None:
        num_data = len(X)
    elif check_positive_int("num_data", num_data) < len(X):
        raise ValueError(f"num_data={num_data} is fewer than the {len(X)} rows given")
    likelihood = likelihood if likelihood is not None else default_likelihood(X, Y, num_data)
    output_dim = getattr(likelihood, "latent_dim", None) or Y.shape[1]
    check_targets("Y", Y, likelihood, output_dim)
    return BuilderData(X, Y, int(num_data), likelihood, output_dim, num_layers)


def hidden_width(builder: str, given: Optional[int], input_dim: int, minimum: int = 1) -> int:
    """The ``hidden_width`` field: as given, or when None min(30, max(``minimum``, D)), logged."""
    if given is not None:
        return check_positive_int("hidden_width", given)
    width = min(MAX_HIDDEN_WIDTH, max(minimum, input_dim))
    rule = f"min({MAX_HIDDEN_WIDTH}, D)" if minimum == 1 else f"min({MAX_HIDDEN_WIDTH}, max({minimum}, D))"
    return log_choice(builder, "hidden_width", width, rule)


def gaussian_likelihood(
    builder: str, variance: Optional[float], Y: np.ndarray, X: Optional[np.ndarray] = None, seed: int = 0
) -> Gaussian:
    """A Gaussian likelihood of initial ``variance``; when None, logged: given X ``[n, D]``, the noise
    variance of a pilot exact GP on at most 500 rows of X and Y
    (:func:`~gpflow_deep.builders.pilot_gp.pilot_noise_variance`), else (or when its fit fails)
    1 % of Y's variance."""
    if variance is None and X is not None:
        variance = pilot_noise_variance(X, Y, seed)
        if variance is not None:
            variance = log_choice(
                builder, "noise_variance", variance, f"a pilot exact GP's on {PILOT_ROWS} rows at most"
            )
    if variance is None:
        variance = log_choice(builder, "noise_variance", NOISE_SHARE * mean_column_variance(Y), "1% of var(Y)")
    return Gaussian(variance=variance)
