"""Subset selectors for subset-of-data inference: which M training points become the first
layer's inducing inputs. A selector is ``(X, size, seed) -> indices``; any function of X
returning indices can stand in for one (:func:`select_subset`)."""

from typing import Callable, Dict, Union

import numpy as np
from scipy.spatial.distance import cdist

from gpflow_deep.builders.initialisation import kmeans_inducing_inputs

Selector = Callable[[np.ndarray, int, int], np.ndarray]


def kmeans_subset(X: np.ndarray, size: int, seed: int = 0) -> np.ndarray:
    """The paper's choice: k-means with ``size`` centres, and for each centre the nearest data
    point not already taken (centres visited in order; distinct points, ``[size]`` indices)."""
    distances = cdist(kmeans_inducing_inputs(X, size, seed), X)
    chosen = []
    taken = np.zeros(X.shape[0], dtype=bool)
    for row in distances:
        index = int(np.argmin(np.where(taken, np.inf, row)))
        taken[index] = True
        chosen.append(index)
    return np.array(chosen)


def random_subset(X: np.ndarray, size: int, seed: int = 0) -> np.ndarray:
    """``size`` distinct points drawn uniformly (the paper's SoD* variant)."""
    return np.random.default_rng(seed).choice(X.shape[0], size, replace=False)


SELECTORS: Dict[str, Selector] = {"kmeans": kmeans_subset, "random": random_subset}


def select_subset(
    X: np.ndarray, size: int, selector: Union[str, Callable[[np.ndarray], np.ndarray]] = "kmeans", seed: int = 0
) -> np.ndarray:
    """Indices ``[M]`` of the subset: a named selector (``"kmeans"``, ``"random"``) with ``size``
    points, or ``selector(X)`` for a function of X returning indices (then ``size`` is None or
    their count). The indices are checked: integers in range, no repeats."""
    if isinstance(selector, str):
        if selector not in SELECTORS:
            raise ValueError(f"subset must be one of {sorted(SELECTORS)} or a function of X, got {selector!r}")
        return SELECTORS[selector](X, size, seed)
    if not callable(selector):
        raise TypeError(f"subset must be a selector name or a function of X returning indices, got {selector!r}")
    indices = np.asarray(selector(X))
    N = X.shape[0]
    if indices.ndim != 1 or indices.size == 0 or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError(f"subset: the function must return a non-empty 1-D array of integer indices, got {indices!r}")
    if indices.min() < 0 or indices.max() >= N or len(np.unique(indices)) != len(indices):
        raise ValueError(f"subset: the function must return distinct indices in [0, {N}), got {indices!r}")
    if size is not None and len(indices) != size:
        raise ValueError(f"subset_size={size} but the subset function returned {len(indices)} indices")
    return indices


def subset_copies(X: np.ndarray, Y: np.ndarray, indices: np.ndarray, num_data: int) -> np.ndarray:
    """``[M]``: how many of the N = ``num_data`` training rows equal each subset row (x, y), itself
    and any equal subset rows included, from the n rows ``X [n, D]``, ``Y [n, P]`` given: exact
    when they are all N; from a sample, the m equal subset rows plus the sample's other copies
    scaled by (N − m)/(n − m)."""
    rows = np.concatenate([X, Y], axis=1)
    _, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    values = inverse.reshape(-1)[indices]
    in_subset = np.bincount(values, minlength=len(counts))[values].astype(float)
    others = counts[values] - in_subset
    return in_subset + others * (num_data - in_subset) / np.maximum(len(rows) - in_subset, 1.0)
