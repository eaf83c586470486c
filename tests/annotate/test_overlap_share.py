"""A third rating on a share of the items (``overlap_share``): counts by hand, the manifest,
its check, the CLI and the next round."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.annotate.design import DesignSpec, check_overlap_share, design_campaign
from wordplay_audit.annotate.manifest_check import validate_manifest
from wordplay_audit.errors import InputError, ParameterError


def _items(n: int = 200) -> pd.DataFrame:
    return pd.DataFrame({"item_id": [f"i{k:03d}" for k in range(n)], "game": "wof", "kind": "guess",
                         "player_model": np.where(np.arange(n) % 2, "a", "b")})  # fmt: skip


def test_counts_by_hand():
    """100 items, 4 raters, overlap 2 and 30 % at 3: 70·2 + 30·3 = 230 assignments, loads 57 or 58
    (230 / 4 = 57.5), 30 items rated three times."""
    spec = DesignSpec(n=100, raters=("a", "b", "c", "d"), overlap=2, overlap_share={3: 0.3}, seed=4)
    design = design_campaign(_items(), spec)
    work = design.assignments[~design.assignments["honeypot"]]
    assert len(work) == 230
    per_item = work.groupby("item_id").size()
    assert per_item.value_counts().to_dict() == {2: 70, 3: 30}
    assert sorted(work.groupby("rater").size().tolist()) == [57, 57, 58, 58]
    assert not work.duplicated(["rater", "item_id"]).any()  # three distinct raters
    d = design.to_dict()
    assert d["overlap_share"] == {"3": 0.3} and d["items_by_overlap"] == {"2": 70, "3": 30}


def test_two_levels_and_rounding():
    """45 items, overlap 1, {2: 0.2, 3: 0.1}: round(9.0) = 9 at 2, round(4.5) = 4 at 3 (half to
    even), 32 at 1: 32 + 18 + 12 = 62 assignments."""
    spec = DesignSpec(n=45, raters=("a", "b", "c"), overlap=1, overlap_share={2: 0.2, 3: 0.1})
    design = design_campaign(_items(), spec)
    work = design.assignments[~design.assignments["honeypot"]]
    assert work.groupby("item_id").size().value_counts().to_dict() == {1: 32, 2: 9, 3: 4}
    assert len(work) == 62


def test_without_it_the_design_is_unchanged():
    base = design_campaign(_items(), DesignSpec(n=60, raters=("a", "b", "c"), seed=2))
    same = design_campaign(_items(), DesignSpec(n=60, raters=("a", "b", "c"), seed=2, overlap_share={}))
    pd.testing.assert_frame_equal(base.assignments, same.assignments)
    assert "overlap_share" not in base.to_dict()


@pytest.mark.parametrize(
    ("shares", "match"),
    [({2: 0.3}, "above overlap 2"), ({5: 0.3}, r"in 3\.\.4"), ({3: 0.0}, r"in \(0, 1\]"),
     ({3: 0.7, 4: 0.5}, "sum to 1.2"), ({3: True}, r"in \(0, 1\]"), ([3, 0.3], "mapping")],
)  # fmt: skip
def test_bad_shares_are_named(shares, match):
    with pytest.raises(ParameterError, match=rf"^overlap_share: .*{match}"):
        check_overlap_share(shares, 2, 4)


def _manifest(design: dict) -> dict:
    return {"format": "f", "campaign": "c", "campaign_id": "c1", "kind": "guess", "sources": {},
            "design": design, "assignments": []}  # fmt: skip


def test_the_manifest_check_reads_it(tmp_path):
    design = design_campaign(
        _items(), DesignSpec(n=40, raters=("a", "b", "c"), overlap_share={3: 0.25})
    ).to_dict()
    good = {**design}
    validate_manifest(_manifest(good), tmp_path / "manifest.json", "f")
    for bad, field in (({"2": 0.5}, "design.overlap_share.2"), ({"3": 1.5}, "design.overlap_share.3"),
                       ("0.3", "design.overlap_share")):  # fmt: skip
        with pytest.raises(InputError, match=field):
            validate_manifest(_manifest({**design, "overlap_share": bad}), tmp_path / "manifest.json", "f")


def test_plan_on_the_command_line(run_cli, tmp_path):
    _items(120).to_csv(tmp_path / "items.csv", index=False)
    base = ["annotate", "plan", str(tmp_path / "items.csv"), "--n", "50", "--raters", "a,b,c", "--seed", "1"]
    code, out, err = run_cli(*base, "--out", str(tmp_path / "camp"), "--overlap-share", "3:0.4", "--json")
    assert code == 0, err
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    assert manifest["design"]["overlap_share"] == {"3": 0.4}
    assert manifest["design"]["items_by_overlap"] == {"2": 30, "3": 20}
    rated = pd.DataFrame(manifest["assignments"]).groupby("item_id").size()
    assert rated.value_counts().to_dict() == {2: 30, 3: 20}
    code, _, err = run_cli(*base, "--out", str(tmp_path / "bad"), "--overlap-share", "3:lots")
    assert code == 2 and "overlap-share" in err and "3:lots" in err


def test_a_next_round_follows_the_campaigns_overlap_share():
    """``annotate next``'s assignment of 40 new items in a campaign planned with {3: 0.25}:
    10 items to 3 raters, 30 to 2."""
    from types import SimpleNamespace

    from wordplay_audit.workflow.campaign_assign import round_assignments

    plan = design_campaign(_items(), DesignSpec(n=20, raters=("a", "b", "c"), overlap_share={3: 0.25}))
    campaign = SimpleNamespace(manifest={"design": plan.to_dict()}, assignments=plan.assignments, name="c")
    new = [f"n{k}" for k in range(40)]
    frame, _, _ = round_assignments(campaign, new, np.random.default_rng(3))
    assert frame.groupby("item_id").size().value_counts().to_dict() == {2: 30, 3: 10}


def test_a_round_may_ask_for_its_own_share():
    from types import SimpleNamespace

    from wordplay_audit.workflow.campaign_assign import round_assignments

    plan = design_campaign(_items(), DesignSpec(n=20, raters=("a", "b", "c")))
    campaign = SimpleNamespace(manifest={"design": plan.to_dict()}, assignments=plan.assignments, name="c")
    frame, _, _ = round_assignments(
        campaign, [f"n{k}" for k in range(40)], np.random.default_rng(3), {3: 0.5}
    )
    assert frame.groupby("item_id").size().value_counts().to_dict() == {2: 20, 3: 20}
    with pytest.raises(ParameterError, match="^overlap_share: "):
        round_assignments(campaign, ["n1"], np.random.default_rng(3), {4: 0.5})
