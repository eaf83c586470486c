"""The campaign folder as ``annotate status`` and ``export-files`` read it: a hand-edited
``manifest.json`` or ``items.csv`` is one line naming the field (exit 2, nothing written); a BOM is fine."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.support import campaigns
from tests.support.cli_checks import one_line_error as _one_line_error


def _edit(camp: Path, change) -> None:
    manifest = campaigns.read_manifest(camp)
    change(manifest)
    (camp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _set(path: str, value):
    def change(m):
        keys = [int(k) if k.isdigit() else k for k in path.split(".")]
        target = m
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


def _delete(m):
    del m["design"]["raters"]


MANIFEST_CASES = [
    (_set("assignments.0.honeypot", "false"), 'assignments[0].honeypot: expected true/false, got "false"'),
    (_set("design.raters", "ann"), 'design.raters: expected a list of names, got "ann"'),
    (_set("design", []), "design: expected an object, got []"),
    (_delete, "design.raters: missing"),
    (_set("assignments.0.item_id", "nosuch"), "assignments[0].item_id: item 'nosuch' is not in"),
    (_set("assignments.0.position", "x"), 'assignments[0].position: expected a whole number ≥ 1, got "x"'),
    (
        _set("design.overlap", "two"),
        'design.overlap: expected a whole number of raters per item, 1 to 2, got "two"',
    ),
    (_set("design.strata_columns", 5), "design.strata_columns: expected a list of names, got 5"),
    (_set("design.raters", []), "design.raters: expected a list of names, got []"),
    (_set("sources", []), "sources: expected an object, got []"),
    (_set("rounds", [{}]), "rounds[0].round: missing"),
    (_set("rounds", [{"round": 2, "budget": "x"}]), 'rounds[0].budget: expected a whole number ≥ 1, got "x"'),
]


@pytest.mark.parametrize(("change", "needle"), MANIFEST_CASES)
def test_a_hand_edited_manifest_is_one_line_naming_the_field(
    campaign_of_16, run_cli, tree_digest, change, needle
):
    camp = campaign_of_16 / "camp"
    _edit(camp, change)
    before = tree_digest(camp)
    for args in (
        ["status", str(camp), "--labels", str(campaign_of_16 / "final.csv")],
        ["export-files", str(camp), "--out", str(campaign_of_16 / "f")],
    ):
        code, out, err = run_cli("annotate", *args)
        _one_line_error(code, out, err, f"{camp / 'manifest.json'}: {needle}")
    assert tree_digest(camp) == before and not (campaign_of_16 / "f").exists()


def test_a_manifest_that_is_not_utf8_is_one_line(campaign_of_16, run_cli):
    camp = campaign_of_16 / "camp"
    text = (camp / "manifest.json").read_bytes()
    (camp / "manifest.json").write_bytes(text.replace(b'"campaign"', b'"camp\xffaign"', 1))  # line 3
    code, out, err = run_cli("annotate", "status", str(camp), "--labels", str(campaign_of_16 / "final.csv"))
    _one_line_error(code, out, err, f"{camp / 'manifest.json'} line 3: not UTF-8 text (byte 0xff)")


def test_a_truncated_campaign_items_csv_is_one_line(campaign_of_16, run_cli):
    camp = campaign_of_16 / "camp"
    lines = (camp / "items.csv").read_text().splitlines(keepends=True)
    (camp / "items.csv").write_text("".join(lines[:-1]))  # the last item gone
    lost = pd.read_csv(campaign_of_16 / "camp" / "items.csv", dtype=str)  # 15 rows now
    missing = next(
        a for a in campaigns.read_manifest(camp)["assignments"] if a["item_id"] not in set(lost["item_id"])
    )
    index = campaigns.read_manifest(camp)["assignments"].index(missing)
    code, out, err = run_cli(
        "annotate", "export-files", str(camp), "--out", str(campaign_of_16 / "f")
    )  # was KeyError
    _one_line_error(
        code,
        out,
        err,
        f"assignments[{index}].item_id: item {missing['item_id']!r} is not in {camp / 'items.csv'}",
    )


def test_a_manifest_with_a_bom_is_read(campaign_of_16, run_cli):
    camp = campaign_of_16 / "camp"
    (camp / "manifest.json").write_bytes(b"\xef\xbb\xbf" + (camp / "manifest.json").read_bytes())
    code, _out, err = run_cli("annotate", "status", str(camp), "--labels", str(campaign_of_16 / "final.csv"))
    assert code == 0, err  # was: "Unexpected UTF-8 BOM"
