"""What ``gpflow-deep fit`` trains on and for how long, from its options and the table's size:
minibatches of :data:`DEFAULT_MINIBATCH` rows (full batch for a table no larger), held in memory up
to :data:`IN_MEMORY_ROWS` training rows and streamed from disk above, and a length
in iterations, epochs or wall time (by default :data:`DEFAULT_ITERATIONS` steps on a table held in
memory, and on a streamed one :data:`DEFAULT_STREAMED_EPOCHS` passes over its rows but at least
:data:`DEFAULT_STREAMED_MIN_ITERATIONS` steps; either for at most :data:`DEFAULT_SECONDS`)."""

import argparse
import math
import re
from dataclasses import dataclass
from typing import Optional

from gpflow_deep.app.cli.parsing import CommandError

IN_MEMORY_ROWS = 10_000
"""Training tables up to this many rows are held in memory; larger ones are streamed from disk.
Also the size of the sample the model is initialised from."""

DEFAULT_MINIBATCH = 1_000
"""Rows per step by default, for every model; a table of no more training rows trains in full
batch. Under the default time bound the number of steps matters more than their size: on
Birthdays (300,000 rows) 10 minutes gave ``deep_gp`` 36-40 steps of 10,000 rows, worse than a
linear model, and 900-1,000 steps of 1,000 rows, better than it (``docs/scaling.md``). In memory
too: until 2026-11-30 a table of up to 10,000 rows trained in full batch, and on openintro's loans
(9,000 rows, 226 inputs once encoded) ``deep_gp``'s 2,000 full-batch steps took 1,138 s and scored
−2.673 against 190 s and −2.679 with 1,000-row steps, ``dspp``'s 10 minutes of full batches −2.728
against 2,000 minibatch steps' −2.695 in 491 s (``docs/benchmarks.md`` §11). For the models that
propagate several paths per step (DSPP's 10 sigma points, AEP's 20 Monte Carlo paths) 1,000 rows is
also what keeps a step's memory bounded (AEP on 10,000 passed 2.3 GB)."""
DEFAULT_ITERATIONS = 2000
"""Steps by default on a table held in memory, under :data:`DEFAULT_SECONDS`. Not the streamed
tables' 10,000: on Ecdat's Males (3,924 rows, 2,550 passes of 1,000 rows) ``random_feature_dgp``
overfitted with them, −1.771 and 90% intervals covering 0.47 of the test rows, against −0.429 and
0.96 with 2,000; ``deep_gp`` on ggplot2's txhousing (7,742 rows) gained from them, −10.448 with
2,000 steps against −10.287 with the 8,481 that 10 minutes gave (``docs/benchmarks.md`` §11,
"Tables of 1,000-10,000 rows")."""
DEFAULT_STREAMED_MIN_ITERATIONS = 10_000
"""Steps at least on a streamed table by default, under :data:`DEFAULT_SECONDS`: 50 passes
over a table of 25,000-50,000 rows are 1,250-2,500 steps of 1,000 rows, and at 2,000 steps
(their minimum until 2026-11-30) ``random_feature_dgp`` on diamonds scored −8.056 against −7.376
with 10,000 steps, ``sod_dgp`` −7.840 against −7.734, and ``sod_dgp`` on cps1988 −7.520 against
−7.412 with 8,000, its objective still rising (``docs/benchmarks.md`` §11, "Four tables no default
was run on"). A table just above :data:`IN_MEMORY_ROWS` thus takes more steps than the
:data:`DEFAULT_ITERATIONS` of one just below."""
DEFAULT_STREAMED_EPOCHS = 50
"""Passes over a streamed table by default (at least :data:`DEFAULT_STREAMED_MIN_ITERATIONS`
steps), under :data:`DEFAULT_SECONDS`. On the 300,000-row tables of ``docs/benchmarks.md`` §11 the
models that took 2,000 steps in one to three minutes scored better with the rest of the 10
minutes, in nats per test row: on Birthdays one-layer ``deep_gp`` (about 60 passes) +0.15,
``sod_dgp`` (56) +0.23 and ``random_feature_dgp`` (80) +0.17; on flights ``deep_gp`` (19) +0.06,
``sod_dgp`` (33) +0.51 and ``random_feature_dgp`` (48) +1.12."""
DEFAULT_SECONDS = 600.0
"""Every table trains for at most this long by default. Streamed: 2,000 steps of 10,000 rows took over
53 minutes on two cores, while 10 minutes of 1,000-row steps beat a linear model on a 300,000-row
table by 0.4-0.7 nats per row (``docs/scaling.md``). In memory: 2,000 full-batch steps on openintro's
loans (9,000 rows, 226 inputs once encoded) took 19 minutes for ``deep_gp`` and about 80 for
``dspp`` (``docs/benchmarks.md`` §11)."""
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(s|m|min|h)?\s*$")
_SECONDS = {None: 1, "s": 1, "m": 60, "min": 60, "h": 3600}


@dataclass
class TrainingPlan:
    """``batch_size`` rows per step (None: all ``training_rows``), ``iterations`` steps (None:
    until ``time_budget`` seconds have passed), ``streamed`` from disk or held in memory."""

    training_rows: int
    batch_size: Optional[int]
    iterations: Optional[int]
    time_budget: Optional[float]
    streamed: bool
    default_length: bool = False

    def describe(self, batch_given: bool) -> str:
        """The plan in one line, saying which choices are defaults."""
        rows = self.batch_size or self.training_rows
        if self.batch_size is None:
            batches = f"full batch ({self.training_rows:,} rows per step"
        else:
            batches = f"minibatches of {self.batch_size:,} rows ({self.training_rows:,} training rows"
        batches += ", read from disk)" if self.streamed else ", in memory)"
        if not batch_given:
            batches += f" [default {'up to' if self.batch_size is None else 'above'} {DEFAULT_MINIBATCH:,} rows]"
        length = []
        if self.iterations is not None:
            epochs = self.iterations * rows / self.training_rows
            length.append(f"{self.iterations:,} iterations ({epochs:.3g} epochs)")
        if self.time_budget is not None:
            length.append(_duration(self.time_budget))
        length = " or ".join(length) + ", whichever comes first" if len(length) == 2 else length[0]
        if self.iterations is None:
            length = f"at most {length}"
        if self.default_length:
            length += " [default]"
        return f"training: {batches}, {length}"


def plan_training(args: argparse.Namespace, training_rows: int) -> TrainingPlan:
    """The plan of ``fit``'s options (``batch_size``, ``iterations``, ``epochs``, ``time_budget``)
    for a table of ``training_rows`` rows."""
    streamed = training_rows > IN_MEMORY_ROWS
    batch_size = args.batch_size or DEFAULT_MINIBATCH
    if batch_size >= training_rows:
        batch_size = None if not streamed else training_rows
    time_budget = parse_duration(args.time_budget) if args.time_budget is not None else None
    steps_per_epoch = training_rows // batch_size if batch_size else 1
    if args.epochs is not None:
        iterations = max(1, math.ceil(args.epochs * steps_per_epoch))
    elif args.iterations is not None:
        iterations = args.iterations
    elif time_budget is not None:
        iterations = None
    else:
        iterations = DEFAULT_ITERATIONS
        if streamed:
            iterations = max(DEFAULT_STREAMED_MIN_ITERATIONS, DEFAULT_STREAMED_EPOCHS * steps_per_epoch)
        return TrainingPlan(training_rows, batch_size, iterations, DEFAULT_SECONDS, streamed, default_length=True)
    return TrainingPlan(training_rows, batch_size, iterations, time_budget, streamed)


def parse_duration(text: str) -> float:
    """Seconds from ``"600"``, ``"90s"``, ``"10m"`` (or ``"10min"``) or ``"2h"``."""
    match = _DURATION.match(text)
    if match is None or float(match.group(1)) <= 0:
        raise CommandError(f"--time-budget: {text!r} is not a positive duration (e.g. 600, 90s, 10m, 2h)")
    return float(match.group(1)) * _SECONDS[match.group(2)]


def _duration(seconds: float) -> str:
    """``"90 s"``, ``"10 min"`` or ``"2.5 h"``: whole minutes and hours in their unit."""
    if seconds >= 3600 and seconds % 360 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:,.0f} s"
