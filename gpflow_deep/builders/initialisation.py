"""Data-driven initialisation shared by the builders: inducing inputs and fixed linear means."""

import logging
import warnings
from typing import List, Optional, Tuple

import gpflow
import numpy as np
from gpflow.mean_functions import Identity, Linear, MeanFunction
from scipy.cluster.vq import kmeans2

from gpflow_deep.core.validation import as_array, as_training_data, check_positive_int

logger = logging.getLogger("gpflow_deep")


def adapted_size(builder: str, name: str, given: Optional[int], paper_value: int, N: int) -> int:
    """A size argument of a builder (``num_inducing``, ``subset_size``): as given, or when not given
    the paper's value capped at what the data allow, with a log line when the cap bites. A given
    value that cannot work is an error later, naming the argument."""
    if given is not None:
        return check_positive_int(name, given)
    if paper_value <= N:
        return paper_value
    logger.info("%s: %s=%d (the paper's %d, capped at the %d training points)", builder, name, N, paper_value, N)
    return N


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
