"""Data-driven initialisation shared by the builders: inducing inputs and fixed linear means."""

import warnings
from typing import List, Optional, Tuple

import gpflow
import numpy as np
from gpflow.mean_functions import Identity, Linear, MeanFunction
from scipy.cluster.vq import kmeans2

from gpflow_deep.builders.configuration import log_choice
from gpflow_deep.core.validation import as_array, as_training_data, check_positive_int


def inducing_count(
    builder: str, given: Optional[int], sample_size: int, num_data: int, bounds: Tuple[int, int], per_point: float = 0.0
) -> int:
    """M, the ``num_inducing`` field: as given (an impossible value is an error later, naming it),
    or when None ``per_point`` inducing inputs per training point within ``bounds`` = (lower,
    upper) (the paper's fixed M when lower = upper), at most the ``sample_size`` rows k-means sees."""
    if given is not None:
        return check_positive_int("num_inducing", given)
    lower, upper = bounds
    rule = f"the paper's {upper}" if lower == upper else f"{per_point:g} per training point within [{lower}, {upper}]"
    M = max(lower, min(upper, int(num_data * per_point)))
    if M > sample_size:
        M, rule = sample_size, f"{rule}, capped at the {sample_size} rows given"
    return log_choice(builder, "num_inducing", M, rule)


def kmeans_inducing_inputs(X: np.ndarray, num_inducing: int, seed: int = 0) -> np.ndarray:
    """``[M, D]`` k-means centres of the rows of X (X itself when M equals N)."""
    N = X.shape[0]
    if num_inducing > N:
        raise ValueError(f"num_inducing={num_inducing} needs at least as many training points, got N={N}")
    if num_inducing == N:
        return X.copy()
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        # a cluster that loses all its points keeps its starting point, itself a data point
        warnings.filterwarnings("ignore", "One of the clusters is empty")
        centres, _ = kmeans2(X, X[rng.choice(N, num_inducing, replace=False)], minit="matrix")
    return centres


def initial_inducing_inputs(
    X: np.ndarray, num_inducing: int, inducing_inputs: Optional[np.ndarray], seed: int
) -> np.ndarray:
    """``inducing_inputs`` checked against X's width, or k-means centres of X."""
    if inducing_inputs is None:
        return kmeans_inducing_inputs(X, check_positive_int("num_inducing", num_inducing), seed)
    Z = as_array("inducing_inputs", inducing_inputs, X.dtype)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"inducing_inputs must be [M, {X.shape[1]}], got shape {Z.shape}")
    return Z


def training_arrays(X, Y) -> Tuple[np.ndarray, np.ndarray]:
    """X ``[N, D]`` and Y ``[N, P]`` checked (finite, rank 2, same N ≥ 1) as arrays of GPflow's float."""
    X, Y = as_training_data((X, Y), None, gpflow.default_float())
    return X.numpy(), Y.numpy()


def scaled_prior_q_sqrt(num_inducing: int, width: int, q_diag: bool, scale: float) -> np.ndarray:
    """``scale`` times the whitened prior's ``q_sqrt``: ``[M, L]`` ones or ``[L, M, M]`` identities."""
    prior = np.ones((num_inducing, width)) if q_diag else np.tile(np.eye(num_inducing)[None], (width, 1, 1))
    return scale * prior


def linear_projection(X: np.ndarray, output_dim: int) -> np.ndarray:
    """The ``[D_in, D_out]`` map of Salimbeni & Deisenroth (2017): the identity when the widths
    agree, the top right-singular vectors of X (PCA) when narrowing, ``[I, 0]`` when widening."""
    input_dim = X.shape[1]
    if output_dim == input_dim:
        return np.eye(input_dim)
    if output_dim < input_dim:
        _, _, V = np.linalg.svd(X, full_matrices=False)
        return V[:output_dim].T
    return np.concatenate([np.eye(input_dim), np.zeros((input_dim, output_dim - input_dim))], axis=1)


def linear_fit_lost(X: np.ndarray, T: np.ndarray, W: np.ndarray) -> float:
    """R̄²(X) − R̄²(X W): the share of the targets' variance that least squares (with an intercept)
    explains from X ``[n, D]`` and no longer from the projected inputs X W (W ``[D, D_out]``), in
    adjusted R² (each residual variance divided by n − 1 − its inputs), pooled over the columns of
    T ``[n, P]``; 0 when T is constant or when n ≤ D + 1 leaves the fit on X nothing to tell."""
    n, D = X.shape
    total = float(np.sum((T - T.mean(axis=0)) ** 2))
    if total == 0.0 or n <= D + 1:
        return 0.0

    def unexplained(inputs: np.ndarray) -> float:
        design = np.concatenate([inputs, np.ones((n, 1))], axis=1)
        coefficients = np.linalg.lstsq(design, T, rcond=None)[0]
        residual = float(np.sum((T - design @ coefficients) ** 2))
        return residual / (n - 1 - inputs.shape[1]) / (total / (n - 1))

    return unexplained(X @ W) - unexplained(X)


def linear_means(
    X: np.ndarray, Z: np.ndarray, widths: List[int], trainable: bool = False
) -> Tuple[List[MeanFunction], List[np.ndarray]]:
    """Linear mean functions for layers mapping to ``widths``, started at
    :func:`linear_projection` of the data reaching each layer, and each layer's inducing inputs:
    Z for the first, then Z carried through the projections, as the data is.

    Fixed means (``trainable=False``, the DSVI paper's choice) that are the identity are
    ``Identity``; the others are ``Linear`` with the weights (and a zero bias) fixed or learned.
    """
    means, inducing = [], []
    for width in widths:
        inducing.append(Z)
        W = linear_projection(X, width)
        if not trainable and W.shape[0] == W.shape[1] and np.array_equal(W, np.eye(W.shape[0])):
            mean = Identity(W.shape[0])
        else:
            mean = Linear(A=W, b=np.zeros(width))
            gpflow.set_trainable(mean, trainable)
        means.append(mean)
        X, Z = X @ W, Z @ W
    inducing.append(Z)
    return means, inducing


def mean_column_variance(A: np.ndarray) -> float:
    """The mean variance of A's columns (1 when A is constant): a data scale for initial values."""
    variance = float(np.mean(np.var(A, axis=0)))
    return variance if variance > 0 else 1.0
