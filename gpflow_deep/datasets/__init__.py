"""Small real data sets shipped with the package, and the papers' split protocols."""

from gpflow_deep.datasets.uci import (
    DATASETS,
    Dataset,
    Split,
    Standardizer,
    load,
    split_indices,
    train_validation_test_split,
    uci_split,
)

__all__ = [
    "DATASETS",
    "Dataset",
    "Split",
    "Standardizer",
    "load",
    "split_indices",
    "train_validation_test_split",
    "uci_split",
]
