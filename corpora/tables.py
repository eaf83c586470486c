"""The one table reader of the toolkit, :func:`read_table` (re-exported by :mod:`.contract`).

A CSV (or JSON lines, by suffix ``.jsonl``) file becomes a frame of text whose index is the file's
line on which each record starts (a CSV's header is line 1), so every later check names
``<file> line <N>`` (see ``contract.place``). The structure is checked here, one line per
problem: a CSV record with more or fewer fields than the header, a JSON-lines line that is not
JSON or not an object.

Speed: the common file (one record a line, every record as wide as the header) pays a count of
its line breaks on top of the parser; the exact scan with the :mod:`csv` (or :mod:`json`) module
runs only when the count shows blank lines or quoted line breaks, when a row may be short (a CSV
row whose last field is empty, read by pandas) or when the parser failed.
"""

from __future__ import annotations

import csv
import json
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from wordplay_audit.errors import InputError, expect_file

_CHUNK = 1 << 20  # bytes per read when counting line breaks


def read_table(path: str | Path, *, categorical: bool = False) -> pd.DataFrame:
    """Read a CSV (or JSON lines, by suffix ``.jsonl``) table as text; one-line errors.

    UTF-8 with or without a BOM; text NFC-normalised (so "é" typed either way is one label);
    a header naming a column twice, or a record with more or fewer fields than the header, is
    an error. The frame's index is the file's line on which each record starts (header = line
    1; blank lines and line breaks inside quoted fields counted) and ``attrs["source"]`` the
    path, so later checks name the file's line (``contract.place``). With ``categorical`` every
    column is read by pyarrow straight into a pandas ``category`` (millions of ratings in a few
    seconds, checks on the categories).
    """
    path = expect_file(path, "a CSV file")
    try:
        if path.suffix == ".jsonl":
            frame = _read_jsonl(path)
            lines = _jsonl_lines(path, len(frame))
        else:
            frame, lines = _read_csv(path, categorical)
    except UnicodeDecodeError as exc:
        line = _line_of_byte(path, exc.start)
        raise InputError(f"{path} line {line}: not UTF-8 text (byte {exc.object[exc.start]:#04x})") from None
    except (ValueError, pd.errors.ParserError) as exc:
        if isinstance(exc, InputError):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable table ({first})") from None
    return _with_lines(_nfc(frame), path, lines)


# --- JSON lines -----------------------------------------------------------------------------


def _read_jsonl(path: Path) -> pd.DataFrame:
    """pandas' reader; when it fails, or a line may be an array (which pandas would take for a
    list of key/value pairs), the exact scan names the first line that is not a JSON object."""
    try:
        frame = pd.read_json(path, lines=True, dtype=False, encoding="utf-8-sig")
    except (ValueError, TypeError) as exc:  # TypeError: a line of null or a number
        _jsonl_records(path)  # raises InputError at the first bad line
        raise ValueError(str(exc)) from None
    if _file_has(path, b"["):
        _jsonl_records(path)
    return frame.astype(str)


def _jsonl_records(path: Path) -> list[int]:
    """The line of every record (non-blank line) of a JSON-lines file, as pandas splits it (on
    ``\\n``); InputError at the first line that is not JSON or not a JSON object."""
    text = path.read_text(encoding="utf-8-sig")
    lines = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(record, dict):
            kind = {list: "an array", str: "a string", bool: "true/false", type(None): "null"}
            got = kind.get(type(record), "a number")
            raise InputError(f"{path} line {number}: expected a JSON object, got {got}")
        lines.append(number)
    return lines


def _jsonl_lines(path: Path, records: int) -> range | list[int]:
    breaks, ends_with_break = _line_breaks(path, lone_cr=False)
    if breaks == records + (0 if ends_with_break else -1) or records == 0:
        return range(1, records + 1)  # one record a line, no blank line
    lines = _jsonl_records(path)
    return lines if len(lines) == records else range(1, records + 1)


# --- CSV ------------------------------------------------------------------------------------


def _header(path: Path) -> list[str]:
    """The header fields of a CSV file (BOM stripped), for the duplicate-column check."""
    with open(path, encoding="utf-8-sig", newline="") as stream:
        first = stream.readline()
    return next(csv.reader([first]), [])


def _read_csv(path: Path, categorical: bool) -> tuple[pd.DataFrame, range | list[int]]:
    """The frame and the line of each of its records (see :func:`read_table`)."""
    header = _header(path)
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise InputError(f"{path} line 1: column {repeated[0]!r} appears twice in the header")
    frame = _read_csv_arrow(path, header) if categorical and header else None
    maybe_short = False  # pyarrow refuses a row of the wrong width; pandas pads a short one with ""
    if frame is None:
        frame = _read_csv_pandas(path)
        maybe_short = len(frame.columns) > 1 and bool((frame.iloc[:, -1] == "").any())
    rows = len(frame)
    breaks, ends_with_break = _line_breaks(path, lone_cr=True)
    if breaks == rows + (1 if ends_with_break else 0) and (
        not maybe_short or _arrow_widths_agree(path, header, rows)
    ):
        return frame, range(2, rows + 2)  # header and every record on one line each, no blank line
    lines = _csv_record_lines(path)  # raises InputError at a record of the wrong width
    return frame, lines if lines is not None and len(lines) == rows else range(2, rows + 2)


def _read_csv_pandas(path: Path) -> pd.DataFrame:
    """pandas' reader: ``index_col=False`` so surplus fields never become an index (pandas warns
    and drops them instead: an error here, like its error on a long row further down)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig", index_col=False)
    except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
        _csv_record_lines(path)  # names a record of the wrong width by its line
        raise pd.errors.ParserError(str(exc)) from None


def _csv_record_lines(path: Path) -> list[int] | None:
    """The line on which each record after the header starts (the exact, slow pass with the
    :mod:`csv` module; blank lines skipped as pandas and pyarrow skip them); InputError at the
    first record with more or fewer fields than the header. None when the csv module cannot
    read the file (the parser's own error then stands)."""
    limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # pandas has no field size limit
    lines: list[int] = []
    width = None
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            reader = csv.reader(stream)
            start = 1
            for row in reader:
                if row and not (len(row) == 1 and row[0].isspace()):
                    if width is None:
                        width = len(row)
                    elif len(row) != width:
                        spans = reader.line_num > start  # a quote that opened here and closed far on
                        hint = f" (a quote opened here runs to line {reader.line_num})" if spans else ""
                        raise InputError(
                            f"{path} line {start}: expected {width} fields, got {len(row)}{hint}"
                        )
                    else:
                        lines.append(start)
                start = reader.line_num + 1
    except (csv.Error, UnicodeDecodeError):
        return None
    finally:
        csv.field_size_limit(limit)
    return lines


def _arrow_widths_agree(path: Path, header: list[str], rows: int) -> bool:
    """True when pyarrow parses ``rows`` records, each as wide as the header (it refuses any other
    width): the check of a pandas read whose last column holds an empty field, for a fraction
    of the exact scan's time (one column converted)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if not header:
        return False
    options = pacsv.ConvertOptions(include_columns=header[:1], column_types={header[0]: pa.string()})
    try:
        table = pacsv.read_csv(
            path, parse_options=pacsv.ParseOptions(newlines_in_values=True), convert_options=options
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowKeyError, UnicodeDecodeError):
        return False
    return table.num_rows == rows


def _read_csv_arrow(path: Path, header: list[str]) -> pd.DataFrame | None:
    """Every column as a dictionary-encoded string → pandas category; None when pyarrow
    cannot read the file (a row of the wrong width among others: the pandas reader and the
    exact scan then name the problem)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    types = {name: pa.dictionary(pa.int32(), pa.string()) for name in header}
    options = pacsv.ConvertOptions(
        column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False
    )
    try:
        table = pacsv.read_csv(path, convert_options=options)
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    frame = table.to_pandas()
    frame.columns = header
    return frame


# --- lines ----------------------------------------------------------------------------------


def _line_breaks(path: Path, *, lone_cr: bool) -> tuple[int, bool]:
    """The number of line breaks in the file (``\\n`` and ``\\r\\n``; a lone ``\\r`` too with
    ``lone_cr``) and whether the file ends with one; counted with numpy in one reused buffer
    (a few milliseconds for a million rows)."""
    count, last = 0, 0
    buffer = bytearray(_CHUNK)
    with open(path, "rb", buffering=0) as stream:
        while size := stream.readinto(buffer):
            chunk = np.frombuffer(buffer, np.uint8, count=size)
            newline = chunk == 10
            count += int(np.count_nonzero(newline))
            if lone_cr:
                if buffer.find(b"\r", 0, size) >= 0:
                    cr = chunk == 13
                    count += int(np.count_nonzero(cr)) - int(np.count_nonzero(cr[:-1] & newline[1:]))
                count -= int(last == 13 and chunk[0] == 10)  # a \r\n split between two reads
            last = int(chunk[-1])
    return count, last == 10 or (lone_cr and last == 13)


def _file_has(path: Path, needle: bytes) -> bool:
    with open(path, "rb") as stream:
        return any(needle in chunk for chunk in iter(lambda: stream.read(_CHUNK), b""))


def _line_of_byte(path: Path, offset: int) -> int:
    with open(path, "rb") as stream:
        return stream.read(offset).count(b"\n") + 1


def _nfc(frame: pd.DataFrame) -> pd.DataFrame:
    """NFC-normalise every text column that holds a non-ASCII character (on the categories of a
    categorical column; equal names after normalising become one category)."""
    for column in frame.columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            names = values.cat.categories.astype(str)
            if not names.str.isascii().all():
                frame[column] = values.astype(str).str.normalize("NFC").astype("category")
        elif pd.api.types.is_string_dtype(values) and not values.astype(str).str.isascii().all():
            frame[column] = values.str.normalize("NFC")
    frame.columns = [unicodedata.normalize("NFC", str(c)) for c in frame.columns]
    return frame


def _with_lines(frame: pd.DataFrame, path: Path, lines: range | list[int]) -> pd.DataFrame:
    if isinstance(lines, range):
        frame.index = pd.RangeIndex(lines.start, lines.stop, name="line")
    else:
        frame.index = pd.Index(np.asarray(lines, dtype=np.int64), name="line")
    frame.attrs["source"] = str(path)
    frame.attrs["line_index"] = True
    return frame
