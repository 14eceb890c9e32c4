"""A user's table (CSV or Parquet) read in batches and turned into model inputs and targets:
:mod:`.reader` reads, :mod:`.learning` learns the encoding in one pass, :mod:`.encoding` applies it."""

from gpflow_deep.app.tables.encoding import Preprocessing, label_text
from gpflow_deep.app.tables.learning import LearnedTable, learn_table
from gpflow_deep.app.tables.reader import TableReader
from gpflow_deep.app.tables.rows import Rows, TableError

__all__ = ["LearnedTable", "Preprocessing", "Rows", "TableError", "TableReader", "label_text", "learn_table"]
