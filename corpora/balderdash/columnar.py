"""The rounds file read by DuckDB into columns, when every document has the plain shape.

:func:`read_rounds_columnar` gives the columns of :class:`~.rounds.RoundColumns` (an object with
``round_columns()`` and ``definition_columns()`` for :func:`~.frames.build_frames`) or None; on
None the caller streams the file through the checked path, which gives every value or one-line
error as before. Each value is read as JSON text and its JSON type checked, because DuckDB casts
leniently (``"2"`` read as an integer is 2). DuckDB also accepts what Python's parser refuses
(a trailing comma, a leading form feed) and ignores keys it is not asked for (so a repeated key
there goes unseen); hence the file's bytes are checked too: every ``:`` outside the strings
read must be one of the key–value pairs read, so no document has any other key.

Plain, for every document: one JSON object per line (no blank line, no byte-order mark, no
control byte but tab and line feed, no comma before ``]`` or ``}``, no escaped colon); only the
keys ``_id`` (absent or ``{"$oid": "<hex>"}``), ``game_id``, ``round_id``, ``word``,
``correct_definition``, ``pos``, ``players``, ``player_definitions``, ``votes``, ``scores``;
integer ``game_id`` of a game in the games export; integer ``0 < round_id < 10^18``; string word
and definitions, each with a printable ASCII character; ``pos`` a string or absent; ``players`` a non-empty list of distinct positive
integers below 10^18, each a player of that game in the players export; ``player_definitions``
keyed by exactly those ids, each entry exactly ``definition`` (a string), ``judge_decision`` and
``llm_knows_one_of_the_defs`` (JSON booleans, not true and false); ``votes`` from exactly the
players whose definition is not true, each -1 or another player of the round;
``scores`` keyed by exactly the players, each a finite number (not a boolean), their sizes
summing below 10^15 per round; each (game, round) once. A repeated key, a lone surrogate and
invalid UTF-8 are DuckDB errors; any error gives None.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.model import REFERENCE_VOTE

_CHUNK = 1 << 24
MAX_BYTES = 1 << 30
"""Larger rounds files are streamed: DuckDB's working memory grows with the file (10M
player-rounds, 2.6 GB: 6.9 GB peak columnar against 6.1 GB streamed), speed matters less there
than staying within memory."""
_ESCAPED_COLON = (b"\\u003a", b"\\u003A")
_NUMBER_LIMIT = 1e15  # as RoundColumns' plain path
_REQUIRED_KEYS = 8  # every top-level key but _id and pos
_ID = r'^\{"\$oid":"[0-9a-fA-F]*"\}$'
_INT_ID = r"^[1-9][0-9]{0,17}$"  # a positive integer below 10^18, as Python writes it
_GAME_ID = r"^(0|-?[1-9][0-9]{0,17})$"
_VOTE = r"^(-1|[1-9][0-9]{0,17})$"
_COLUMNS = (
    "{_id: 'JSON', game_id: 'JSON', round_id: 'JSON', word: 'JSON', correct_definition: 'JSON', "
    "pos: 'JSON', players: 'JSON[]', player_definitions: 'MAP(VARCHAR, STRUCT(definition JSON, "
    "judge_decision JSON, llm_knows_one_of_the_defs JSON))', votes: 'MAP(VARCHAR, JSON)', "
    "scores: 'MAP(VARCHAR, JSON)'}"
)
_NUMBER_START = "('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9')"
_QUERY = f"""
SELECT _id::VARCHAR AS id, game_id::VARCHAR AS game_id, round_id::VARCHAR AS round_id,
  coalesce(json_type(word) = 'VARCHAR' AND json_type(correct_definition) = 'VARCHAR'
    AND regexp_matches(word ->> '$', '[!-~]') AND regexp_matches(correct_definition ->> '$', '[!-~]')
    AND (pos IS NULL OR json_type(pos) = 'VARCHAR') AND list_bool_and(list_transform(map_values(player_definitions),
      lambda e: left(e.definition::VARCHAR, 1) = '"' AND regexp_matches(e.definition ->> '$', '[!-~]'))), false) AS texts_ok,
  word ->> '$' AS word, correct_definition ->> '$' AS correct_definition, pos ->> '$' AS pos,
  players::VARCHAR[] AS players, map_keys(player_definitions) AS entry_keys,
  {{definition}},
  list_transform(map_values(player_definitions), lambda e: CASE e.judge_decision::VARCHAR
    WHEN 'true' THEN true WHEN 'false' THEN false END) AS judge,
  list_transform(map_values(player_definitions), lambda e: CASE e.llm_knows_one_of_the_defs::VARCHAR
    WHEN 'true' THEN true WHEN 'false' THEN false END) AS knows,
  map_keys(votes) AS vote_keys, map_values(votes)::VARCHAR[] AS votes, map_keys(scores) AS score_keys,
  list_transform(map_values(scores), lambda s: CASE WHEN left(s::VARCHAR, 1) IN {_NUMBER_START}
    THEN s::DOUBLE END) AS scores
FROM read_json($path, format = 'newline_delimited', columns = {_COLUMNS})
"""
_TEXTS = "list_transform(map_values(player_definitions), lambda e: e.definition ->> '$') AS definition"
_TEXT_COLONS = (  # each definition's colons (null for a missing text), when texts are not wanted
    "list_transform(map_values(player_definitions), lambda e: length(e.definition ->> '$')"
    " - length(replace(e.definition ->> '$', ':', ''))) AS definition_colons"
)


class ColumnarRounds:
    """Columns in the layout of :class:`~.rounds.RoundColumns`, read by :func:`read_rounds_columnar`."""

    def __init__(self, rounds: dict[str, Any], definitions: dict[str, Any]) -> None:
        self._rounds, self._definitions = rounds, definitions

    def round_columns(self) -> dict[str, Any]:
        return self._rounds

    def definition_columns(self) -> dict[str, Any]:
        return self._definitions


class _Unplain(Exception):
    """Some document is not of the plain shape: the caller streams the file instead."""


def _require(condition: Any) -> None:
    if not condition:
        raise _Unplain


def scan_bytes(path: Path) -> tuple[int, int]:
    """``(lines, colons)`` of ``path``; raises ``_Unplain`` unless every line is ``{…}``.

    Each line must start with ``{`` and end with ``}`` (no blank line, byte-order mark, carriage
    return or other blank at either end, which DuckDB and Python treat differently); no comma may
    come before ``]`` or ``}`` (DuckDB reads it, Python does not) and no colon be escaped
    (``\\u003a``, which the colon count would miss). One pass in 16 MB pieces.
    """
    lines = colons = 0
    last, tail, before = ord("\n"), b"", -1  # before: the last non-blank byte so far
    with open(path, "rb") as handle:
        while piece := handle.read(_CHUNK):
            data = np.frombuffer(piece, dtype=np.uint8)
            newline = np.flatnonzero(data == 10)
            starts = data[newline[newline + 1 < len(data)] + 1]
            ends = data[newline[newline > 0] - 1]
            _require(bool(np.all(starts == ord("{"))) and bool(np.all(ends == ord("}"))))
            _require(last != 10 or data[0] == ord("{"))
            _require(not (len(newline) and newline[0] == 0) or last == ord("}"))
            joined = tail + piece[:6]
            if b"\\" in joined or b"\\" in piece:
                _require(not any(bad in piece or bad in joined for bad in _ESCAPED_COLON))
            _require(not _comma_closes(data, before))
            solid = _solid(data[-64:])
            before = int(solid[-1]) if len(solid) else _last_solid(data, before)
            lines, colons = lines + len(newline), colons + piece.count(b":")
            last, tail = int(data[-1]), piece[-6:]
    if last != 10:
        _require(last == ord("}"))
        lines += 1
    _require(lines > 0)
    return lines, colons


def _last_solid(data: np.ndarray, before: int) -> int:
    solid = _solid(data)
    return int(solid[-1]) if len(solid) else before


def _solid(data: np.ndarray) -> np.ndarray:
    return data[(data != 32) & (data != 9) & (data != 10)]


def _comma_closes(data: np.ndarray, before: int) -> bool:
    """Whether a ``,`` comes before a ``]`` or ``}`` with only blanks between (``before``: the
    last non-blank byte of the previous pieces, -1 for none)."""
    at = np.flatnonzero((data == ord("]")) | (data == ord("}"))) - 1
    while len(at):
        if bool(np.any(at < 0)) and before == ord(","):
            return True
        at = at[at >= 0]
        found = data[at]
        if bool(np.any(found == ord(","))):
            return True
        at = at[(found == 32) | (found == 9) | (found == 10)] - 1
    return False


def read_rounds_columnar(
    path: Path, players: pd.DataFrame, games: set[str], *, texts: bool = True
) -> ColumnarRounds | None:
    """The rounds of ``path`` as columns when every document is plain (module docstring); else None.

    ``texts=False``: the definition texts are checked (and their colons counted) but not
    returned, so ``definition_columns()`` has no ``definition`` (≈ 100 MB less at 1M rows).
    """
    try:
        import duckdb
        import pyarrow as pa
    except ImportError:  # pragma: no cover - dependencies; the streaming path works without them
        return None
    try:
        _require(Path(path).stat().st_size <= MAX_BYTES)
        lines, colons = scan_bytes(path)
        _require(not any(c in str(path) for c in "*?[{"))  # DuckDB would read the path as a glob
        columns = _query(duckdb, path, texts)
        _require(len(columns["id"]) == lines)
        return _columns(columns, colons, players, games)
    except (_Unplain, duckdb.Error, pa.ArrowException, OverflowError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - e.g. an older DuckDB's API: the streaming path decides
        return None


def _query(duckdb, path: Path, texts: bool = True) -> dict[str, Any]:
    """The query's columns by name (Arrow chunked arrays; large strings, as pandas keeps them)."""
    con = duckdb.connect()
    try:
        con.execute("SET arrow_large_buffer_size = true; SET enable_progress_bar = false")  # no bar on stdout
        con.execute("SET autoinstall_known_extensions = false")  # never a download from a reader
        con.execute("SET temp_directory = ''")  # no spill folder ('.tmp') in the working directory
        # hand freed blocks back at once (1M player-rounds: 56 MB less held after the read)
        con.execute("SET allocator_flush_threshold = '0MB'")
        con.execute("SET allocator_bulk_deallocation_flush_threshold = '0MB'")
        query = _QUERY.replace("{definition}", _TEXTS if texts else _TEXT_COLONS)
        table = con.sql(query, params={"path": str(path)}).to_arrow_table()
    finally:
        con.close()
    return dict(zip(table.column_names, table.columns, strict=True))


def _matches(values, pattern: str) -> bool:
    """Every value is there and matches ``pattern`` (a full-match RE2 expression)."""
    import pyarrow.compute as pc

    return values.null_count == 0 and bool(
        pc.all(pc.match_substring_regex(values, pattern)).as_py() is not False
    )


def _flat(columns: dict[str, Any], name: str):
    """The values of a list column with a list on every row, flat (the column is taken out)."""
    import pyarrow.compute as pc

    column = columns.pop(name)
    _require(column.null_count == 0)
    return pc.list_flatten(column)


def _rows(column) -> np.ndarray:
    """The row of each value of a list column."""
    import pyarrow.compute as pc

    return np.repeat(np.arange(len(column), dtype=np.int64), pc.list_value_length(column).to_numpy())


def _colons(*texts) -> int:
    """Colons in the decoded strings (nulls count none)."""
    import pyarrow.compute as pc

    return sum(int(pc.sum(pc.count_substring(t, ":")).as_py() or 0) for t in texts)


def _aligned(keys: np.ndarray, players_sorted: np.ndarray, players_order: np.ndarray) -> np.ndarray:
    """For each player (in list order), the index of its entry in ``keys`` (the same key set)."""
    order = np.argsort(keys, kind="stable")
    _require(np.array_equal(keys[order], players_sorted))
    align = np.empty_like(order)
    align[players_order] = order
    return align


class _Ids(NamedTuple):
    """Player ids, entry, vote and score keys and vote targets as codes of one dictionary."""

    codes: dict[str, np.ndarray]
    keys: dict[str, np.ndarray]  # (row, code) as one integer: row * len(dictionary) + code
    dictionary: np.ndarray
    reference: np.ndarray  # per vote: it is -1


def _encode(columns: dict[str, Any]) -> _Ids:
    """Codes in the dictionary of player ids; any other text gets the last code, whose text is
    the reference vote "-1" (so a key or vote naming no player matches no player's key)."""
    import pyarrow.compute as pc

    names = ("players", "entry_keys", "vote_keys", "score_keys", "votes")
    flat = {name: (_rows(columns[name]), _flat(columns, name)) for name in names}
    _require(_matches(flat["players"][1], _INT_ID) and _matches(flat["votes"][1], _VOTE))
    known = pc.unique(flat["players"][1])
    width = len(known) + 1
    codes = {
        name: pc.index_in(flat[name][1], value_set=known).fill_null(len(known)).to_numpy().astype(np.int64)
        for name in names
    }
    keys = {name: flat[name][0] * width + codes[name] for name in names}
    reference = pc.equal(flat["votes"][1], REFERENCE_VOTE).to_numpy()
    return _Ids(codes, keys, np.asarray([*known.to_pylist(), REFERENCE_VOTE], dtype=object), reference)


def _columns(columns: dict[str, Any], colons: int, players: pd.DataFrame, games: set[str]) -> ColumnarRounds:
    """The checks on the read columns, then the columns (raises ``_Unplain``); the
    columns are taken out of ``columns`` as they are used, so that their memory is freed."""
    import pyarrow.compute as pc

    n, with_id = len(columns["id"]), len(columns["id"]) - columns["id"].null_count
    _require(_matches(pc.drop_null(columns.pop("id")), _ID) and _all(columns.pop("texts_ok")))
    _require(_matches(columns["game_id"], _GAME_ID) and _matches(columns["round_id"], _INT_ID))
    rows = _rows(columns["players"])
    ids = _encode(columns)
    order = np.argsort(ids.keys["players"], kind="stable")
    ordered = ids.keys["players"][order]
    _require(len(ordered) > 0 and bool(np.all(ordered[1:] != ordered[:-1])))  # distinct per round
    entry = _aligned(ids.keys["entry_keys"], ordered, order)
    judge, knows = (_values(columns, name, entry) for name in ("judge", "knows"))
    _require(judge.dtype == bool and knows.dtype == bool and not bool(np.any(judge & ~knows)))
    score = _values(columns, "scores", _aligned(ids.keys["score_keys"], ordered, order))
    _require(score.dtype == np.float64 and bool(np.all(np.isfinite(score))))
    _require(bool(np.all(np.bincount(rows, weights=np.abs(score), minlength=n) < _NUMBER_LIMIT)))
    vote = _votes(ids, ~judge, ordered)
    definition = _definition_texts(columns, entry)
    rounds = _round_part(columns, rows, judge, games)
    _check_players(rounds["game_id"], rows, ids.codes["players"], ids.dictionary, players)
    # every ':' of the file is a key-value pair read or inside a string read
    pairs = _REQUIRED_KEYS * n + 2 * with_id + 4 * len(entry) + len(ids.keys["vote_keys"])
    pairs += len(ids.keys["score_keys"]) + rounds.pop("pos_pairs")
    if definition is None:
        text_colons = _flat(columns, "definition_colons")
        _require(text_colons.null_count == 0)
        pairs += int(pc.sum(text_colons).as_py() or 0)
    else:
        pairs += _colons(definition)
    _require(colons == pairs + rounds.pop("colons"))
    definitions = {
        "round_row": rows.astype(np.int64),
        "player_id": ids.dictionary[ids.codes["players"]],
        "judge_decision": judge,
        "llm_knows": knows,
        "vote": vote,
        "score": score,
    }
    if definition is not None:
        definitions["definition"] = pd.Series(pd.array(definition, dtype="str"))
    return ColumnarRounds(rounds, definitions)


def _definition_texts(columns: dict[str, Any], entry: np.ndarray):
    """The definition texts in the players' order (None when the query left them out)."""
    import pyarrow as pa

    if "definition" not in columns:
        return None
    definition = _flat(columns, "definition")
    _require(definition.null_count == 0)
    if not np.array_equal(entry, np.arange(len(entry))):
        definition = definition.take(pa.array(entry))
    return definition


def _all(column) -> bool:
    import pyarrow.compute as pc

    return column.null_count == 0 and pc.all(column).as_py() is not False


def _values(columns: dict[str, Any], name: str, align: np.ndarray) -> np.ndarray:
    """A list column of booleans or numbers, flat, in the players' order; none missing."""
    values = _flat(columns, name)
    _require(values.null_count == 0)
    return values.to_numpy()[align]


def _votes(ids: _Ids, voting: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Each player's vote as text ("" for a true definition): cast by exactly the other players,
    each for -1 or a player of the round (``ordered``: the rounds' players as sorted keys)."""
    voters = ids.keys["players"][voting]
    voter_order = np.argsort(voters, kind="stable")
    found = np.argsort(ids.keys["vote_keys"], kind="stable")
    _require(np.array_equal(ids.keys["vote_keys"][found], voters[voter_order]))
    texts = ids.dictionary[ids.codes["votes"]]  # a text that is no player's is "-1" (_encode)
    target = ids.keys["votes"]
    member = ordered[np.minimum(np.searchsorted(ordered, target), len(ordered) - 1)] == target
    self_vote = target == ids.keys["vote_keys"]  # counted by the streamed path
    _require(bool(np.all(member | ids.reference)) and not self_vote.any())
    index = np.empty_like(voter_order)
    index[voter_order] = found
    vote = np.full(len(ids.keys["players"]), "", dtype=object)
    vote[voting] = texts[index]
    return vote


def _round_part(
    columns: dict[str, Any], rows: np.ndarray, judge: np.ndarray, games: set[str]
) -> dict[str, Any]:
    """The round columns (every game known, every (game, round) once), with the colons in the
    round texts (``colons``) and the number of rounds with a ``pos`` (``pos_pairs``)."""
    import pyarrow as pa

    game_ids = columns.pop("game_id").to_numpy().astype(object)
    _require(set(game_ids) <= games)
    round_id = columns.pop("round_id").cast(pa.int64()).to_numpy()
    _require(not pd.DataFrame({"game": game_ids, "round": round_id}).duplicated().any())
    texts = {k: columns.pop(k) for k in ("word", "correct_definition", "pos")}
    colons = _colons(*texts.values())
    counts = np.bincount(rows, minlength=len(round_id))
    _require(bool(np.all(counts > 0)))
    return {
        "game_id": game_ids,
        "round_id": round_id,
        **{k: texts[k].to_numpy().astype(object) for k in ("word", "correct_definition")},
        "pos": texts["pos"].fill_null("").to_numpy().astype(object),
        "n_players": counts.astype(np.int64),
        "n_true": np.bincount(rows, weights=judge, minlength=len(round_id)).astype(np.int64),
        "line": np.arange(1, len(round_id) + 1),
        "colons": colons,
        "pos_pairs": len(round_id) - texts["pos"].null_count,
    }


def _check_players(game_ids: np.ndarray, rows: np.ndarray, codes, dictionary, players: pd.DataFrame) -> None:
    """Every player listed in a round is a player of that round's game in the players export."""
    game_codes, game_names = pd.factorize(game_ids)
    pairs = np.unique(game_codes[rows].astype(np.int64) * len(dictionary) + codes)
    games_of = pd.Series(
        players["game_id"].to_numpy(dtype=object), index=players["player_id"].to_numpy(dtype=object)
    )
    found = games_of.reindex(dictionary[pairs % len(dictionary)]).to_numpy(dtype=object)
    _require(bool(np.all(found == np.asarray(game_names, dtype=object)[pairs // len(dictionary)])))
