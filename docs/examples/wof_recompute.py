"""Wheel of Fortune (LLMike): simulated runs of three scripted players, their final guesses as
items, people's labels on a sample of the lost games, and the win rates recomputed — the
exact-match game master audited, win rates corrected with calibrated intervals.

    python docs/examples/wof_recompute.py --out OUT [--riddles ../shared/corpora/wof/WoF.jsonl]

Prints one JSON object: per model the exact-match, true (simulated) and corrected win rate.
"""

import argparse
import json

import wordplay_audit as wa

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument(
    "--riddles", default=None, help="LLMike's WoF.jsonl (default: the toolkit's demo riddles)"
)
args = parser.parse_args()

riddles = wa.read_riddles(args.riddles) if args.riddles else None
policies = ["frequent-consonant", "random", "overconfident"]
runs = wa.simulate_wof(f"{args.out}/runs", policies=policies, games=200, seed=5, riddles=riddles)
log = wa.read_wof([f"{args.out}/runs/{p}.jsonl" for p in policies])
items = wa.wof_items(log, riddles=riddles).items

lost = items[items["outcome"] != "win"].sample(frac=0.3, random_state=1)  # people label 30 % of the losses
human = runs.truth_labels(lost["item_id"])  # as careful people would: a near miss is a win

result = wa.wof_recompute(log, human)
result.write(f"{args.out}/recompute")
rates = result.to_frame("win_rates").set_index("model")
rates["true"] = runs.to_frame().set_index("model")["true_win_rate"]
columns = ["judge", "true", "corrected", "corrected_low", "corrected_high", "n_labelled"]
print(
    json.dumps(
        rates[columns].rename(columns={"judge": "exact_match"}).to_dict("index"), indent=1, default=float
    )
)
