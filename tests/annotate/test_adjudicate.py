"""``annotate adjudicate`` checks the labels it is given before it sends a dispute anywhere:
questions, labels and contradictions one line naming the file's line; labels of no campaign item counted
or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.support.cli_checks import one_line_error as _one_line_error
from tests.support.tables import write_csv


def _adjudicate_labels(tmp: Path, rows: list[tuple[str, str, str, str]]) -> str:
    frame = pd.DataFrame(rows, columns=["item_id", "rater", "label", "question"]).assign(rater_type="human")
    frame.to_csv(tmp / "labels.csv", index=False)
    return str(tmp / "labels.csv")


@pytest.mark.parametrize(
    ("third", "needle"),
    [
        (("bob", "true", "bogus"), "line 4: question 'bogus' is not a question the campaign's kind 'definition' asks"),
        (("bob", "maybe", "reference"), "line 4: label 'maybe' is not one of false, true"),
        (("ann", "false", "reference"), "line 4: rater 'ann', item ITEM, question 'reference': label 'false' "
                                        "contradicts an earlier row"),
    ],
)  # fmt: skip
def test_adjudicate_checks_questions_labels_and_conflicts(campaign_of_16, run_cli, third, needle):
    item = sorted(pd.read_csv(campaign_of_16 / "camp" / "items.csv", dtype=str)["item_id"])[0]
    rows = [
        (item, "ann", "true", "reference"),
        (item, "ann", "true", "any_sense"),
        (item, *third),
    ]  # lines 2–4
    path = _adjudicate_labels(campaign_of_16, rows)
    code, out, err = run_cli(
        "annotate", "adjudicate", str(campaign_of_16 / "camp"), "--labels", path, "--adjudicator", "dana"
    )
    # was: "no disputed items" (bogus), or a dispute sent to the server (maybe, a conflict)
    _one_line_error(code, out, err, f"{path} {needle.replace('ITEM', repr(item))}")


def test_adjudicate_counts_and_refuses_foreign_labels(campaign_of_12, run_cli, tree_digest):
    tmp, final = campaign_of_12
    rows = [{"item_id": r["item_id"], "rater": who, "rater_type": "human", "label": "true",
             "question": r["question"]} for r in final for who in ("ann", "bob")]  # fmt: skip
    args = ["annotate", "adjudicate", str(tmp / "camp"), "--adjudicator", "dana", "--json", "--labels"]
    before = tree_digest(tmp / "camp")
    foreign = write_csv(tmp / "foreign.csv", [dict(r, item_id="wof:x") for r in rows])
    code, out, err = run_cli(*args, foreign)  # was "no disputed items", rc 0
    _one_line_error(code, out, err, f"{foreign} line 2: item 'wof:x': none of the 8 label rows")
    mixed = write_csv(tmp / "mixed.csv", [*rows, dict(rows[0], item_id="wof:x", label="false")])
    code, out, err = run_cli(*args, mixed)
    assert code == 0, err
    assert json.loads(out) | {"projects": []} == {
        "campaign": "camp", "disputed": 0, "items": 0, "projects": [], "labels_unmatched": 1,
    }  # fmt: skip
    assert tree_digest(tmp / "camp") == before
