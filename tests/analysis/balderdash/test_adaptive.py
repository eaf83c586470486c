"""Adaptive campaigns, the analysis side: corrected estimates weighted by an adaptive campaign's inclusion
probabilities, ``balderdash plan --adaptive`` and the width-against-labels plot.

Expected values come from hand calculations, from the truth of simulated populations (with
tolerances from the simulation's own standard error), or from properties of the design."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from wordplay_audit.analysis.balderdash.adaptive_report import adaptive_section, width_history
from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
from wordplay_audit.analysis.balderdash.plan_adaptive import (
    AdaptiveDesign,
    adaptive_batch,
    model_interval,
    plan_adaptive,
    simulate,
    summarise,
)
from wordplay_audit.analysis.correction import JudgeAccuracy
from wordplay_audit.analysis.correction.calibration import randomised_share_interval
from wordplay_audit.analysis.report import Report
from wordplay_audit.corpora.sampling import draw_round, inclusion_probabilities
from wordplay_audit.errors import InputError, ParameterError

NORMAL = CorrectionOptions(method="normal", draws=100)


def _labels(item_ids, truth) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": list(item_ids),
            "rater": "r1",
            "rater_type": "human",
            "label": np.where(truth, "true", "false"),
            "question": "reference",
        }
    )


# --- weighted corrected estimates ------------------------------------------------------------


def test_weighted_rest_share_by_hand():
    # one cell of 10 definitions, all judged true (one post-stratum); 4 labelled: two drawn with
    # π = 1/2 (both true), two with π = 1/5 (one true). Each label stands for 1/π − 1 unlabelled
    # items: share of the rest = (1 + 1 + 4·1 + 4·0)/(1 + 1 + 4 + 4) = 0.6, so the cell's TDR =
    # (3 known true + 6 unlabelled × 0.6)/10 = 0.66; unweighted: (3 + 6 × 3/4)/10 = 0.75.
    ids = [f"i{k}" for k in range(10)]
    obs = pd.DataFrame({"item_id": ids, "model": "m", "deck": "d", "true_def": True, "knows": True})
    labels = _labels(ids[:4], [True, True, True, False])
    weights = [2.0, 2.0, 5.0, 5.0] + [np.nan] * 6
    plain = corrected_rates(obs, labels, metrics=("tdr",), options=NORMAL)
    weighted = corrected_rates(obs.assign(sampling_weight=weights), labels, metrics=("tdr",), options=NORMAL)
    assert plain["ppi"].iloc[0] == pytest.approx(0.75)
    assert weighted["ppi"].iloc[0] == pytest.approx(0.66)


def _two_round_campaign(seed: int, k: int):
    """One model's population of 600 definitions, two frequency bands (200 rare, true rate 0.8;
    400 common, 0.3), judge Se = Sp = 0.8; sampling strata band × verdict. Round 1 draws 10 %
    of every stratum, round 2 another 30 % of the rare strata only (rates changed)."""
    rng = np.random.default_rng([20261130, seed, k])
    band = np.repeat(["rare", "common"], [200, 400])
    truth = rng.random(600) < np.where(band == "rare", 0.8, 0.3)
    verdict = np.where(truth, rng.random(600) < 0.8, rng.random(600) >= 0.8)
    strata = np.char.add(band, verdict.astype(str))
    names = np.unique(strata)
    taken = np.zeros(600, dtype=bool)
    first = draw_round(strata, {s: round(0.1 * (strata == s).sum()) for s in names}, taken, rng)
    taken |= first
    rare = {s: round(0.3 * ((strata == s) & ~taken).sum()) for s in names if s.startswith("rare")}
    second = draw_round(strata, rare, taken, rng)
    taken |= second
    pi = inclusion_probabilities([(strata, first), (strata, second)])
    ids = np.array([f"{k}:{i}" for i in range(600)])
    obs = pd.DataFrame(
        {"item_id": ids, "model": f"m{k:02d}", "deck": "d", "true_def": verdict, "knows": verdict,
         "sampling_weight": np.where(taken, 1 / np.where(taken, pi, 1), np.nan)}
    )  # fmt: skip
    return obs, _labels(ids[taken], truth[taken]), float(truth.mean())


def _assumed(obs: pd.DataFrame) -> dict:
    # the PPI estimate does not use Se/Sp; assumed values skip their (slow) estimation
    acc = JudgeAccuracy(0.8, 0.8, 0.0, 0.0, 0.0, 0, ("assumed",))
    return {"tdr": {m: acc for m in obs["model"].unique()}}


def test_weighted_estimate_unbiased_when_rates_change_in_round_2():
    # 100 simulated campaigns (20 models per call); the estimator post-stratifies on the judge's
    # verdict only, so the band over-sampled in round 2 biases the unweighted estimate. Weighted
    # by 1/π it must lie within 4 simulation SEs of the truth on average; the unweighted one is
    # expected to be off by ≈ 0.1 (≈ 30 SEs) and must be off by more than 10 SEs.
    errors = {"weighted": [], "unweighted": []}
    for seed in range(5):
        parts = [_two_round_campaign(seed, k) for k in range(20)]
        obs = pd.concat([p[0] for p in parts], ignore_index=True)
        labels = pd.concat([p[1] for p in parts], ignore_index=True)
        truth = np.array([p[2] for p in parts])
        for name, frame in (("weighted", obs), ("unweighted", obs.drop(columns="sampling_weight"))):
            table = corrected_rates(
                frame, labels, metrics=("tdr",), options=NORMAL, accuracy=_assumed(obs)
            ).sort_values("model")
            errors[name] += list(table["ppi"].to_numpy() - truth)
    for name, values in errors.items():
        errors[name] = (np.mean(values), np.std(values, ddof=1) / np.sqrt(len(values)))
    mean_w, se_w = errors["weighted"]
    mean_u, se_u = errors["unweighted"]
    print(errors)
    assert abs(mean_w) <= 4 * se_w, errors
    assert mean_u > 10 * se_u, errors


def test_uniform_weights_equal_the_unweighted_estimate():
    # equal π inside every post-stratum: the weighted estimator is the double-sampling one
    obs, labels, _ = _two_round_campaign(0, 0)
    obs = obs.assign(sampling_weight=np.where(obs["sampling_weight"].notna(), 4.0, np.nan))
    a = corrected_rates(obs, labels, metrics=("tdr",), options=NORMAL)
    b = corrected_rates(obs.drop(columns="sampling_weight"), labels, metrics=("tdr",), options=NORMAL)
    assert a["ppi"].iloc[0] == pytest.approx(b["ppi"].iloc[0], abs=1e-12)
    assert a["ppi_low"].iloc[0] == pytest.approx(b["ppi_low"].iloc[0], abs=1e-12)


def test_random_design_refuses_weights():
    obs, labels, _ = _two_round_campaign(0, 0)
    with pytest.raises(ParameterError, match="random"):
        corrected_rates(obs, labels, metrics=("tdr",), design="random", options=NORMAL)


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory):
    from wordplay_audit.corpora.balderdash.simulate import SimConfig
    from wordplay_audit.corpora.balderdash.writer import simulate_to_folder

    folder = tmp_path_factory.mktemp("bd_adaptive")
    simulate_to_folder(folder, seed=3, config=SimConfig(games_per_deck=2, n_rounds=6, labels_per_stratum=8))
    return folder


def _weights_file(folder, export_dir, weight="4", extra=()):
    labels = pd.read_csv(export_dir / "labels.csv", dtype=str)
    ids = sorted(set(labels.loc[labels["rater_type"] == "human", "item_id"]))
    rows = [{"item_id": i, "honeypot": "false", "sampling_weight": weight} for i in ids]
    path = folder / "items.csv"
    pd.DataFrame([*rows, *extra]).to_csv(path, index=False)
    return path, ids


def test_recompute_with_uniform_weights_matches_plain(run_cli, export_dir, tmp_path):
    path, _ = _weights_file(
        tmp_path, export_dir, extra=[{"item_id": "hp1", "honeypot": "true", "sampling_weight": ""}]
    )
    args = [
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
        "--json",
    ]
    code, out, err = run_cli(*args)
    assert code == 0, err
    code_w, out_w, err_w = run_cli(*args, "--weights", str(path))
    assert code_w == 0, err_w
    plain, weighted = json.loads(out), json.loads(out_w)
    assert weighted["weights"] == str(path) and "Rogan" in weighted["weights_note"]
    assert [r["ppi"] for r in weighted["corrected"]] == pytest.approx([r["ppi"] for r in plain["corrected"]])


def test_recompute_out_writes_the_width_report(run_cli, export_dir, tmp_path):
    path, _ = _weights_file(tmp_path, export_dir)
    (tmp_path / "manifest.json").write_text(json.dumps(_manifest()), encoding="utf-8")
    out = tmp_path / "out"
    args = [
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
    ]
    code, stdout, err = run_cli(*args, "--weights", str(path), "--out", str(out), "--json")
    assert code == 0, err
    files = json.loads(stdout)["files"]
    assert set(files) >= {"corrected.csv", "report.html", "width.png", "width_history.csv"}, files
    assert {"judge_audit_reference.csv", "judge_audit_any_sense.csv"} <= set(
        files
    )  # the audit beside the rates
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "<script>" not in html
    assert "<th>rg_unknown</th>" in html and "<th>ppi_unknown</th>" in html
    assert "without a label, counted as unknown in the interval" in html
    assert (out / "width.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "manifest.json").write_text('{"rounds": [{"strata": 3}]}', encoding="utf-8")
    code, stdout, err = run_cli(*args, "--weights", str(path), "--out", str(tmp_path / "out2"))
    assert code == 2 and not (tmp_path / "out2").exists()
    assert len(err.strip().splitlines()) == 1 and "manifest.json: rounds[0].strata" in err


@pytest.mark.parametrize(
    "case, needle",
    [
        ("small", "line 2: sampling_weight '0.5': expected a number ≥ 1"),
        ("missing", "has human labels but no row"),
    ],
)
def test_recompute_bad_weights_exit_2(run_cli, export_dir, tmp_path, case, needle):
    path, ids = _weights_file(tmp_path, export_dir, weight="0.5" if case == "small" else "2")
    if case == "missing":
        pd.read_csv(path, dtype=str).iloc[1:].to_csv(path, index=False)
    args = [
        "balderdash",
        "recompute",
        "--seed",
        "0",
        str(export_dir),
        "--human",
        str(export_dir / "labels.csv"),
    ]
    code, out, err = run_cli(*args, "--weights", str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err and str(path) in err


# --- plan --adaptive ------------------------------------------------------------------------

WORSE_JUDGE = AdaptiveDesign.even(
    models=3, decks=1, items=200, rate=[0.3, 0.5, 0.6], se=[0.9, 0.9, 0.6], sp=[0.9, 0.9, 0.55]
)


def test_adaptive_saves_labels_with_one_much_worse_judge():
    # the worse judge's model needs more labels in its own strata: adaptive allocation must not
    # need more labels than the best fixed design (tolerance: 3 SEs of the paired difference).
    # Against proportional allocation the benchmark's design B saves 32 %; here (≈ 26 %,
    # ≈ 10 SEs) the saving must exceed 3 SEs.
    result = plan_adaptive(WORSE_JUDGE, half_width=0.08, campaigns=12, seed=5)
    saving = result["saving_vs_best_fixed"]
    assert saving["labels"] >= -3 * saving["labels_se"], saving
    versus = result["saving_vs_proportional"]
    assert versus["labels"] > 3 * versus["labels_se"], versus
    assert set(result["methods"]) == {"proportional", "equal", "adaptive", "uncertainty"}
    for method in result["methods"].values():
        assert len(method["coverage_per_model"]) == 3
        assert 0 < method["labels_mean"] <= 600


def test_plan_adaptive_json_and_seeded(run_cli):
    args = ["balderdash", "plan", "--adaptive", "--items", "120", "--model-rate", "0.3,0.6",
            "--model-se", "0.9,0.65", "--model-sp", "0.9,0.6", "--rate-halfwidth", "0.1",
            "--campaigns", "4", "--seed", "3", "--json"]  # fmt: skip
    code, out, err = run_cli(*args)
    assert code == 0, err
    again = run_cli(*args)[1]
    data = json.loads(out)
    assert json.loads(again)["adaptive"] == data["adaptive"]
    adaptive = data["adaptive"]
    assert {"fnr", "corrected_rate", "trend_power", "adaptive"} <= set(data)
    assert {"methods", "saving_vs_proportional", "saving_vs_best_fixed", "campaigns", "seed"} <= set(adaptive)
    assert adaptive["items"] == 240 and adaptive["campaigns"] == 4
    assert all(0 <= k <= 1 for k in adaptive["methods"]["adaptive"]["known_share_per_model"])
    assert 0 <= adaptive["methods"]["adaptive"]["all_labelled_share"] <= 1
    code, text, err = run_cli(*args[:-1])
    assert code == 0 and "adaptive saves" in text


def test_plan_adaptive_counts_known_tdrs_apart(run_cli):
    # 10 definitions per model and ± 0.01: a stratum of ~5 items needs ≥ 5 labels, i.e. all of
    # it, so nearly every campaign knows every TDR exactly; those are left out of coverage
    args = ["balderdash", "plan", "--adaptive", "--items", "10", "--models", "2", "--model-rate", "0.3,0.6",
            "--rate-halfwidth", "0.01", "--campaigns", "3", "--seed", "1"]  # fmt: skip
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    for method in json.loads(out)["adaptive"]["methods"].values():
        assert max(method["known_share_per_model"]) > 0, method
        for share, cover in zip(method["known_share_per_model"], method["coverage_per_model"], strict=True):
            assert (cover is None) == (share == 1), method
    code, text, err = run_cli(*args)
    assert code == 0 and "TDR known (strata labelled in full" in text


@pytest.mark.parametrize(
    "extra, needle",
    [
        ([], "--items"),
        (["--items", "100", "--model-se", "0.9,1.5"], "--model-se"),
        (["--items", "100", "--model-se", "0.9,0.8", "--model-sp", "0.9"], "--model-sp"),
        (["--items", "100", "--models", "2", "--model-rate", "0.1,0.2,0.3"], "--model-rate"),
        (["--items", "100", "--decks", "3", "--model-rate", "x"], "--model-rate"),
    ],
)
def test_plan_adaptive_bad_options_exit_2(run_cli, extra, needle):
    code, out, err = run_cli("balderdash", "plan", "--adaptive", "--campaigns", "2", *extra)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


# the simulation's interval is the toolkit's randomised Clopper–Pearson predictive interval
def test_interval_by_hand():
    # 0 of 5 labels true, v = 0.5, 10 unlabelled: ½·δ₀ + ½·BetaBinomial(10, 1, 5); its cdf is
    # ½ + ½·F (F(4) = 0.916, F(5) = 0.958): 2.5 % quantile 0, 97.5 % the first y with F ≥ 0.95
    assert randomised_share_interval([10], [5], [0], v=[0.5]) == (0.0, 0.5)
    # no label in a stratum with unlabelled items: no interval; everything labelled: known
    assert np.isnan(randomised_share_interval([10, 5], [5, 0], [1, 0], v=[0.5, 0.5])[0])
    both = randomised_share_interval([0, 0], [4, 6], [1, 3], v=[0.5, 0.5], known_true=4, n_total=10)
    assert both == (0.4, 0.4)


def test_model_interval_needs_five_labels_where_items_are_left():
    big_n, v = np.array([3, 40]), np.array([0.5, 0.5])
    assert np.isnan(model_interval(big_n, np.array([3, 4]), np.array([1, 2]), v)[0])  # 4 < 5 labels
    assert np.isnan(model_interval(big_n, np.array([2, 9]), np.array([1, 2]), v)[0])  # 1 of 3 left, 2 labels
    low, high = model_interval(big_n, np.array([3, 5]), np.array([1, 2]), v)  # small stratum in full
    assert 3 / 43 <= low <= high <= 38 / 43  # at least the 3 known true, at most all but 5 known false


def test_summarise_leaves_known_tdrs_out_of_coverage():
    # 4 campaigns × 2 models; model 1's TDR known in campaigns 1–2 (covered trivially)
    labels = {m: np.array([10, 12, 14, 16]) for m in ("proportional", "equal", "adaptive")}
    covered = {m: np.array([[True, True], [True, False], [False, True], [True, True]]) for m in labels}
    known = {m: np.array([[True, False], [True, False], [False, False], [False, False]]) for m in labels}
    out = summarise(labels, covered, known)["methods"]["adaptive"]
    assert out["coverage_per_model"] == [0.5, 0.75]
    assert out["known_share_per_model"] == [0.5, 0.0]
    everything = {m: np.ones((4, 2), dtype=bool) for m in labels}
    assert summarise(labels, covered, everything)["methods"]["equal"]["coverage_per_model"] == [None, None]


def test_simulated_coverage_near_nominal():
    # 2 models × 150 items, half-width 0.1: 150 campaigns × 2 models per method. The
    # randomised Clopper–Pearson interval is nominal at a fixed sample size; the optional stop
    # may move it, so each method's coverage must lie within 3 binomial SEs of 0.95
    # (SE = √(0.95·0.05/300) ≈ 0.013) after leaving out known TDRs (few or none here).
    design = AdaptiveDesign.even(models=2, decks=1, items=150, rate=[0.3, 0.6], se=[0.9, 0.7], sp=[0.9, 0.7])
    labels, covered, known = simulate(design, campaigns=150, seed=11, half_width=0.1)
    for method in labels:
        inside, full = covered[method], known[method]
        total = int((~full).sum())
        share = float((inside & ~full).sum() / total)
        se = np.sqrt(0.95 * 0.05 / total)
        assert abs(share - 0.95) <= 3 * se, (method, share, total)


def test_adaptive_batch_labels_a_one_item_stratum():
    # a stratum of one item has no variance (N/(N − 1) is undefined), but the interval needs
    # its label; without it the campaign would never stop
    big_n, n, x, model = np.array([1, 50, 30]), np.array([0, 5, 5]), np.array([0, 2, 4]), np.array([0, 0, 1])
    add = adaptive_batch(big_n, n, x, model, 3)
    assert add[0] == 1 and add.sum() == 3


def test_confirmation_batch_only_adds_labels():
    # the same campaign with the stop rule required on one more batch follows the same draws up
    # to the first stop, then labels at least one more batch (or everything that is left)
    design = AdaptiveDesign.even(models=2, decks=1, items=80, rate=[0.3, 0.6], se=[0.9, 0.8], sp=[0.9, 0.8])
    plain = simulate(design, campaigns=6, seed=2, half_width=0.12, methods=("adaptive",))[0]["adaptive"]
    confirmed = simulate(design, campaigns=6, seed=2, half_width=0.12, methods=("adaptive",), confirm=1)[0]
    assert (confirmed["adaptive"] >= np.minimum(plain + 20, 160)).all(), (plain, confirmed)
    with pytest.raises(ParameterError, match="confirm"):
        simulate(design, campaigns=2, seed=0, confirm=-1)
    with pytest.raises(ParameterError, match="unknown"):
        simulate(design, campaigns=2, seed=0, stop="late")


def test_benchmark_uses_the_library_simulation(load_benchmark):
    from wordplay_audit.analysis.balderdash import plan_adaptive as lib

    assert load_benchmark("sim_adaptive_allocation").simulate is lib.simulate


# --- width against labels -------------------------------------------------------------------


def _manifest(target="tdr <script>alert(1)</script> $x$"):
    def record(r, labelled, add, before, after):
        return {
            "round": r,
            "strata": [{"labelled": n, "add": a} for n, a in zip(labelled, add, strict=True)],
            "half_width_before": {target: before, "fnr m": None if r == 2 else before / 2},
            "half_width_after": {target: after, "fnr m": after / 2},
        }

    return {"rounds": [record(2, [10, 10], [15, 5], 0.2, 0.15), record(3, [25, 15], [10, 10], 0.16, 0.12)]}


def test_width_history_by_hand():
    history = width_history(_manifest("t"))
    t = history[history["target"] == "t"]
    assert t["labels"].tolist() == [20, 40] and t["labels_after"].tolist() == [40, 60]
    assert t["half_width"].tolist() == [0.2, 0.16] and t["predicted"].tolist() == [0.15, 0.12]
    assert np.isnan(history.loc[history["target"] == "fnr m", "half_width"].iloc[0])


def test_width_section_has_a_figure_and_escapes_text():
    section = adaptive_section(_manifest())
    html = section.render("s0")
    assert "data:image/png;base64," in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    report = Report("r")
    report.add(section)
    assert "<script>" not in report.render()
    empty = adaptive_section({"rounds": []}).render("s1")
    assert "No adaptive round yet" in empty


def test_width_history_refuses_a_bad_manifest():
    bad = _manifest("t")
    bad["rounds"][1]["half_width_after"] = {"t": "wide"}
    with pytest.raises(InputError, match=r"rounds\[1\]\.half_width_after\.t"):
        width_history(bad, source="manifest.json")
