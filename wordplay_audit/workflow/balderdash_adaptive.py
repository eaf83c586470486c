"""``balderdash plan --adaptive``: the labels an adaptive campaign needs against fixed
allocations, from a seeded simulation (:mod:`wordplay_audit.analysis.balderdash.plan_adaptive`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from wordplay_audit.errors import ParameterError


def _per_model(values: Sequence[float] | None, default: float, models: int | None, name: str) -> list[float]:
    """One proportion per model, or ``default`` repeated."""
    if values is None:
        return [default] * (models or 4)
    values = [float(v) for v in values]
    if not values or any(not 0 <= v <= 1 for v in values):
        raise ParameterError(f"{name}: expected proportions in [0, 1], one per model, got {values!r}")
    if models is not None and len(values) != models:
        raise ParameterError(f"{name}: expected {models} values (one per model), got {len(values)}")
    return values


def adaptive_plan(settings: dict) -> dict:
    """The simulation for :func:`~wordplay_audit.workflow.balderdash_sim.plan_labels`' settings."""
    from wordplay_audit.analysis.balderdash.plan_adaptive import AdaptiveDesign, plan_adaptive

    items = settings["items"]
    if not (math.isfinite(items) and items == int(items) and 10 <= items <= 100_000):
        raise ParameterError(
            f"items: with adaptive give a whole number of definitions per model in 10 … 100000, got {items}"
        )
    lists = {k: settings[f"model_{k}"] for k in ("rate", "se", "sp")}
    given = [len(v) for v in lists.values() if v is not None]
    models = settings["models"] if settings["models"] is not None else (given[0] if given else None)
    per = {k: _per_model(lists[k], settings[k], models, f"model_{k}") for k in lists}
    if len({len(v) for v in per.values()}) != 1:
        raise ParameterError("model_rate, model_se, model_sp: give the same number of models")
    for name, low, high in (("campaigns", 2, 10_000), ("batch", 1, 10_000), ("decks", 1, 20)):
        if not low <= settings[name] <= high:
            raise ParameterError(f"{name}: expected a whole number in {low} … {high}, got {settings[name]}")
    design = AdaptiveDesign.even(
        models=len(per["rate"]), decks=settings["decks"], items=int(items), rate=per["rate"], se=per["se"],
        sp=per["sp"],
    )  # fmt: skip
    return plan_adaptive(
        design,
        half_width=settings["rate_halfwidth"],
        campaigns=settings["campaigns"],
        batch=settings["batch"],
        seed=settings["seed"],
        confidence=settings["confidence"],
    )


def adaptive_lines(result: dict) -> list[str]:
    """Text lines of the adaptive simulation's result."""
    lines = [
        f"adaptive plan: {result['design']}; labels until every model's corrected TDR is within "
        f"± {result['half_width']:.3f} ({result['campaigns']} simulated campaigns, batches of "
        f"{result['batch']}, seed {result['seed']})"
    ]
    for method, r in result["methods"].items():
        cover = ", ".join("n/a" if c is None else f"{c:.2f}" for c in r["coverage_per_model"])
        lines.append(
            f"  {method:<13} {r['labels_mean']:7.1f} ± {r['labels_se']:.1f} labels (median "
            f"{r['labels_median']:.0f}); coverage per model {cover}"
        )
        if any(k > 0 for k in r.get("known_share_per_model", [])):
            known = ", ".join(f"{k:.0%}" for k in r["known_share_per_model"])
            lines.append(f"    TDR known (strata labelled in full; left out of coverage) per model: {known}")
        if r.get("all_labelled_share", 0) > 0:
            lines.append(
                f"    {r['all_labelled_share']:.0%} of campaigns labelled every item "
                "(the width was reached only by knowing every TDR)"
            )
    for key, text in (("saving_vs_proportional", "proportional"), ("saving_vs_best_fixed", "best fixed")):
        s = result.get(key)
        if s:
            lines.append(
                f"  adaptive saves {s['labels']:.1f} ± {s['labels_se']:.1f} labels ({s['share']:.1%}) "
                f"against {text} ({s['reference']})"
            )
    return lines
