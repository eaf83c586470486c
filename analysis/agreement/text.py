"""The readable text of an agreement result: one line per coefficient, ``n/a (why)`` for
every null number, the benchmark under its coefficient."""

from __future__ import annotations

__all__ = ["graded_lines", "summary_lines"]


def _number(value: float | None, reason: str | None) -> str:
    """A value, or ``n/a (why)`` where it is null."""
    if value is None or value != value:
        return f"n/a ({reason or 'not computed'})"
    return f"{value:.3f}"


def _estimate_line(name: str, est: dict | None) -> list[str]:
    """``name: value [low, high]`` (or ``n/a (why)``), and its benchmark when there is one."""
    if est is None:
        return []
    if est["value"] is None or est["value"] != est["value"]:
        return [f"{name}: {_number(None, est['reason'])}"]
    if est["ci_reason"] is not None:  # no interval: null bounds in JSON, the reason here
        line = f"{name}: {est['value']:.3f} n/a ({est['ci_reason'].removesuffix(' (bootstrap 0)')})"
    else:
        line = f"{name}: {est['value']:.3f} [{est['ci_low']:.3f}, {est['ci_high']:.3f}]"
    if est.get("p_value") is not None and est["p_value"] == est["p_value"]:
        line += f"  SE {est['se']:.3f}, p {est['p_value']:.2g}"
    lines = [line]
    bench = est.get("benchmark")
    if bench is not None:
        level = bench["level"] or f"n/a ({bench['reason'] or 'no band reaches the threshold'})"
        lines.append(
            f"  {bench['scale']}: {level} (cumulative probability ≥ {bench['threshold']}); estimate in {bench['band']}"
        )
    return lines


_COEFFICIENTS = (
    ("Fleiss' kappa", "fleiss_kappa"),
    ("Krippendorff's alpha ({level})", "krippendorff_alpha"),
    ("Gwet's AC1", "gwet_ac1"),
    ("Brennan-Prediger", "brennan_prediger"),
    ("Conger's kappa", "conger_kappa"),
    ("Light's kappa", "light_kappa"),
    ("Gwet's AC2", "gwet_ac2"),
    ("weighted Fleiss' kappa", "fleiss_kappa_weighted"),
    ("weighted Conger's kappa", "conger_kappa_weighted"),
    ("weighted Brennan-Prediger", "brennan_prediger_weighted"),
)


def summary_lines(out: dict) -> list[str]:
    """The readable summary of :meth:`AgreementResult.to_dict` ``out`` (the text of
    ``analyze agreement`` without ``--json``): every null number is ``n/a (why)``."""
    level = out["level"]
    kept = "kept in the category shares" if out["single_rated"] == "gwet" else "left out"
    lines = [
        f"items: {out['items']} ({out['items_single_rating']} with one rating: {kept})",
        f"raters: {out['raters']}  ratings: {out['ratings']}",
        f"percent agreement: {out['percent_agreement']:.3f}",
    ]
    for name, key in _COEFFICIENTS:
        if key == "gwet_ac2" and "weights" in out:
            lines.append(f"weights: {out['weights']['name']}")
        lines += _estimate_line(name.format(level=level), out.get(key))
    lines.append(
        f"PABAK: {_number(out['pabak'], out['pabak_reason'])}  "
        f"prevalence index: {_number(out['prevalence_index'], out['prevalence_index_reason'])}"
    )
    lines += [
        f"  {cat}: kappa {_number(v['kappa'], v['reason'])}, prevalence {v['prevalence']:.3f}"
        for cat, v in out["per_category"].items()
    ]
    lines += graded_lines(out)
    for name, spellings in out["labels_equal_as_numbers"].items():
        what = (
            f"merged into {name!r} (level {level})"
            if out["labels_equal_as_numbers_merged"]
            else "kept apart at level nominal (a numeric --level merges them)"
        )
        lines.append(f"labels equal as numbers: {', '.join(map(repr, spellings))} {what}")
    return lines


def graded_lines(out: dict) -> list[str]:
    """ICC (one line per form) and Kendall's W of ``out``, ``n/a (why)`` where null."""
    if "icc" not in out:
        return []
    if out["icc"] is None:
        lines = [f"ICC: n/a ({out['icc_reason']})"]
    else:
        lines = [
            f"ICC ({out['icc_items']} items rated by every rater, {out['icc_items_left_out']} left out):"
        ]
        for form, e in out["icc"].items():
            if e["value"] is None:
                lines.append(f"  {form}: n/a ({e['reason']})")
            elif e["ci_low"] is None:
                lines.append(f"  {form}: {e['value']:.3f} n/a ({e['ci_reason']})")
            else:
                lines.append(
                    f"  {form}: {e['value']:.3f} [{e['ci_low']:.3f}, {e['ci_high']:.3f}]  "
                    f"F({e['df1']:g}, {e['df2']:g}) = {e['F']:.3g}, p {e['p_value']:.2g}"
                )
    w = out["kendall_w"]
    if w is None or w["value"] is None:
        lines.append(f"Kendall's W: n/a ({out['kendall_w_reason'] if w is None else w['reason']})")
    else:
        ties = "tie-corrected" if w["ties_corrected"] else "no tie correction"
        lines.append(
            f"Kendall's W ({ties}, {w['items']} items): {w['value']:.3f}  "
            f"chi2({w['df']}) = {w['chi2']:.3g}, p {w['p_value']:.2g}"
        )
    return lines + _judge_score_lines(out)


def _judge_score_lines(out: dict) -> list[str]:
    """Each judge's score against the people's mean label: Spearman, Kendall's τ-b, ICC."""
    found = out.get("judge_scores")
    if not found:
        reason = out.get("judge_scores_reason")
        return [f"judge scores vs people: n/a ({reason})"] if reason and "human" not in reason else []
    lines = []
    for judge, d in found.items():
        parts = []
        for name, key in (("Spearman", "spearman"), ("Kendall tau-b", "kendall_tau")):
            c = d[key]
            parts.append(f"{name} n/a ({c['reason']})" if c["value"] is None
                         else f"{name} {c['value']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}]")  # fmt: skip
        if d["icc"] is not None:
            parts += [f"{form} {_number(e['value'], e['reason'])}" for form, e in d["icc"].items()]
        lines.append(
            f"judge {judge} ({d['source']}) vs people's mean label, {d['items']} items: " + "; ".join(parts)
        )
    return lines
