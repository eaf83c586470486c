"""The randomised intervals' seed: explicit, recorded, fresh per run by default (``wof recompute
--seed``, ``wa.wof_recompute(seed=)``, ``recompute_wins(seed=)``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.correction import SEED_NOTE
from wordplay_audit.analysis.wof.recompute import recompute_wins
from wordplay_audit.errors import ParameterError


def _campaign():
    """One model, 60 games: 6 exact wins, 12 of the 54 lost games labelled (4 truly solved)."""
    ids = [f"wof:m:{g}" for g in range(60)]
    items = pd.DataFrame({"item_id": ids, "game": "wof", "kind": "guess", "player_model": "m",
                          "reference": [f"R{g}" for g in range(60)]})  # fmt: skip
    judge = pd.DataFrame({"item_id": ids, "rater": "wof-exact-match", "rater_type": "judge",
                          "label": ["true"] * 6 + ["false"] * 54})  # fmt: skip
    people = pd.DataFrame({"item_id": ids[6:18], "rater": "ann", "rater_type": "human",
                           "label": ["true"] * 4 + ["false"] * 8})  # fmt: skip
    return items, judge, people


def test_the_default_seed_is_fresh_and_recorded():
    runs = [recompute_wins(*_campaign()) for _ in range(3)]
    seeds = [r.to_dict()["seed"] for r in runs]
    assert all(isinstance(s, int) and 0 <= s < 2**32 for s in seeds)
    assert len(set(seeds)) == 3  # a collision has probability ~1e-9
    again = recompute_wins(*_campaign(), seed=seeds[0])
    pd.testing.assert_frame_equal(again.rates, runs[0].rates)


def test_the_seed_moves_the_randomised_bounds():
    """Same model name, same first game: the seed alone now changes v (before, a user always
    got v from (0, the first game))."""
    bounds = [
        recompute_wins(*_campaign(), seed=s).rates.loc[0, ["corrected_low", "corrected_high"]]
        for s in range(6)
    ]
    assert len({b.iloc[0] for b in bounds}) > 1 and len({b.iloc[1] for b in bounds}) > 1


@pytest.mark.parametrize("bad", [-1, 2**32, 1.5, True, "7"])
def test_a_bad_seed_is_named(bad):
    with pytest.raises(ParameterError, match=r"^seed: expected a whole number"):
        recompute_wins(*_campaign(), seed=bad)


def test_the_command_records_and_reuses_its_seed(run_cli, tmp_path):
    code, _, err = run_cli("wof", "simulate", "--out", str(tmp_path / "sim"), "--games", "80", "--seed", "3")
    assert code == 0, err
    truth = pd.read_csv(tmp_path / "sim" / "truth.csv", keep_default_na=False)
    lost = truth[~truth["exact_match"].astype(str).isin(["True", "true"])].head(30)
    labels = pd.DataFrame({"item_id": lost["item_id"], "rater": "ann", "rater_type": "human",
                           "label": np.where(lost["truly_solved"].astype(str).isin(["True", "true"]), "true", "false")})  # fmt: skip
    labels.to_csv(tmp_path / "labels.csv", index=False)
    args = ["wof", "recompute", str(tmp_path / "sim"), "--human", str(tmp_path / "labels.csv")]
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    first = json.loads(out)
    code, out, err = run_cli(*args, "--json", "--seed", str(first["seed"]))
    assert code == 0, err
    assert json.loads(out)["win_rates"] == first["win_rates"]
    code, out, err = run_cli(*args, "--seed", "11")
    assert code == 0, err
    assert SEED_NOTE.format(seed=11) in out
