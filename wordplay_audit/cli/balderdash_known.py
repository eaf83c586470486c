"""``wordplay-audit balderdash known-items`` and ``balderdash known``: the framework's known-word
files as campaign items, and the known counts corrected under people's labels.

Registered on the ``balderdash`` group by :mod:`wordplay_audit.cli.balderdash`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, show

FilesArg = Annotated[list[Path], typer.Argument(help="Known-word files, <model>_balderdash_words1.csv.")]


def known_items_command(
    files: FilesArg,
    out: Annotated[Path, typer.Option("--out", help="Folder for items.csv and labels.csv (judge verdicts).")],
    judge: Annotated[str, typer.Option("--judge", help="The judge's name in labels.csv.")] = "judge",
    as_json: bool = JSON_OPTION,
) -> None:
    """Each generated definition as a contract item (strata player_model, deck, judge_verdict) and
    the judge's True/False as labels; -1/-2 slots counted."""
    import wordplay_audit as wa

    show(wa.balderdash_known_items(files, judge=judge), as_json=as_json, write=out)


def known_command(
    files: FilesArg,
    human: Annotated[
        Path, typer.Option("--human", help="People's labels of the known-items (labels.csv or final.csv).")
    ],
    question: Annotated[str, typer.Option("--question", help="reference or any_sense.")] = "reference",
    top: Annotated[int, typer.Option("--top", min=0, help="Most uncertain words listed.")] = 10,
    seed: SeedOpt = 0,
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the tables.")] = None,
    as_json: bool = JSON_OPTION,
) -> None:
    """Per model the judge's known count (llm_knows_word) and the corrected count of truly known
    words with its interval, and the words to label next."""
    import wordplay_audit as wa

    labels = wa.read_labels(human, accept_final=True)
    result = wa.balderdash_known(files, labels, question=question, top=top, seed=seed)
    show(result, as_json=as_json, write=out, human=str(human))
