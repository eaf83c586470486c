"""`judge fit` cannot return a constant judge: the default objective weighs both classes
(Youden's J), a constant best cut is refused naming the objective, and the fit reports the
cross-validated sensitivity and specificity beside F1, and a Platt calibration. Expected values
by hand, scikit-learn (rates, Brier score) and statsmodels (the calibration's likelihood fit)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from sklearn.metrics import brier_score_loss, f1_score, recall_score
from sklearn.model_selection import StratifiedKFold

from wordplay_audit.errors import InputError, ParameterError
from wordplay_audit.judges.fit import best_threshold, fit_platt, fit_threshold, load_fit

# 8 true, 2 false (80 % positives). F1 = 2TP / (2TP + FP + FN) of each cut "score ≥ t" (TP, FP, FN):
# ≥.9 (1,0,7) 2/9 = .22; ≥.8 (2,0,6) 4/10 = .40; ≥.7 (2,1,6) 4/11 = .36; ≥.6 (3,1,5) 6/12 = .50;
# ≥.5 (4,1,4) 8/13 = .62; ≥.4 (5,1,3) 10/14 = .71; ≥.3 (5,2,3) 10/15 = .67; ≥.2 (6,2,2) 12/16 = .75;
# ≥.1 (7,2,1) 14/17 = .82; ≥.05 (8,2,0) 16/18 = .89: the F1-best cut calls every pair true.
# Youden's J = TP/8 − FP/2: ≥.9 1/8; ≥.8 2/8 = .25 (the best); ≥.7 2/8 − 1/2; … ; ≥.05 1 − 1 = 0.
SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05])
TRUTH = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1], bool)
IDS = [f"i{k}" for k in range(10)]


def _series():
    return pd.Series(SCORES, index=IDS), pd.Series(TRUTH, index=IDS)


def test_f1_picks_the_constant_youden_does_not():
    t, f1 = best_threshold(SCORES, TRUTH, objective="f1")
    assert f1 == pytest.approx(16 / 18) and t < SCORES.min()
    t, j = best_threshold(SCORES, TRUTH)  # the default: youden
    assert j == pytest.approx(0.25) and t == pytest.approx(0.75)


def test_a_constant_fit_is_refused_naming_the_objective():
    scores, truth = _series()
    with pytest.raises(ParameterError) as info:
        fit_threshold(scores, truth, judge="tfidf", folds=2, objective="f1")
    message = str(info.value)
    assert message.startswith("objective: 'f1' gives a constant: its best threshold")
    assert "judges all 10 labelled items true (8 of them true by the human labels)" in message
    assert "`objective` 'youden' weighs both classes" in message


def test_scores_that_do_not_separate_are_refused_under_youden_too():
    # every false pair scores above every true one: J = TPR − FPR < 0 at every cut but the
    # lowest (all true, J = 0), so the best cut is the constant
    scores = pd.Series([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], index=list("abcdef"))
    truth = pd.Series([True, True, True, False, False, False], index=list("abcdef"))
    with pytest.raises(
        ParameterError, match=r"^objective: 'youden' gives a constant: .*do not separate the human labels"
    ):
        fit_threshold(scores, truth, judge="tfidf", folds=2)


def test_the_default_fit_reports_sensitivity_and_specificity():
    scores, truth = _series()
    fit = fit_threshold(scores, truth, judge="tfidf", folds=2, seed=3)
    assert fit.objective == "youden" and fit.threshold == pytest.approx(0.75)
    # in-sample at ≥ .75: TP 2 of 8, TN 2 of 2
    ins = fit.in_sample
    assert (ins["tp"], ins["fp"], ins["fn"], ins["tn"]) == (2, 0, 6, 2)
    assert ins["sensitivity"] == pytest.approx(2 / 8) and ins["specificity"] == 1.0
    assert ins["youden"] == pytest.approx(0.25) and ins["f1"] == pytest.approx(4 / 10)
    y = pd.Series(TRUTH, index=IDS).loc[fit.item_ids].to_numpy()
    cv = fit.cv
    assert cv["sensitivity"] == pytest.approx(recall_score(y, fit.oof_pred, pos_label=True))
    assert cv["specificity"] == pytest.approx(recall_score(y, fit.oof_pred, pos_label=False))
    assert cv["recall"] == cv["sensitivity"] and cv["f1"] == pytest.approx(f1_score(y, fit.oof_pred))
    assert cv["tp"] + cv["fn"] == 8 and cv["tn"] + cv["fp"] == 2


def _platt_by_statsmodels(s: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Platt's fit as a binomial GLM on his smoothed targets (N₊+1)/(N₊+2) and 1/(N₋+2)."""
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    target = np.where(y, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    glm = sm.GLM(target, sm.add_constant(s), family=sm.families.Binomial()).fit()
    return float(glm.params[1]), float(glm.params[0])


def test_platt_calibration_matches_a_binomial_glm():
    rng = np.random.default_rng(7)
    y = rng.random(300) < 0.7
    s = np.where(y, rng.normal(0.6, 0.15, 300), rng.normal(0.35, 0.15, 300))
    slope, intercept = fit_platt(s, y)
    want_slope, want_intercept = _platt_by_statsmodels(s, y)
    assert slope == pytest.approx(want_slope, rel=1e-4) and intercept == pytest.approx(
        want_intercept, rel=1e-4
    )
    # separable scores stay finite (the smoothed targets): a plain logistic fit would diverge
    sep_s, sep_y = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9]), np.array([0, 0, 0, 1, 1, 1], bool)
    slope, intercept = fit_platt(sep_s, sep_y)
    assert np.isfinite([slope, intercept]).all()
    assert slope == pytest.approx(_platt_by_statsmodels(sep_s, sep_y)[0], rel=1e-4)


def test_the_fit_carries_its_calibration_and_the_cv_brier_score():
    rng = np.random.default_rng(11)
    n = 200
    y = rng.random(n) < 0.75
    s = np.where(y, rng.normal(0.55, 0.2, n), rng.normal(0.3, 0.2, n))
    ids = [f"k{i}" for i in range(n)]
    fit = fit_threshold(pd.Series(s, index=ids), pd.Series(y, index=ids), judge="embed", folds=4, seed=5)
    want_slope, want_intercept = _platt_by_statsmodels(s, y)
    assert fit.calibration["method"] == "platt"
    assert fit.calibration["slope"] == pytest.approx(want_slope, rel=1e-4)
    assert fit.calibration["intercept"] == pytest.approx(want_intercept, rel=1e-4)
    # out-of-fold probabilities: statsmodels on each training fold, applied to its held-out fold
    oof = np.zeros(n)
    for train, test in StratifiedKFold(n_splits=4, shuffle=True, random_state=5).split(s, y):
        a, b = _platt_by_statsmodels(s[train], y[train])
        oof[test] = 1 / (1 + np.exp(-(a * s[test] + b)))
    assert fit.cv["brier"] == pytest.approx(brier_score_loss(y, oof), rel=1e-5)
    labels = fit.oof_labels()
    assert labels["calibrated"].to_numpy() == pytest.approx(oof, rel=1e-4)
    assert labels["score"].to_numpy() == pytest.approx(s) and set(labels["score_source"]) == {"similarity"}


def _fit_files(tmp_path, n=40):
    rows = [{"item_id": f"f{k:02d}", "game": "demo", "kind": "guess", "context": "c",
             "reference": f"word{k} thing", "candidate": f"word{k} thing" if k % 3 else f"other{k} stuff"}
            for k in range(n)]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    # people call two in three pairs the same, and one of the differing ones too
    human = [{"item_id": f"f{k:02d}", "rater": "ann", "rater_type": "human",
              "label": "true" if k % 3 or k % 9 == 0 else "false"} for k in range(n)]  # fmt: skip
    pd.DataFrame(human).to_csv(tmp_path / "human.csv", index=False)
    return [
        "judge",
        "fit",
        str(tmp_path / "items.csv"),
        "--human",
        str(tmp_path / "human.csv"),
        "--judge",
        "tfidf",
    ]


def test_cli_fit_reports_cv_sensitivity_and_specificity_and_run_uses_the_calibration(run_cli, tmp_path):
    args = _fit_files(tmp_path)
    code, out, err = run_cli(*args, "--out", str(tmp_path / "fit.json"), "--folds", "3")
    assert code == 0, err
    assert "(youden)" in out and "3-fold cross-validated sensitivity " in out and ", specificity " in out
    assert "cross-validated Brier score" in out
    fit = json.loads((tmp_path / "fit.json").read_text())
    assert {"sensitivity", "specificity", "f1", "tp", "tn", "brier", "constant_folds"} <= set(fit["cv"])
    assert fit["objective"] == "youden" and fit["calibration"]["method"] == "platt"
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "tfidf", "--fit",
                             str(tmp_path / "fit.json"), "--out", str(tmp_path / "l.csv"))  # fmt: skip
    assert code == 0, err
    labels = pd.read_csv(tmp_path / "l.csv")
    a, b = fit["calibration"]["slope"], fit["calibration"]["intercept"]
    assert labels["calibrated"].to_numpy() == pytest.approx(1 / (1 + np.exp(-(a * labels["score"] + b))))
    assert set(labels["score_source"]) == {"similarity"}


def test_cli_f1_fit_that_is_constant_is_one_line_naming_the_option(run_cli, tmp_path):
    # every pair called true by people but the two least similar: the F1-best cut is "all true"
    rows = [{"item_id": f"c{k}", "game": "demo", "kind": "guess", "context": "c", "reference": f"alpha {k}",
             "candidate": f"alpha {k}" if k < 8 else f"zz{k}"} for k in range(12)]  # fmt: skip
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    labels = ["true"] * 12
    labels[2] = labels[5] = "false"  # two false among the identical pairs: no cut separates them
    pd.DataFrame({"item_id": [f"c{k}" for k in range(12)], "rater": "p", "rater_type": "human",
                  "label": labels}).to_csv(tmp_path / "human.csv", index=False)  # fmt: skip
    code, out, err = run_cli("judge", "fit", str(tmp_path / "items.csv"), "--human", str(tmp_path / "human.csv"),
                             "--judge", "tfidf", "--objective", "f1", "--folds", "2", "--out", str(tmp_path / "fit.json"))  # fmt: skip
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert (
        err.startswith("error: --objective: 'f1' gives a constant: its best threshold")
        and "judges all 12 labelled items true" in err
    )
    assert "`--objective` 'youden' weighs both classes" in err and not (tmp_path / "fit.json").exists()


def test_a_fit_file_marked_degenerate_is_refused_by_run(run_cli, tmp_path):
    _fit_files(tmp_path)
    fit = tmp_path / "old.json"
    fit.write_text(
        json.dumps({"judge": "tfidf", "threshold": -5e-7, "in_sample": {"f1": 0.8, "degenerate": True}})
    )
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "tfidf", "--fit", str(fit),
                             "--out", str(tmp_path / "l.csv"))  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and not (tmp_path / "l.csv").exists()
    assert f"{fit}: in_sample.degenerate: the fit judges every labelled item the same" in err


@pytest.mark.parametrize("calibration", [{"method": "isotonic"}, {"method": "platt", "slope": "x", "intercept": 0},
                                         {"method": "platt", "slope": float("nan"), "intercept": 0}, [1, 2]])  # fmt: skip
def test_a_bad_calibration_in_a_fit_file_is_one_line(tmp_path, calibration):
    fit = tmp_path / "fit.json"
    fit.write_text(json.dumps({"judge": "tfidf", "threshold": 0.3, "calibration": calibration}))
    with pytest.raises(InputError, match=r": calibration: expected \{\"method\": \"platt\""):
        load_fit(fit, judge="tfidf")


def test_a_fit_file_without_calibration_runs_without_calibrated_probabilities(run_cli, tmp_path):
    _fit_files(tmp_path)
    fit = tmp_path / "fit.json"
    fit.write_text(json.dumps({"judge": "tfidf", "threshold": 0.5}))
    code, out, err = run_cli("judge", "run", str(tmp_path / "items.csv"), "--judge", "tfidf", "--fit", str(fit),
                             "--out", str(tmp_path / "l.csv"))  # fmt: skip
    assert code == 0, err
    labels = pd.read_csv(tmp_path / "l.csv")
    assert labels["calibrated"].isna().all() and labels["score"].notna().all()
