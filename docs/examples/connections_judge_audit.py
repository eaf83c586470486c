"""Connections: audit a TF-IDF judge of the category names against the study's human decisions,
and correct every model's categorical-reasoning (CR) score with a 30 % human sample.

    python docs/examples/connections_judge_audit.py --out OUT [--data ../shared/corpora/connections]

Prints one JSON object: per model the CR score under the study's decisions, under the judge,
corrected with its 95 % interval, and the judge's F1 and FNR against the study.
"""

import argparse
import json
import os

import numpy as np

import wordplay_audit as wa

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument(
    "--data", default=os.environ.get("WORDPLAY_AUDIT_SHARED", "../shared/corpora") + "/connections"
)
args = parser.parse_args()

data = wa.read_connections(args.data)
score = wa.connections_score(data)  # Tables 1 and 5 reproduced; the study's CR scores
score.write(f"{args.out}/score")
contract = wa.connections_items(data)
items = contract.items[contract.items["kind"] == "category_name"]
decisions = contract.labels[contract.labels["item_id"].isin(items["item_id"])]  # the study's Yes/No

fit = wa.fit_judge(items, decisions, judge="tfidf")  # threshold by cross-validated Youden's J
judged = wa.run_judge(items, judge="tfidf", fit=fit)
audit = wa.judge_audit(judged.labels, decisions, items=items, by=["player_model"], bootstrap=200)

sample = decisions.sample(frac=0.3, random_state=np.random.default_rng(0).integers(2**31))
cr = wa.connections_recompute(data, judge_labels=judged.labels, human=sample)
cr.write(f"{args.out}/recompute")

audit_rows = audit.to_frame().set_index("player_model")
print(
    json.dumps(
        {
            "threshold": fit.to_dict()["threshold"],
            "cv": {k: fit.to_dict()["cv"][k] for k in ("sensitivity", "specificity", "f1")},
            "models": {
                m["model"]: {
                    "cr_study": m["cr_study_mean"],
                    "cr_judge": m["cr_judge_mean"],
                    "cr_corrected": m["cr_corrected_mean"],
                    "n_human_labelled": m["n_human_labelled"],
                    "judge_f1": audit_rows.loc[m["model"], "f1"],
                    "judge_fnr": audit_rows.loc[m["model"], "fnr"],
                }
                for m in cr.to_dict()["models"]
            },
        },
        indent=1,
    )
)
