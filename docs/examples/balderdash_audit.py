"""Balderdash, end to end in file mode: a simulated campaign's definitions as items, a stratified
overlapping sample for three raters, their task files, scripted answers (the simulation's
truth, 90 % accurate), the answers imported, agreement, the judge audited per model, LKR and TDR
corrected, convergence and trend tests, and the full report.

    python docs/examples/balderdash_audit.py --out OUT

Prints one JSON object of the key results.
"""

import argparse
import json

import wordplay_audit as wa

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
out = parser.parse_args().out

sim = wa.simulate_balderdash(f"{out}/sim", seed=1, labels_per_stratum=0)  # an export with known truth
data = wa.read_balderdash(f"{out}/sim")
items = wa.balderdash_items(data)
strata = ["player_model", "deck", "judge_verdict"]
plan = wa.plan_campaign(
    items.items, out=f"{out}/campaign", n=300, raters=["ann", "bob", "cyd"], strata=strata, seed=7
)
wa.export_task_files(f"{out}/campaign", out=f"{out}/tasks")  # what each rater imports into Label Studio
# scripted raters, 90 % accurate on the simulation's truth, stand in for people
answers = wa.simulate_answers(f"{out}/campaign", sim.truth_labels, out=f"{out}/answers", accuracy=0.9, seed=3)
pulled = wa.import_answers(f"{out}/campaign", answers.exports, out=f"{out}/pulled")

agreement = wa.agreement(pulled.labels, question="reference", bootstrap=200)
audit = wa.judge_audit(items.labels, pulled.final, items=items.items, by=["player_model"], bootstrap=200)
corrected = wa.balderdash_recompute(data, pulled.final)
convergence = wa.balderdash_convergence(data, pulled.final, eps=[0.1, 0.2])
trend = wa.balderdash_trend(data, pulled.final)
wa.balderdash_report(data, pulled.final).write(f"{out}/report")

tdr = corrected.to_frame().query("metric == 'tdr'")[["model", "deck", "judge", "ppi", "ppi_low", "ppi_high"]]
fnr = audit.to_frame().set_index("player_model")["fnr"]
found = {
    "sampled": plan.to_dict()["design"]["n"],
    "labels": len(pulled.labels),
    "final": pulled.to_dict()["final_settled_by"],
    "fleiss_kappa": agreement.to_dict()["fleiss_kappa"]["value"],
    "judge_fnr": fnr.to_dict(),
    "tdr_corrected": tdr.to_dict("records"),
    "converged_window": int(convergence.to_frame()["converged_window"].fillna(False).astype(bool).sum()),
    "trend_rows": len(trend.to_frame()),
    "report": f"{out}/report/report.html",
}
print(json.dumps(found, indent=1, default=float))
