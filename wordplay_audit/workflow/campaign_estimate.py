"""The estimate ``annotate status`` shows per target: the corrected-metric engine over the
campaign's population, each label weighted by the campaign's 1/π (module doc of
:mod:`~wordplay_audit.workflow.campaign_status`), and how it relates to ``balderdash recompute``.

Post-strata: the judge's verdict on the target's question × the judge's other decision (when the
population has both); on a campaign with uncertainty strata
(:mod:`~wordplay_audit.workflow.campaign_uncertainty`) the verdict × the item's uncertainty
stratum (``score_band``): the design's strata, inside each of which the labels are a simple random
sample, so the engine's post-stratified estimate (K + Σ_h U_h x_h/n_h)/N and its randomised exact
interval hold.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wordplay_audit.analysis.active import BAND
from wordplay_audit.workflow.campaign_strata import (
    JUDGE_COLUMNS,
    VERDICT,
    NextSpec,
    human_labels,
    metric_question,
    verdicts,
)

STREAM = "rg"
"""The engine's seed stream: ``balderdash recompute``'s for a cell of whole sampling strata."""
FNR_REASON = "a ratio of corrected counts: no calibrated interval here; the judge audit gives one"


def finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def post_strata(kind: str, question: str, pop: pd.DataFrame) -> tuple[str, list[str]]:
    """The judge's verdict column on ``question`` and the judge's other decision (a post-stratum)
    when the population has both (Balderdash's ``judge_verdict`` and ``judge_knows``)."""
    judge = JUDGE_COLUMNS.get(question, VERDICT)
    judge = judge if judge in pop.columns else VERDICT
    pair = (VERDICT, JUDGE_COLUMNS["any_sense"])
    other = [c for c in pair if c != judge and c in pop.columns] if kind == "definition" else []
    return judge, other if all(c in pop.columns for c in pair) else []


def campaign_weights(c) -> dict[str, float]:
    """item_id → the campaign's sampling weight 1/π of each sampled item (its ``sampling_weight``
    column, as ``balderdash recompute --weights`` reads it; else 1/``inclusion_probability``)."""
    from wordplay_audit.corpora.sampling import sampling_weights

    sampled = c.items[c.items["honeypot"].astype(str) != "true"]
    if "sampling_weight" in sampled.columns:
        values = pd.to_numeric(sampled["sampling_weight"], errors="coerce").to_numpy(float)
    else:
        values = sampling_weights(
            pd.to_numeric(sampled["inclusion_probability"], errors="coerce").to_numpy(float)
        )
    return dict(zip(sampled["item_id"].astype(str), values, strict=True))


def engine_frame(c, pop: pd.DataFrame, drawn: np.ndarray, labels: pd.DataFrame, metric: str, design=None):  # noqa: PLR0913  # fmt: skip
    """The engine's frame of one target's question over the population: ``_group``, ``judge``,
    ``human`` (people's final label where drawn and labelled), ``sampling_weight`` (1/π of the
    drawn items), the other decision and ``item_id``; and the post-strata columns. With the
    campaign's uncertainty strata (``design``; ``pop`` carries them) the post-stratum is
    ``score_band``, the item's stratum (cell × verdict × band)."""
    question = metric_question(c.kind, metric)
    judge, other = post_strata(c.kind, question, pop)
    if design is not None:
        other = []
    human = pop["item_id"].map(human_labels(labels, question, metric)).where(drawn)
    weights = campaign_weights(c)
    frame = pd.DataFrame({
        "item_id": pop["item_id"].astype(str), "_group": pop["_group"], "judge": verdicts(pop, judge),
        "human": pd.array(human.tolist(), dtype="boolean"),
        "sampling_weight": pop["item_id"].astype(str).map(weights).where(drawn).astype(float),
        **{f"_post_{col}": verdicts(pop, col) for col in other},
    })  # fmt: skip
    if design is not None:
        frame[BAND] = pop["_stratum"].astype(str).to_numpy()
        return frame, [BAND], judge
    return frame, [f"_post_{col}" for col in other], judge


def estimates(c, pop, drawn, labels, metrics: Sequence[str], confidence: float, design=None) -> dict[str, dict]:  # noqa: PLR0913  # fmt: skip
    """Per target name, the engine's estimate, interval, reason and unknown count (module doc)."""
    from wordplay_audit.analysis.correction.engine import corrected_shares

    out: dict[str, dict] = {}
    for metric in metrics:
        frame, posts, _judge = engine_frame(c, pop, drawn, labels, metric, design)
        if metric == "fnr":
            frame["_false"] = pop["_false"].to_numpy()
            cells = corrected_shares(frame, cells=["_group", "_false"], post_strata=posts,
                                     confidence=confidence, stream=STREAM)  # fmt: skip
            for group, part in cells.groupby("_group", sort=True):
                mass = part["n"].to_numpy(float) * part["estimate"].to_numpy(float)
                total = np.nansum(mass) if np.isfinite(mass).all() else np.nan
                value = (
                    float(mass[part["_false"].to_numpy(bool)].sum() / total) if total and total > 0 else None
                )
                why = None if value is not None else "a judge-verdict stratum of the group has no label"
                out[f"fnr {group}"] = {"estimate": value, "ci_low": None, "ci_high": None,
                                       "reason": why or FNR_REASON, "unknown": None}  # fmt: skip
            continue
        cells = corrected_shares(
            frame, cells=["_group"], post_strata=posts, confidence=confidence, stream=STREAM
        )
        for row in cells.to_dict(orient="records"):
            out[f"{metric} {row['_group']}"] = {
                "estimate": finite(row["estimate"]), "ci_low": finite(row["ci_low"]),
                "ci_high": finite(row["ci_high"]), "reason": row["reason"],
                "unknown": None if pd.isna(row["unknown"]) else int(row["unknown"]),
            }  # fmt: skip
    return out


def recompute_note(c, spec: NextSpec, pop: pd.DataFrame, design=None) -> str | None:
    """How the estimates relate to ``balderdash recompute``'s (a Balderdash campaign only)."""
    if c.kind != "definition":
        return None
    why = (
        []
        if design is None
        else ["it does not post-stratify on the campaign's uncertainty strata (score_band)"]
    )
    if set(spec.by) != {"player_model", "deck"}:
        why.append(f"its cells are player_model × deck, these groups {' × '.join(spec.by) or 'all'}")
    missing = [col for col in (VERDICT, JUDGE_COLUMNS["any_sense"]) if col not in pop.columns]
    if missing:
        why.append(
            f"it post-stratifies on the judge's other decision too, which the population lacks ({missing[0]})"
        )
    if why:
        return f"`balderdash recompute` prints other numbers: {'; '.join(why)}"
    return (
        f"`balderdash recompute --weights {c.folder / 'items.csv'}` prints these estimates and intervals as rg "
        "for the same model × deck cells (its ppi keeps the finer post-strata where one holds fewer than 5 "
        "labels, so it may differ)"
    )
