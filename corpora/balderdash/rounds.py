"""Rounds documents parsed straight into columns, one round at a time (one-line errors).

Each round document is checked and appended to plain lists (:class:`RoundColumns`); nothing of
the document is kept. The common shapes (integer ids, JSON booleans, plain numbers) take a short
path; anything else goes through :class:`~.documents.Doc`, which gives the same values or the
one-line error naming the file, the line and the field.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from wordplay_audit.corpora.balderdash.documents import Doc, shown
from wordplay_audit.corpora.balderdash.model import REFERENCE_VOTE
from wordplay_audit.corpora.values import check_number

CHUNK = 1 << 16
"""Definitions held as Python objects before they are moved into typed arrays."""
_ID_LIMIT = 10**18  # integers from this size on are refused (corpora.values.MAX_INT_DIGITS)
_NUMBER_LIMIT = 1e15  # plain scores below this in size need no further check
_DICT, _BOOL, _STR, _INT, _NUMBER = {dict}, {bool}, {str}, {int}, {int, float}
_INT_OR_NONE = {int, type(None)}
_JUDGE = operator.itemgetter("judge_decision")
_KNOWS = operator.itemgetter("llm_knows_one_of_the_defs")
_TEXT = operator.itemgetter("definition")


class Roster(NamedTuple):
    """A round's players: ids as text, as a set, integer vote targets allowed (with -1)."""

    pids: list[str]
    in_round: frozenset[str]
    allowed: dict[int | None, str]
    key: tuple | None


def _count(skipped: dict[str, int], what: str) -> None:
    skipped[what] = skipped.get(what, 0) + 1


class RoundColumns:
    """The rounds and their definitions as lists, in file order.

    Per round: ``game_id``, ``round_id``, ``word``, ``correct_definition``, ``pos``,
    ``n_players``, ``n_true``, ``line``. Per definition (in the order of the round's
    ``players``): ``round_row`` (index of its round), ``player_id``, ``definition``,
    ``judge_decision``, ``llm_knows``, ``vote``, ``score`` (nan when absent).
    """

    ROUND_FIELDS = ("game_id", "round_id", "word", "correct_definition", "pos", "n_players", "n_true", "line")
    DEFINITION_FIELDS = (
        "round_row",
        "player_id",
        "definition",
        "judge_decision",
        "llm_knows",
        "vote",
        "score",
    )

    def __init__(
        self, player_game: dict[str, str], games: set[str], skipped: dict[str, int], *, texts: bool = True
    ) -> None:
        self.player_game, self.games, self.skipped = player_game, games, skipped
        self.texts = texts  # False: definition texts are checked, then dropped (no column)
        self.round_records: list[tuple] = []
        self._known_games: dict[int, str] = {}
        self.definitions: dict[str, list] = {name: [] for name in self.DEFINITION_FIELDS}
        self._seen: dict[tuple[str, int], int] = {}
        self._id_text: dict[int, str] = {}
        self._vote_text: dict[int, str] = {}
        self._rosters: dict[tuple, Roster] = {}
        self._chunks: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ one round

    def round_columns(self) -> dict[str, list]:
        """The round columns (see the class docstring); the rows kept so far are handed over."""
        columns = list(zip(*self.round_records, strict=True)) or [()] * len(self.ROUND_FIELDS)
        self.round_records = []
        return {name: list(values) for name, values in zip(self.ROUND_FIELDS, columns, strict=True)}

    def add(self, source: str, line: int, data: dict) -> None:
        """Check one round document and append its round and definitions."""
        if not self._plain_round(line, data):
            self._checked_round(Doc(source, line, data))
        if len(self.definitions["score"]) >= CHUNK:
            self._flush()

    def _plain_round(self, line: int, data: dict) -> bool:
        """Add a round of the usual shape on a short path; False (nothing added) for any other.

        Usual: integer ids of a known game and of players already seen together in it, a new
        round number, text word and definition, and :meth:`_plain_definitions`'s conditions.
        """
        get = data.get
        word, reference, listed = get("word"), get("correct_definition"), get("players")
        entries, votes, scores = get("player_definitions"), get("votes"), get("scores")
        game, round_id = get("game_id"), get("round_id")
        if not (
            type(word) is str
            and type(reference) is str
            and word.strip()
            and reference.strip()
            and type(entries) is dict
            and type(votes) is dict
            and type(scores) is dict
            and type(listed) is list
            and type(game) is int
            and type(round_id) is int
            and 0 < round_id < _ID_LIMIT
            and set(map(type, listed)) == _INT
        ):
            return False
        game_id = self._known_games.get(game)
        roster = self._rosters.get((game_id, *listed))
        if roster is None or len(entries) != len(roster.pids):
            return False
        if self._seen.setdefault((game_id, round_id), line) != line:
            return False  # the checked path names both lines
        n_true = self._plain_definitions(len(self.round_records), roster, entries, votes, scores)
        if n_true is None:
            return False
        pos = get("pos")
        pos = pos if type(pos) is str else str(pos or "")
        self.round_records.append((game_id, round_id, word, reference, pos, len(listed), n_true, line))
        return True

    def _checked_round(self, doc: Doc) -> None:
        """Add a round with every check of the field access (same values, or the one-line error)."""
        line, data = doc.line, doc.data
        game_id, round_id = self._key(doc)
        word = doc.text("word")
        reference = doc.text("correct_definition")
        for name, value in (("word", word), ("correct_definition", reference)):
            if not value.strip():  # no round can be played or judged without it
                raise doc.fail(f"field {name!r} is empty")
        roster = self._players(doc, game_id)
        entries, votes, scores = self._maps(doc, roster, game_id)
        row = len(self.round_records)
        pids = roster.pids
        n_true = self._plain_definitions(row, roster, entries, votes, scores)
        if n_true is None:
            n_true = sum(
                self._definition(doc, row, pid, entries.get(pid), votes, scores, roster.in_round)
                for pid in pids
            )
        pos = str(data.get("pos") or "")
        self.round_records.append((game_id, round_id, word, reference, pos, len(pids), n_true, line))

    def _flush(self) -> None:
        """Move the unique-per-row columns into typed arrays (the Python objects are freed)."""
        d = self.definitions
        chunk = {
            "round_row": np.asarray(d["round_row"], dtype=np.int64),
            "score": np.asarray(d["score"], dtype=np.float64),
        }
        if self.texts:
            chunk["definition"] = pd.array(np.asarray(d["definition"], dtype=object), dtype="str")
        self._chunks.append(chunk)
        for name in ("round_row", "score", "definition"):
            d[name] = []

    def definition_columns(self) -> dict[str, Any]:
        """All definition columns: typed arrays (``str`` Series for texts, absent when ``texts``
        is False) and lists of shared ids."""
        self._flush()
        self._seen, self._rosters = {}, {}  # no more rounds come
        chunks, self._chunks = self._chunks, []
        out: dict[str, Any] = {
            name: np.concatenate([c[name] for c in chunks]) for name in ("round_row", "score")
        }
        if self.texts:
            out["definition"] = pd.concat([pd.Series(c["definition"]) for c in chunks], ignore_index=True)
        for name in ("player_id", "vote"):
            out[name] = self.definitions[name]
        for name in ("judge_decision", "llm_knows"):
            out[name] = np.asarray(self.definitions[name], dtype=bool)
        self.definitions = {name: [] for name in self.DEFINITION_FIELDS}
        return out

    def _plain_definitions(
        self, row: int, roster: Roster, entries: dict, votes: dict, scores: dict
    ) -> int | None:
        """Append the round's definitions when every value has its plain form; else None.

        Plain: each entry an object with JSON booleans and a string definition, a vote (an
        integer id of a player of the round, or -1) from exactly the players whose definition
        was not true, every score a number below 10^15 in size. Anything else (also anything
        counted in ``skipped``) is left to the checks of :meth:`_definition`. Every step is one
        C-level ``map`` over the round's players.
        """
        pids = roster.pids
        found = list(map(entries.get, pids))
        if set(map(type, found)) != _DICT:
            return None
        try:
            judges, knows = list(map(_JUDGE, found)), list(map(_KNOWS, found))
            texts = list(map(_TEXT, found))
        except KeyError:
            return None
        points = list(map(scores.get, pids))
        if (
            set(map(type, judges)) != _BOOL
            or set(map(type, knows)) != _BOOL
            or set(map(type, texts)) != _STR
            or not all(map(str.strip, texts))  # an empty definition is counted by the checked path
            or any(map(operator.gt, judges, knows))
            or not set(map(type, points)) <= _NUMBER
            or not sum(map(abs, points)) < _NUMBER_LIMIT
        ):
            return None
        n_true = sum(judges)
        # a vote from exactly the players whose definition was not true: the one without a
        # vote casts "" (allowed[None]), a vote for a stranger casts None
        targets = list(map(votes.get, pids))
        if len(votes) != len(pids) - n_true or not set(map(type, targets)) <= _INT_OR_NONE:
            return None
        cast = list(map(roster.allowed.get, targets))
        if None in cast or list(map(operator.not_, cast)) != judges or any(map(operator.eq, cast, pids)):
            return None  # (a vote for the voter's own definition is counted by the checked path)
        columns = self.definitions
        columns["round_row"].extend([row] * len(pids))
        columns["player_id"].extend(pids)
        columns["definition"].extend(texts)
        columns["judge_decision"].extend(judges)
        columns["llm_knows"].extend(knows)
        columns["vote"].extend(cast)
        columns["score"].extend(map(float, points))
        return n_true

    def _key(self, doc: Doc) -> tuple[str, int]:
        raw = doc.get("game_id")
        game_id = self._id(doc, "game_id", raw)
        if game_id not in self.games:
            raise doc.fail(f"game_id {game_id} names no game in the games export")
        if type(raw) is int:
            self._known_games[raw] = game_id
        round_id = data_round = doc.data.get("round_id")
        if type(data_round) is not int or not 0 < data_round < _ID_LIMIT:
            round_id = doc.integer("round_id")
        if round_id < 1:
            raise doc.fail(f"field 'round_id' must be 1 or more, got {round_id}")
        key = (game_id, round_id)
        first = self._seen.setdefault(key, doc.line)
        if first != doc.line:
            raise doc.fail(f"round {round_id} of game {game_id} appears twice (first on line {first})")
        return key

    def _id(self, doc: Doc, name: str, value: Any) -> str:
        """An id as text; integer ids are converted once and shared."""
        if type(value) is int:
            text = self._id_text.get(value)
            if text is None:
                text = self._id_text[value] = doc.ident(name, value)
            return text
        return doc.ident(name, value)

    def _players(self, doc: Doc, game_id: str) -> Roster:
        """The round's players, as checked before when the same game listed the same ids."""
        listed = doc.get("players")
        if not isinstance(listed, list) or not listed:
            raise doc.fail("field 'players' must be a non-empty list of player ids")
        key = (game_id, *listed) if set(map(type, listed)) == _INT else None
        known = self._rosters.get(key) if key is not None else None
        if known is not None:
            return known
        pids = [self._id(doc, "players", p) for p in listed]
        if len(set(pids)) != len(pids):
            raise doc.fail("field 'players' lists a player twice")
        allowed = {int(p): p for p in pids if p.isdigit() and p == str(int(p))}
        allowed[-1] = REFERENCE_VOTE
        allowed[None] = ""  # no vote (a true definition's)
        return Roster(pids, frozenset(pids), allowed, key)

    def _maps(self, doc: Doc, roster: Roster, game_id: str) -> tuple[dict, dict, dict]:
        entries = doc.get("player_definitions")
        votes = doc.get("votes", {})
        scores = doc.get("scores", {})
        for name, value in (("player_definitions", entries), ("votes", votes), ("scores", scores)):
            if not isinstance(value, dict):
                raise doc.fail(f"field {name!r} must be an object keyed by player id")
        if roster.key is None or roster.key not in self._rosters:
            for pid in roster.pids:
                if self.player_game.get(pid) != game_id:
                    raise doc.fail(f"player {pid} is not a player of game {game_id} in the players export")
            if roster.key is not None:
                self._rosters[roster.key] = roster
        in_round = roster.in_round
        extra = set(entries) - in_round
        if extra:
            raise doc.fail(f"player_definitions has player {sorted(extra)[0]} who is not in 'players'")
        extra_votes = set(votes) - in_round
        if extra_votes:
            raise doc.fail(f"votes has voter {sorted(extra_votes)[0]} who is not in 'players'")
        return entries, votes, scores

    # ------------------------------------------------------------------ one definition

    def _definition(
        self, doc: Doc, row: int, pid: str, entry: Any, votes: dict, scores: dict, in_round: frozenset[str]
    ) -> bool:
        judge, knows, definition = self._verdicts(doc, pid, entry)
        vote = self._vote(doc, pid, votes, judge, in_round)
        score = scores.get(pid)
        if type(score) is not int and type(score) is not float or not -_NUMBER_LIMIT < score < _NUMBER_LIMIT:
            score = self._odd_score(doc, pid, score)
        for name, value in (
            ("round_row", row),
            ("player_id", pid),
            ("definition", definition),
            ("judge_decision", judge),
            ("llm_knows", knows),
            ("vote", vote),
            ("score", float(score)),
        ):
            self.definitions[name].append(value)
        return judge

    def _verdicts(self, doc: Doc, pid: str, entry: Any) -> tuple[bool, bool, str]:
        if not isinstance(entry, dict):
            raise doc.fail(f"player_definitions lacks an object for player {pid}")
        where = f"player_definitions.{pid}"
        judge = entry.get("judge_decision")
        knows = entry.get("llm_knows_one_of_the_defs")
        if type(judge) is not bool or type(knows) is not bool:
            judge, knows = self._odd_verdicts(doc, where, judge, knows)
        definition = entry.get("definition")
        if not isinstance(definition, str):
            raise doc.fail(f"field '{where}.definition' must be a string")
        if not definition.strip():  # kept (the judge ruled on it), counted
            _count(self.skipped, "empty_definitions")
        if judge and not knows:
            _count(self.skipped, "knows_false_but_judge_true")
        return judge, knows, definition

    @staticmethod
    def _odd_verdicts(doc: Doc, where: str, judge: Any, knows: Any) -> tuple[bool, bool]:
        if judge is None:
            raise doc.fail(f"field '{where}.judge_decision' is missing")
        if knows is None:
            raise doc.fail(f"field '{where}.llm_knows_one_of_the_defs' is missing")
        return (
            doc.boolean(judge, f"field '{where}.judge_decision'"),
            doc.boolean(knows, f"field '{where}.llm_knows_one_of_the_defs'"),
        )

    def _vote(self, doc: Doc, pid: str, votes: dict, judge: bool, in_round: frozenset[str]) -> str:
        if pid not in votes:
            if not judge:
                _count(self.skipped, "missing_votes")
            return ""
        target = votes[pid]
        if type(target) is int:
            text = self._vote_text.get(target)
            if text is None:
                text = self._vote_text[target] = str(target)
            target = text
        elif isinstance(target, str):
            target = target.strip()
        else:
            raise doc.fail(f"field 'votes.{pid}' must be a player id or -1, got {shown(target)}")
        if target != REFERENCE_VOTE and target not in in_round:
            raise doc.fail(f"field 'votes.{pid}' names player {target}, who is not in this round")
        if judge:
            # the framework never lets a true definition vote; such a vote is ignored
            _count(self.skipped, "votes_by_true_definitions_ignored")
            return ""
        if target == pid:
            # the framework offers a player every definition but their own; DR counts votes from
            # other players only, so such a vote is ignored (no vote), and counted
            _count(self.skipped, "self_votes_ignored")
            return ""
        return target

    def _odd_score(self, doc: Doc, pid: str, score: Any) -> float:
        """A score that is absent (nan, counted), not a number (error) or not finite (error)."""
        if score is None:
            _count(self.skipped, "missing_scores")
            return float("nan")
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise doc.fail(f"field 'scores.{pid}' must be a number, got {shown(score)}")
        return float(check_number(score, f"{doc.source} line {doc.line}: field 'scores.{pid}'"))
