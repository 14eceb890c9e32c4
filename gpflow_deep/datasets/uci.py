"""Bundled UCI regression data and the split protocols of the papers.

boston: Harrison & Rubinfeld (1978), 506 × 13, target ``medv`` (median home value, $1000s).
Its ``black`` column is an ethically problematic feature; it is kept only so that benchmarks
match the published tables, which used all 13 inputs.
concrete: Yeh (1998), UCI repository (CC BY 4.0), 1030 × 8, target compressive strength (MPa).
"""

import os
from dataclasses import dataclass
from typing import Tuple

import numpy as np

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DATASETS = ("boston", "concrete")


@dataclass(frozen=True)
class Dataset:
    """A regression data set: inputs ``X [N, D]``, targets ``Y [N, 1]`` and their names."""

    name: str
    X: np.ndarray
    Y: np.ndarray
    feature_names: Tuple[str, ...]
    target_name: str


def load(name: str) -> Dataset:
    """One of :data:`DATASETS`, read from the copy shipped with the package."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; bundled: {', '.join(DATASETS)}")
    path = os.path.join(DATA_DIR, f"{name}.csv")
    with open(path) as handle:
        header = handle.readline().strip().split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1)
    return Dataset(name, values[:, :-1], values[:, -1:], tuple(header[:-1]), header[-1])


@dataclass(frozen=True)
class Split:
    """Train and test parts of one split, standardised with the training part's statistics.

    ``y_std`` converts back to original units: a log-density in original units is the
    standardised one minus ``log(y_std)``; an RMSE is the standardised one times ``y_std``.
    """

    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    y_mean: np.ndarray
    y_std: np.ndarray


class Standardizer:
    """Zero mean and unit standard deviation per column, with statistics from ``fit`` data only."""

    def __init__(self, data: np.ndarray):
        self.mean = data.mean(axis=0)
        std = data.std(axis=0)
        self.std = np.where(std > 0, std, 1.0)

    def transform(self, data: np.ndarray) -> np.ndarray:
        return (data - self.mean) / self.std

    def inverse(self, data: np.ndarray) -> np.ndarray:
        return data * self.std + self.mean


def split_indices(num_points: int, split: int, fractions: Tuple[float, ...]) -> Tuple[np.ndarray, ...]:
    """A random partition of ``range(num_points)`` in the given fractions; split i uses seed i."""
    if split < 0:
        raise ValueError(f"split must be a non-negative integer, got {split}")
    if not np.isclose(sum(fractions), 1.0) or min(fractions) <= 0:
        raise ValueError(f"fractions must be positive and sum to one, got {fractions}")
    order = np.random.RandomState(split).permutation(num_points)
    bounds = np.cumsum([int(num_points * f) for f in fractions[:-1]])
    return tuple(np.split(order, bounds))


def uci_split(dataset: Dataset, split: int, test_fraction: float = 0.1) -> Split:
    """The protocol of Salimbeni & Deisenroth (2017) and the PBP papers: a random
    (1 − test_fraction) / test_fraction split with seed ``split``, standardised on the train part."""
    train, test = split_indices(len(dataset.X), split, (1.0 - test_fraction, test_fraction))
    return _standardised(dataset, train, test)


def train_validation_test_split(dataset: Dataset, split: int) -> Tuple[Split, Split]:
    """The 15:3:2 train/validation/test protocol of Jankowiak et al. (2020).

    Returns (fit on train, evaluate on validation) and (fit on train + validation, evaluate on
    test), each standardised with its own training part.
    """
    train, validation, test = split_indices(len(dataset.X), split, (0.75, 0.15, 0.10))
    return _standardised(dataset, train, validation), _standardised(dataset, np.concatenate([train, validation]), test)


def _standardised(dataset: Dataset, train: np.ndarray, test: np.ndarray) -> Split:
    x_scale, y_scale = Standardizer(dataset.X[train]), Standardizer(dataset.Y[train])
    return Split(
        x_scale.transform(dataset.X[train]),
        y_scale.transform(dataset.Y[train]),
        x_scale.transform(dataset.X[test]),
        y_scale.transform(dataset.Y[test]),
        y_scale.mean,
        y_scale.std,
    )
