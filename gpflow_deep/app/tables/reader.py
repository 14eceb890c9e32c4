"""A user's table read in batches of rows by pyarrow, in C++: CSV through its streaming reader
(``pyarrow.csv.open_csv``), Parquet through ``ParquetFile.iter_batches``. Memory holds one batch.

A CSV column is numeric if every present cell of a first look at the file (its first
``FIRST_LOOK_BYTES``) is a number, text otherwise; the file is then read with those types. Missing
cells (empty, ``NA``, ``N/A``, ``NaN``, ``null``, ``None`` in any case, infinities) are NaN in
numeric columns and None in text columns, whose values are stripped of surrounding spaces.
Parquet date and timestamp columns are text too, in ISO 8601 (:func:`~.dates.as_text`).
"""

import os
import re
from typing import Dict, Iterator, List, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from gpflow_deep.app.tables.dates import as_text, is_date_type
from gpflow_deep.app.tables.rows import MISSING_TOKENS, NUMERIC, TEXT, Rows, TableError, text_values

PARQUET_SUFFIXES = (".parquet", ".pq")
FIRST_LOOK_BYTES = 4 << 20
BLOCK_BYTES = 4 << 20  # CSV bytes per batch (about 40,000 rows of ten columns)
PARQUET_BATCH_ROWS = 50_000
_CONVERSION_ERROR = re.compile(r"In CSV column #(\d+): .*conversion error to double: invalid value '(.*)'", re.S)


def _case_variants(token: str) -> List[str]:
    variants = [""]
    for character in token:
        variants = [v + c for v in variants for c in {character.lower(), character.upper()}]
    return variants


NULL_CELLS = sorted({variant for token in MISSING_TOKENS for variant in _case_variants(token)})


class ColumnKindChanged(Exception):
    """A column the first look took for numeric has text further down; the reader now reads it as text."""


class TableReader:
    """The rows of a CSV (first line: column names) or Parquet file, batch by batch.

    :param kinds: ``{column: "numeric" | "text"}`` the columns must have (those of a trained run);
        the others get the kind the file shows. A numeric column with text is an error.
    :param ignore: columns left out: never read, given no kind and never checked for missing values.
    :ivar columns: the column names (stripped of surrounding spaces) but ``ignore``'s, in file order.
    :ivar ignored: ``ignore``'s columns, in file order.
    :ivar kinds: each column's kind.
    """

    def __init__(self, path: str, kinds: Optional[Dict[str, str]] = None, ignore: Sequence[str] = ()):
        self.path, self.name = path, os.path.basename(path)
        if not os.path.isfile(path):
            raise TableError(f"{path}: no such file")
        self.size = os.path.getsize(path)
        self.parquet = path.lower().endswith(PARQUET_SUFFIXES)
        self._given = dict(kinds or {})
        self._done = 0.0
        raw = self._parquet_names() if self.parquet else self._csv_names()
        self._file_columns = [name.strip() for name in raw]
        _check_header(self.name, self._file_columns)
        self._raw = dict(zip(self._file_columns, raw))
        unknown = [column for column in ignore if column not in self._file_columns]
        if unknown:
            listed = ", ".join(self._file_columns)
            raise TableError(f"{self.name} has no column {unknown[0]!r} to ignore (columns: {listed})")
        self.ignored = [column for column in self._file_columns if column in ignore]
        self.columns = [column for column in self._file_columns if column not in ignore]
        if not self.columns:
            raise TableError(f"{self.name}: every column is ignored")
        self.kinds = self._parquet_kinds() if self.parquet else self._csv_kinds()
        self.kinds.update({column: kind for column, kind in self._given.items() if column in self.kinds})

    @property
    def fraction_read(self) -> float:
        """How far the current pass is through the file, from 0 to 1."""
        return self._done

    def batches(self, columns: Optional[Sequence[str]] = None) -> Iterator[Rows]:
        """One pass over the rows of ``columns`` (all by default), a batch at a time."""
        columns = list(self.columns if columns is None else columns)
        self._done = 0.0
        yield from self._parquet_batches(columns) if self.parquet else self._csv_batches(columns)
        self._done = 1.0

    # CSV

    def _csv_names(self) -> List[str]:
        with self._open_csv(FIRST_LOOK_BYTES, None, None) as reader:
            return reader.schema.names

    def _csv_kinds(self) -> Dict[str, str]:
        kinds = {column: NUMERIC for column in self.columns}
        strings = {self._raw[column]: pa.string() for column in self.columns}
        found_rows = False
        with self._open_csv(FIRST_LOOK_BYTES, strings, None) as reader:
            for batch in reader:
                found_rows = found_rows or batch.num_rows > 0
                for column in self.columns:
                    if not _all_numbers(batch.column(self._raw[column])):
                        kinds[column] = TEXT
                break
        if not found_rows:
            raise TableError(f"{self.name} has column names but no data rows")
        return kinds

    def _open_csv(self, block_bytes: int, types: Optional[dict], include: Optional[List[str]]):
        invalid = []

        def on_invalid_row(row) -> str:
            if not row.text.replace(",", "").strip():
                return "skip"  # a line of spaces and commas only: a blank line
            invalid.append(row)
            return "error"

        handle = pa.OSFile(self.path)
        try:
            reader = pa_csv.open_csv(
                handle,
                read_options=pa_csv.ReadOptions(block_size=block_bytes, use_threads=False),
                parse_options=pa_csv.ParseOptions(invalid_row_handler=on_invalid_row),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types, include_columns=include, null_values=NULL_CELLS, strings_can_be_null=True
                ),
            )
        except pa.ArrowInvalid as error:
            handle.close()
            raise self._not_numeric(error) or self._csv_error(error, invalid) from None
        return _CsvPass(self, reader, handle, invalid)

    def _csv_error(self, error: Exception, invalid: list) -> TableError:
        if invalid:
            row = invalid[0]
            return TableError(
                f"{self.name}: line {row.number} has {row.actual_columns} fields, the header has {row.expected_columns}"
            )
        message = str(error).strip().splitlines()[0]
        if message.startswith("Empty CSV file"):
            return TableError(f"{self.name} is empty")
        if "invalid UTF8" in message:
            return TableError(f"{self.name}: not a readable CSV file (it is not UTF-8 text)")
        return TableError(f"{self.name}: not a readable CSV file ({message})")

    def _csv_batches(self, columns: List[str]) -> Iterator[Rows]:
        types = {self._raw[c]: pa.float64() if self.kinds[c] == NUMERIC else pa.string() for c in columns}
        with self._open_csv(BLOCK_BYTES, types, [self._raw[c] for c in columns]) as csv_pass:
            for number, batch in enumerate(csv_pass, start=1):
                self._done = min(number * BLOCK_BYTES / max(self.size, 1), 1.0)  # a batch is a block of the file
                yield Rows.from_arrow(batch, dict(zip([self._raw[c] for c in columns], columns)), self.kinds)

    def _not_numeric(self, error: Exception) -> Optional[Exception]:
        """The error to raise for a conversion failure of a numeric column, or None if it is another."""
        match = _CONVERSION_ERROR.search(str(error))
        if match is None:
            return None
        column = self._file_columns[int(match.group(1))]  # pyarrow counts the file's columns
        if column in self._given:
            return TableError(f"{self.name}: column {column!r} was numeric in training, has {match.group(2)!r}")
        self.kinds[column] = TEXT
        return ColumnKindChanged(column)

    # Parquet

    def _parquet_file(self) -> pq.ParquetFile:
        try:
            return pq.ParquetFile(self.path)
        except (pa.ArrowException, OSError) as error:
            message = str(error).strip().splitlines()[0]
            raise TableError(f"{self.name}: cannot read it as Parquet ({message})") from None

    def _parquet_names(self) -> List[str]:
        parquet = self._parquet_file()
        if parquet.metadata.num_rows == 0:
            names = parquet.schema_arrow.names
            raise TableError(f"{self.name} has column names but no data rows" if names else f"{self.name} is empty")
        return parquet.schema_arrow.names

    def _parquet_kinds(self) -> Dict[str, str]:
        schema = self._parquet_file().schema_arrow
        return {column: _arrow_kind(schema.field(self._raw[column]).type) for column in self.columns}

    def _parquet_batches(self, columns: List[str]) -> Iterator[Rows]:
        parquet = self._parquet_file()
        total, done = parquet.metadata.num_rows, 0
        names = dict(zip([self._raw[c] for c in columns], columns))
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=list(names)):
            done += batch.num_rows
            self._done = done / max(total, 1)
            yield Rows.from_arrow(self._parquet_types(batch, names), names, self.kinds)

    def _parquet_types(self, batch: pa.RecordBatch, names: Dict[str, str]) -> pa.RecordBatch:
        arrays = []
        for raw, array in zip(batch.schema.names, batch.columns):
            column = names[raw]
            if self.kinds[column] == TEXT:
                arrays.append(as_text(array) if is_date_type(array.type) else pc.cast(array, pa.string()))
            elif _arrow_kind(array.type) == NUMERIC:
                arrays.append(pc.cast(array, pa.float64()))
            else:
                try:
                    arrays.append(pc.cast(pc.utf8_trim_whitespace(pc.cast(array, pa.string())), pa.float64()))
                except pa.ArrowInvalid:
                    raise TableError(f"{self.name}: column {column!r} was numeric in training, has text") from None
        return pa.RecordBatch.from_arrays(arrays, names=batch.schema.names)


class _CsvPass:
    """One open CSV reader: iterates its record batches, turning pyarrow's errors into one-line ones."""

    def __init__(self, table: TableReader, reader, handle: pa.NativeFile, invalid: list):
        self.table, self.reader, self.handle, self.invalid = table, reader, handle, invalid
        self.schema = reader.schema

    def __enter__(self) -> "_CsvPass":
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        while True:
            try:
                batch = self.reader.read_next_batch()
            except StopIteration:
                return
            except pa.ArrowInvalid as error:
                raise self.table._not_numeric(error) or self.table._csv_error(error, self.invalid) from None
            yield batch


def _all_numbers(column: pa.Array) -> bool:
    """Whether every present cell of a text column is a number."""
    present = pc.drop_null(text_values(column))
    try:
        pc.cast(present, pa.float64())
    except pa.ArrowInvalid:
        return False
    return True


def _arrow_kind(arrow_type: pa.DataType) -> str:
    numeric = pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type) or pa.types.is_decimal(arrow_type)
    return NUMERIC if numeric else TEXT


def _check_header(name: str, header: List[str]) -> None:
    if not header or not any(header):
        raise TableError(f"{name} has no column names")
    repeated = sorted({column for column in header if header.count(column) > 1})
    if repeated:
        raise TableError(f"{name}: repeated column names: {', '.join(repeated)}")
    if "" in header:
        raise TableError(f"{name}: column {header.index('') + 1} has no name")
