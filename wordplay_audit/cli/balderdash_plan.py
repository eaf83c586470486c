"""``wordplay-audit balderdash plan``: human labels for chosen interval widths, the trend test's
power, and with ``--adaptive`` the labels an adaptive campaign saves (seeded simulation).

Registered on the ``balderdash`` group by :mod:`wordplay_audit.cli.balderdash`.
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from wordplay_audit.cli.output import JSON_OPTION, SeedOpt, emit
from wordplay_audit.errors import ParameterError

ModelList = Annotated[
    str | None,
    typer.Option(help="With --adaptive: one value per model, comma-separated (default: the scalar option)."),
]


def _per_model(text: str | None, default: float, models: int | None, option: str) -> list[float]:
    """Comma-separated proportions, one per model, or ``default`` repeated."""
    if text is None:
        return [default] * (models or 4)
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not values or any(not 0 <= v <= 1 for v in values):
        raise ParameterError(f"{option}: expected proportions in [0, 1], one per model, got {text!r}")
    if models is not None and len(values) != models:
        raise ParameterError(f"{option}: expected {models} values (one per model), got {len(values)}")
    return values


# option → (lowest, highest, lowest allowed, highest allowed): the library's checks, under the
# option's own name (the library says "halfwidth" for both half-widths)
_RANGES = {
    "--fnr": ("fnr", 0.0, 1.0, True, True),
    "--fnr-halfwidth": ("fnr_halfwidth", 0.0, 0.5, False, False),
    "--true-share": ("true_share", 0.0, 1.0, False, True),
    "--rate": ("rate", 0.0, 1.0, False, False),  # at 0 or 1 the variance formula plans 1 label
    "--rate-halfwidth": ("rate_halfwidth", 0.0, 0.5, False, False),
    "--se": ("se", 0.0, 1.0, True, True),
    "--sp": ("sp", 0.0, 1.0, True, True),
    "--confidence": ("confidence", 0.0, 1.0, False, False),
    "--trend-slope": ("trend_slope", -math.inf, math.inf, False, False),
}


def _check_options(opts: dict) -> None:
    """One-line errors naming the option, before any computation."""
    for option, (name, low, high, low_in, high_in) in _RANGES.items():
        value = opts[name]
        above = value >= low if low_in else value > low
        below = value <= high if high_in else value < high
        if not (above and below):  # also nan
            left, right = "[" if low_in else "(", "]" if high_in else ")"
            raise ParameterError(
                f"{option}: expected a number in {left}{low:g}, {high:g}{right}, got {value!r}"
            )
    items = opts["items"]
    if not (items >= 1):
        raise ParameterError(f"--items: expected a number of definitions ≥ 1 (or inf), got {items!r}")
    for option, name, least in (
        ("--games", "games", 2),
        ("--rounds", "rounds", 2),
        ("--players", "players", 1),
    ):
        if opts[name] < least:
            raise ParameterError(f"{option}: expected {least} or more, got {opts[name]}")


def _adaptive(opts: dict) -> dict:
    """The ``--adaptive`` simulation for the options (see :mod:`analysis.balderdash.plan_adaptive`)."""
    from wordplay_audit.analysis.balderdash.plan_adaptive import AdaptiveDesign, plan_adaptive

    items = opts["items"]
    if not (math.isfinite(items) and items == int(items) and 10 <= items <= 100_000):
        raise ParameterError(
            f"--items: with --adaptive give a whole number of definitions per model in 10 … 100000, got {items}"
        )
    models = opts["models"]
    lists = {k: opts[f"model_{k}"] for k in ("rate", "se", "sp")}
    given = [len(v.split(",")) for v in lists.values() if v is not None]
    models = models if models is not None else (given[0] if given else None)
    per = {k: _per_model(lists[k], opts[k], models, f"--model-{k}") for k in lists}
    if len({len(v) for v in per.values()}) != 1:
        raise ParameterError("--model-rate, --model-se, --model-sp: give the same number of models")
    n_models = len(per["rate"])
    design = AdaptiveDesign.even(
        models=n_models, decks=opts["decks"], items=int(items), rate=per["rate"], se=per["se"], sp=per["sp"]
    )
    return plan_adaptive(
        design,
        half_width=opts["rate_halfwidth"],
        campaigns=opts["campaigns"],
        batch=opts["batch"],
        seed=opts["seed"],
        confidence=opts["confidence"],
    )


def adaptive_lines(result: dict) -> list[str]:
    """Text lines of the ``--adaptive`` result."""
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
                f"    {r['all_labelled_share']:.0%} of campaigns labelled every item (the width was reached only by knowing every TDR)"
            )
    for key, text in (("saving_vs_proportional", "proportional"), ("saving_vs_best_fixed", "best fixed")):
        s = result.get(key)
        if s:
            lines.append(
                f"  adaptive saves {s['labels']:.1f} ± {s['labels_se']:.1f} labels ({s['share']:.1%}) "
                f"against {text} ({s['reference']})"
            )
    return lines


def plan_command(
    fnr: Annotated[float, typer.Option("--fnr", help="Expected judge false-negative rate.")] = 0.26,
    fnr_halfwidth: Annotated[float, typer.Option("--fnr-halfwidth")] = 0.05,
    true_share: Annotated[
        float, typer.Option("--true-share", help="Share of labelled definitions people call true.")
    ] = 0.5,
    rate: Annotated[float, typer.Option("--rate", help="Expected true LKR or TDR.")] = 0.5,
    rate_halfwidth: Annotated[float, typer.Option("--rate-halfwidth")] = 0.05,
    se: Annotated[float, typer.Option("--se", help="Expected judge sensitivity.")] = 0.74,
    sp: Annotated[float, typer.Option("--sp", help="Expected judge specificity.")] = 0.97,
    items: Annotated[float, typer.Option("--items", help="Definitions per model (inf = many).")] = float(
        "inf"
    ),
    trend_slope: Annotated[
        float, typer.Option("--trend-slope", help="Log-odds change of LKR from first to last round.")
    ] = 1.0,
    games: Annotated[int, typer.Option("--games", help="Games per model and setting.")] = 5,
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds per game.")] = 20,
    players: Annotated[int, typer.Option("--players", help="Players of the model per game.")] = 3,
    confidence: Annotated[float, typer.Option("--confidence")] = 0.95,
    adaptive: Annotated[
        bool,
        typer.Option(
            "--adaptive", help="Simulate labels needed under proportional, equal, adaptive allocation."
        ),
    ] = False,
    models: Annotated[
        int | None, typer.Option("--models", min=1, max=50, help="With --adaptive: number of models (4).")
    ] = None,
    decks: Annotated[
        int, typer.Option("--decks", min=1, max=20, help="With --adaptive: decks per model.")
    ] = 1,
    model_rate: ModelList = None,
    model_se: ModelList = None,
    model_sp: ModelList = None,
    campaigns: Annotated[
        int, typer.Option("--campaigns", min=2, max=10_000, help="With --adaptive: simulated campaigns.")
    ] = 20,
    batch: Annotated[
        int, typer.Option("--batch", min=1, max=10_000, help="With --adaptive: labels per round.")
    ] = 20,
    seed: SeedOpt = 0,
    as_json: bool = JSON_OPTION,
) -> None:
    """Human labels per model for a chosen interval width on FNR and on corrected rates, and the
    trend test's power for a slope, games and rounds (seeded simulation, 2000 replications);
    with --adaptive, the labels an adaptive campaign needs against fixed allocations."""
    from wordplay_audit.analysis.balderdash.plan import labels_for_corrected_rate, labels_for_fnr, trend_power

    _check_options(dict(locals()))
    a = labels_for_fnr(fnr, fnr_halfwidth, true_share=true_share, confidence=confidence)
    b = labels_for_corrected_rate(rate, rate_halfwidth, se=se, sp=sp, n_items=items, confidence=confidence)
    c = trend_power(trend_slope, games=games, rounds=rounds, players=players, confidence=confidence)
    payload = {"fnr": a, "corrected_rate": b, "trend_power": c}
    lines = [
        f"FNR {fnr:.2f} ± {fnr_halfwidth:.3f}: {a['true_definitions']:.0f} true definitions per model, "
        f"{a['labels']:.0f} labels at true share {true_share:.2f}",
        f"corrected rate {rate:.2f} ± {rate_halfwidth:.3f} (Se {se:.2f}, Sp {sp:.2f}): "
        + (b["labels_reason"] or f"{b['labels']:.0f} random labels per model"),
        f"trend test power: {c['power']:.0%} ± {c['se']:.0%} for a log-odds change of {trend_slope:g} "
        f"(odds × {c['odds_ratio']:.1f}) with {games} games × {rounds} rounds × {players} players "
        "(two-stage t; the GEE t-test has somewhat less)",
    ]
    if adaptive:
        payload["adaptive"] = _adaptive(dict(locals()))
        lines += adaptive_lines(payload["adaptive"])
    emit(payload, as_json=as_json, lines=lines)
