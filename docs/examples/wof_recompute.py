"""Wheel of Fortune (LLMike): simulated runs of three scripted players, their final guesses as
items, people's labels on a sample of the lost games, and the win rates recomputed — the
exact-match game master audited, win rates corrected with calibrated intervals.

    python docs/examples/wof_recompute.py --out OUT [--riddles ../shared/corpora/wof/WoF.jsonl]

Prints one JSON object: per model the exact-match, true (simulated) and corrected win rate.
"""

import argparse
import json

import numpy as np
import pandas as pd

import wordplay_audit as wa

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--riddles", default=None, help="LLMike's WoF.jsonl (default: the toolkit's demo riddles)")
args = parser.parse_args()

riddles = wa.read_riddles(args.riddles) if args.riddles else None
runs = wa.simulate_wof(f"{args.out}/runs", policies=["frequent-consonant", "random", "overconfident"],
                       games=200, seed=5, riddles=riddles)
log = wa.read_wof([f"{args.out}/runs/{p}.jsonl" for p in ("frequent-consonant", "random", "overconfident")])
items = wa.wof_items(log, riddles=riddles).items

truth = pd.read_csv(f"{args.out}/runs/truth.csv", keep_default_na=False).set_index("item_id")["truly_solved"]
lost = items[items["outcome"] != "win"].sample(frac=0.3, random_state=np.random.default_rng(1).integers(2**31))
human = pd.DataFrame({"item_id": lost["item_id"], "rater": "person", "rater_type": "human",
                      "label": np.where(truth.loc[lost["item_id"]].to_numpy(), "true", "false")})

result = wa.wof_recompute(log, human)
result.write(f"{args.out}/recompute")
rates = result.to_frame("win_rates").set_index("model")
simulated = runs.to_frame().set_index("model")["true_win_rate"]
print(json.dumps({
    model: {"exact_match": row["judge"], "true": simulated[model], "corrected": row["corrected"],
            "corrected_low": row["corrected_low"], "corrected_high": row["corrected_high"], "labelled": row["n_labelled"]}
    for model, row in rates.iterrows()
}, indent=1, default=float))
