"""Balderdash, end to end in file mode: a simulated campaign's definitions as items, a stratified
overlapping sample for three raters, their task files, scripted answers (the simulation's
truth, 90 % accurate), the answers imported, agreement, the judge audited per model, LKR and TDR
corrected, convergence and trend tests, and the full report.

    python docs/examples/balderdash_audit.py --out OUT

Prints one JSON object of the key results.
"""

import argparse
import json

import pandas as pd

import wordplay_audit as wa

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
out = parser.parse_args().out

wa.simulate_balderdash(f"{out}/sim", seed=1, labels_per_stratum=0)  # an export with known truth
data = wa.read_balderdash(f"{out}/sim")
items = wa.balderdash_items(data)
plan = wa.plan_campaign(items.items, out=f"{out}/campaign", n=300, raters=["ann", "bob", "cyd"], overlap=2,
                        strata=["player_model", "deck", "judge_verdict"], seed=7)
wa.export_task_files(f"{out}/campaign", out=f"{out}/tasks")  # what each rater imports into Label Studio

truth = pd.read_csv(f"{out}/sim/truth.csv")  # the simulation's truth stands in for careful raters
known = pd.concat([truth.assign(question="reference", label=truth["true_ref"]),
                   truth.assign(question="any_sense", label=truth["true_any"])])
known["label"] = known["label"].map({True: "true", False: "false"})
answers = wa.simulate_answers(f"{out}/campaign", known, out=f"{out}/answers", accuracy=0.9, seed=3)
pulled = wa.import_answers(f"{out}/campaign", answers.exports, out=f"{out}/pulled")

agreement = wa.agreement(pulled.labels, question="reference", bootstrap=200)
audit = wa.judge_audit(items.labels, pulled.labels, items=items.items, by=["player_model"], bootstrap=200)
corrected = wa.balderdash_recompute(data, pulled.labels)
convergence = wa.balderdash_convergence(data, pulled.labels, eps=[0.1, 0.2])
trend = wa.balderdash_trend(data, pulled.labels)
report = wa.balderdash_report(data, pulled.labels)
report.write(f"{out}/report")

tdr = corrected.to_frame().query("metric == 'tdr'")
print(json.dumps({
    "sampled": plan.to_dict()["design"]["n"],
    "labels": len(pulled.labels),
    "final": pulled.to_dict()["final_sources"],
    "fleiss_kappa": agreement.to_dict()["fleiss_kappa"]["value"],
    "judge_fnr": dict(zip(audit.to_frame()["player_model"], audit.to_frame()["fnr"])),
    "tdr_corrected": [{k: r[k] for k in ("model", "deck", "judge", "ppi", "ppi_low", "ppi_high")} for r in tdr.to_dict("records")],
    "converged_window": int(convergence.to_frame()["converged_window"].fillna(False).astype(bool).sum()),
    "trend_rows": len(trend.to_frame()),
    "report": f"{out}/report/report.html",
}, indent=1, default=float))
