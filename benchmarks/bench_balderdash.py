"""Balderdash export reader at scale: ``read_export`` + ``player_round_table`` against a naive loop.

Writes a synthetic ``mongoexport`` folder (JSON lines, relaxed Extended JSON, as the framework's
database would export it: 6 players of 3 models, 20 rounds a game, ~280 bytes per player-round)
in chunks of games, so 10M player-rounds never sit in memory. Then, per size, each in a fresh
child process so that its peak resident memory (``getrusage(RUSAGE_SELF).ru_maxrss``) is its own:

* ``reader``   — ``read_export(folder)`` then ``player_round_table`` and the per-round LKR/TDR
  from it (a groupby), end to end;
* ``loop``     — the naive baseline: a plain Python loop over ``players.jsonl`` and
  ``rounds.jsonl`` with ``json.loads`` per line, computing the same per-round LKR/TDR per model;
* ``cli``      — ``wordplay-audit balderdash metrics FOLDER`` and ``balderdash recompute FOLDER
  --human labels.csv`` (4,000 definitions labelled twice on both questions by
  :func:`write_human_labels`), each a fresh process, text output (optional, ``--cli``).

The reader's per-round LKR/TDR are checked against the loop's. Prints seconds, the ratios
loop ÷ reader, loop ÷ CLI metrics and recompute ÷ metrics, and peak RSS. Run:
    .venv/bin/python -m benchmarks bench_balderdash -- [--sizes 100000,1000000] [--cli] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

import numpy as np

MODELS = ("llama-3-8b", "gemma-2-9b", "gpt-4o-mini")
DECKS = ("basic_english_words", "balderdash_words")
PLAYERS_PER_MODEL = 2
ROUNDS = 20
WORDS = 200
GAMES_PER_CHUNK = 250


def _word(deck: str, k: int) -> str:
    return f"{deck.split('_')[0][:4]}word{k:03d}"


def _oid(kind: int, number: int) -> dict[str, str]:
    return {"$oid": f"{kind:08x}{number:016x}"}


def _round_document(rng: np.random.Generator, game_id: int, round_id: int, roster, word: str) -> dict:
    knows = rng.random(len(roster)) < 0.6
    true = knows & (rng.random(len(roster)) < 0.7)
    ballot = [pid for (pid, _), t in zip(roster, true, strict=True) if not t]
    votes, scores = {}, {str(pid): 0 for pid, _ in roster}
    for (pid, _), t in zip(roster, true, strict=True):
        if t:
            scores[str(pid)] += 3
            continue
        others = [b for b in ballot if b != pid]
        if not others or rng.random() < 0.5:
            votes[str(pid)] = -1
            scores[str(pid)] += 2
        else:
            target = others[int(rng.integers(len(others)))]
            votes[str(pid)] = target
            scores[str(target)] += 1
    return {
        "_id": _oid(3, game_id * 1000 + round_id),
        "game_id": game_id,
        "round_id": round_id,
        "word": word,
        "correct_definition": f"the dictionary definition of the word {word}, first sense, as the deck gives it",
        "pos": "noun",
        "players": [pid for pid, _ in roster],
        "player_definitions": {
            str(pid): {
                "definition": f"a definition of {word} written by player {pid} in round {round_id}, "
                "meant to fool the other players",
                "judge_decision": bool(t),
                "llm_knows_one_of_the_defs": bool(k),
            }
            for (pid, _), t, k in zip(roster, true, knows, strict=True)
        },
        "votes": votes,
        "scores": scores,
    }


def _game_documents(rng: np.random.Generator, game_id: int, first_player: int):
    deck = DECKS[game_id % len(DECKS)]
    game = {
        "_id": _oid(1, game_id),
        "game_id": game_id,
        "game_description": "synthetic benchmark game",
        "number_of_rounds": ROUNDS,
        "judge_llm_model_name": "judge-llm",
        "random_seed": game_id,
        "receiving_vote_points": 1,
        "correct_vote_points": 2,
        "correct_definition_points": 3,
        "history_window_size": 20,
        "llms_temperature": 0.9,
        "words_file": f"data/{deck}.csv",
        "filter_words": "all",
        "history_type": "full",
        "created_at": {"$date": "2024-06-01T00:00:00.000Z"},
    }
    roster = [
        (first_player + k * PLAYERS_PER_MODEL + j, model)
        for k, model in enumerate(MODELS)
        for j in range(PLAYERS_PER_MODEL)
    ]
    players = [
        {
            "_id": _oid(2, pid),
            "player_id": pid,
            "name": f"{model}-{pid}",
            "llm_name": model,
            "game_id": game_id,
            "score": 0,
            "score_history": {},
            "rank_history": {},
        }
        for pid, model in roster
    ]
    chosen = rng.choice(WORDS, size=ROUNDS, replace=False)
    rounds = [
        _round_document(rng, game_id, r, roster, _word(deck, int(chosen[r - 1])))
        for r in range(1, ROUNDS + 1)
    ]
    return game, players, rounds


def write_synthetic_export(folder: Path, player_rounds: int, *, seed: int = 0) -> int:
    """Write an export of about ``player_rounds`` player-rounds into ``folder``, chunk by chunk."""
    folder.mkdir(parents=True, exist_ok=True)
    per_game = ROUNDS * PLAYERS_PER_MODEL * len(MODELS)
    n_games = max(1, -(-player_rounds // per_game))
    rng = np.random.default_rng(seed)
    files = {
        name: open(folder / f"{name}.jsonl", "w", encoding="utf-8") for name in ("games", "players", "rounds")
    }
    try:
        for start in range(0, n_games, GAMES_PER_CHUNK):
            chunk = {"games": [], "players": [], "rounds": []}
            for game_id in range(start + 1, min(n_games, start + GAMES_PER_CHUNK) + 1):
                game, players, rounds = _game_documents(rng, game_id, (game_id - 1) * len(MODELS) * 2 + 1)
                chunk["games"].append(json.dumps(game))
                chunk["players"].extend(json.dumps(p) for p in players)
                chunk["rounds"].extend(json.dumps(r) for r in rounds)
            for name, lines in chunk.items():
                files[name].write("\n".join(lines) + "\n")
    finally:
        for handle in files.values():
            handle.close()
    for deck in DECKS:
        rows = ["words,def,POS,frequency_band"]
        rows += [
            f"{_word(deck, k)},\"['first sense', 'second sense']\",\"['noun', 'noun']\",rare"
            for k in range(WORDS)
        ]
        (folder / f"{deck}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return n_games * per_game


def write_human_labels(folder: Path, n_items: int = 4000, *, seed: int = 0) -> Path:
    """``labels.csv`` beside the export: two people label ``n_items`` random definitions on
    both questions (what ``balderdash recompute --human`` reads)."""
    per_game = ROUNDS * PLAYERS_PER_MODEL * len(MODELS)
    n_games = sum(1 for line in open(folder / "games.jsonl", encoding="utf-8") if line.strip())
    rng = np.random.default_rng(seed)
    picks = rng.choice(n_games * per_game, size=min(n_items, n_games * per_game), replace=False)
    rows = ["item_id,rater,rater_type,label,question"]
    for pick in sorted(int(p) for p in picks):
        game, rest = divmod(pick, per_game)
        round_id, seat = divmod(rest, per_game // ROUNDS)
        item = f"bd:{game + 1}:{round_id + 1}:{game * per_game // ROUNDS + seat + 1}"
        for rater in ("ann1", "ann2"):
            for question in ("reference", "any_sense"):
                label = "true" if rng.random() < 0.5 else "false"
                rows.append(f"{item},{rater},human,{label},{question}")
    path = folder / "labels.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the measured runs


def _digest(lkr, tdr) -> dict:
    """Count and sums of the per-round rates: the two runs agree when these do."""
    lkr, tdr = np.asarray(lkr, dtype=float), np.asarray(tdr, dtype=float)
    return {"n_rates": len(lkr), "sums": [lkr.sum(), tdr.sum(), (lkr * tdr).sum(), (lkr**2).sum()]}


def run_reader(folder: str) -> dict:
    from wordplay_audit.corpora.balderdash import player_round_table, read_export

    table = player_round_table(read_export(folder))
    grouped = table.groupby(["game_id", "round_id", "model"], sort=False)
    rates = grouped.agg(lkr=("knows", "mean"), tdr=("true_def", "mean"))
    return {"rows": len(table), **_digest(rates["lkr"], rates["tdr"])}


def run_loop(folder: str) -> dict:
    """The naive baseline: json.loads per line, a Python loop per round (as eval_tools does)."""
    model_of = {}
    with open(Path(folder) / "players.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                player = json.loads(line)
                model_of[str(player["player_id"])] = player["llm_name"]
    lkr, tdr, rows = array("d"), array("d"), 0
    with open(Path(folder) / "rounds.jsonl", encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            doc = json.loads(line)
            counts: dict[str, list[int]] = {}
            for pid, entry in doc["player_definitions"].items():
                cell = counts.setdefault(model_of[pid], [0, 0, 0])
                cell[0] += 1
                cell[1] += bool(entry["llm_knows_one_of_the_defs"])
                cell[2] += bool(entry["judge_decision"])
                rows += 1
            for n, knows, true in counts.values():
                lkr.append(knows / n)
                tdr.append(true / n)
    return {"rows": rows, **_digest(lkr, tdr)}


def _child(kind: str, folder: str, out: str) -> None:
    start = time.perf_counter()
    if kind == "reader":
        import wordplay_audit.corpora.balderdash  # noqa: F401  (timed apart: pandas, pyarrow)
    imports = time.perf_counter() - start
    result = run_reader(folder) if kind == "reader" else run_loop(folder)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(out).write_text(json.dumps({"seconds": seconds, "imports": imports, "peak_mb": peak_mb, **result}))


def measure(kind: str, folder: Path, scratch: Path) -> dict:
    out = scratch / f"{kind}.json"
    start = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--child", kind, str(folder), str(out)], check=True)
    wall = time.perf_counter() - start
    return {**json.loads(out.read_text()), "wall": wall}


def measure_cli(folder: Path, command_name: str = "metrics") -> dict:
    """Seconds and peak RSS of ``wordplay-audit balderdash metrics|recompute FOLDER`` (text
    output, no --json); recompute reads the ``labels.csv`` of :func:`write_human_labels`."""
    command = [str(Path(sys.executable).with_name("wordplay-audit")), "balderdash", command_name, str(folder)]
    if command_name == "recompute":
        labels = folder / "labels.csv"
        if not labels.exists():
            write_human_labels(folder)
        command += ["--human", str(labels)]
    code = (
        "import resource, subprocess, sys, time; t = time.perf_counter();"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);"
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    done = subprocess.run([sys.executable, "-c", code, *command], check=True, capture_output=True, text=True)
    seconds, peak = map(float, done.stdout.split())
    return {"seconds": seconds, "peak_mb": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000", help="player-rounds per export, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cli", action="store_true", help="also time the CLI's metrics and recompute")
    parser.add_argument("--no-loop", action="store_true", help="skip the naive loop (e.g. at 10M)")
    parser.add_argument("--keep", type=Path, default=None, help="write the exports here and keep them")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench_balderdash_") as tmp:
        base = args.keep or Path(tmp)
        for size in sizes:
            folder = base / f"export_{size}"
            start = time.perf_counter()
            kept = (folder / "rounds.jsonl").exists()
            written = size if kept else write_synthetic_export(folder, size, seed=args.seed)
            megabytes = sum(p.stat().st_size for p in folder.glob("*.jsonl")) / 1e6
            print(
                f"{written:,} player-rounds, {megabytes:.0f} MB "
                + (
                    "(kept from an earlier run)"
                    if kept
                    else f"written in {time.perf_counter() - start:.1f} s"
                ),
                flush=True,
            )
            reader = measure("reader", folder, Path(tmp))
            line = (
                f"  reader   {reader['seconds']:7.2f} s  (imports {reader['imports']:.2f} s)"
                f"  peak {reader['peak_mb']:7.0f} MB"
            )
            if not args.no_loop:
                loop = measure("loop", folder, Path(tmp))
                same = loop["n_rates"] == reader["n_rates"] and np.allclose(loop["sums"], reader["sums"])
                print(
                    f"  loop     {loop['seconds']:7.2f} s  peak {loop['peak_mb']:7.0f} MB  (same LKR/TDR: {same})"
                )
                line += f"  loop/reader = {loop['seconds'] / reader['seconds']:.2f}x"
            print(line, flush=True)
            if args.cli:
                cli = measure_cli(folder)
                print(f"  cli metrics   {cli['seconds']:7.2f} s  peak {cli['peak_mb']:7.0f} MB", flush=True)
                again = measure_cli(folder, "recompute")
                ratios = f"recompute/metrics = {again['seconds'] / cli['seconds']:.2f}x"
                if not args.no_loop:
                    ratios += f"  loop/cli metrics = {loop['seconds'] / cli['seconds']:.2f}x"
                print(
                    f"  cli recompute {again['seconds']:7.2f} s  peak {again['peak_mb']:7.0f} MB  {ratios}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(main())
