"""Known-word files written as the framework's script writes them (an independent writer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

VALUES = (True, False, -1, -2)


def framework_frame(rows: list[tuple[str, list[str], list[object]]]) -> pd.DataFrame:
    """The script's frame in memory: ``def``/``POS`` as list literals, definitions text or -1,
    judgements Python ``True``/``False``/``-1``/``-2`` in object columns, and ``llm_knows_word``
    from each row's ``mode().values[0]`` (``N/A`` for -1/-2) — pandas' own mode, the reference."""
    frame = pd.DataFrame(
        {
            "words": [w for w, _, _ in rows],
            "def": [repr(s) for _, s, _ in rows],
            "POS": [repr(["noun"]) for _ in rows],
        }
    )
    for i in range(1, 6):
        frame[f"llm{i}_definition"] = pd.Series(
            [-1 if j[i - 1] == -1 else f"{w} meaning number {i}" for w, _, j in rows], dtype=object
        )
        frame[f"llm{i}_judgement"] = pd.Series([j[i - 1] for _, _, j in rows], dtype=object)
    judgement_columns = [f"llm{i}_judgement" for i in range(1, 6)]
    knows = []
    for _, row in frame.iterrows():
        vote = row[judgement_columns].mode().values[0]
        knows.append("N/A" if vote == -1 or vote == -2 else vote)
    frame["llm_knows_word"] = pd.Series(knows, dtype=object)
    return frame


def write_framework_file(folder: Path, model: str, rows) -> Path:
    """``<model with / as _>_balderdash_words1.csv`` in ``folder`` (``to_csv(index=False)``)."""
    path = Path(folder) / f"{model.replace('/', '_')}_balderdash_words1.csv"
    framework_frame(rows).to_csv(path, index=False)
    return path


def random_rows(rng: np.random.Generator, n: int, *, prefix: str = "w", p=(0.45, 0.35, 0.1, 0.1)):
    """``n`` words with judgements drawn from :data:`VALUES` with probabilities ``p``."""
    picks = rng.choice(len(VALUES), size=(n, 5), p=p)
    return [
        (f"{prefix}{k}", [f"sense a of {prefix}{k}", "sense b"], [VALUES[v] for v in picks[k]])
        for k in range(n)
    ]
