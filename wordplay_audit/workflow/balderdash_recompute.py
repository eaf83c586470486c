"""The Balderdash study recomputed under human labels, from Python (``balderdash recompute``):
the judge audited per model (re-weighted to every judged definition), LKR and TDR corrected per
model and deck with intervals, and the study's metrics under replaced labels.

In a notebook::

    import wordplay_audit as wa
    data = wa.read_balderdash("sim/")
    wa.balderdash_recompute(data, wa.read_labels("sim/labels.csv")).to_frame("corrected")
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from wordplay_audit.errors import ParameterError, check_choice
from wordplay_audit.workflow.balderdash import DESIGNS, BalderdashData, Design, human_rows
from wordplay_audit.workflow.results import Result, plain
from wordplay_audit.workflow.text import frame_lines, number

__all__ = ["BalderdashRecompute", "balderdash_recompute"]

_AUDIT_W = ["player_model", "n_labelled", "recall_w", "fnr_w", "fnr_w_low", "fnr_w_high", "specificity_w",
            "specificity_w_low", "specificity_w_high", "precision_w"]  # fmt: skip
_AUDIT_RAW = [
    "player_model",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "f1",
    "fnr",
    "fnr_low",
    "fnr_high",
]
_CORRECTED = ["metric", "model", "deck", "n", "n_labelled", "judge", "rg", "rg_low", "rg_high", "ppi", "ppi_low",
              "ppi_high"]  # fmt: skip
ROUND_STATUS = {
    "unchanged": "no label changed the round's outcome",
    "recomputed": "votes and scores recomputed under the replaced labels",
    "needs_replay": "a replaced label would have changed what players saw next (the round is not replayed)",
}
WEIGHTS_NOTE = (
    "1/π weights enter the PPI (stratified) estimate; Rogan–Gladen's Se/Sp and the judge audit "
    "post-stratify on deck × judge verdict without them (unbiased when π is constant there)"
)


@dataclass
class BalderdashRecompute(Result):
    """The judge audited per model, LKR and TDR corrected with intervals, and the study's
    metrics under replaced labels (people's label where there is one: a sensitivity view)."""

    title = "Balderdash recomputed under human labels"
    main_table = "corrected"

    export: str
    design: str
    audits: dict[str, pd.DataFrame]
    corrected: pd.DataFrame
    replaced_rates: pd.DataFrame
    replaced_settings: pd.DataFrame
    round_status: dict[str, int]
    skipped: dict[str, int]
    consensus: dict[str, dict] = field(default_factory=dict)
    weighted: bool = False
    width_history: pd.DataFrame | None = None
    truth: str = "consensus"
    raters: dict[str, pd.DataFrame] = field(default_factory=dict)  # truth='latent': se/sp per rater
    dependence: dict[str, pd.DataFrame] = field(default_factory=dict)  # truth='latent': the pair check
    rescored: pd.DataFrame | None = field(default=None, repr=False)
    """The player-rounds under replaced labels, rescored (what the report's curves draw)."""
    seed: int = 0  # of the randomised intervals and the judge audits' bootstrap

    def tables(self) -> dict[str, pd.DataFrame]:
        out = {"corrected": self.corrected, "replaced_rates": self.replaced_rates}
        out.update({f"judge_audit_{q}": t for q, t in self.audits.items()})
        if self.width_history is not None and len(self.width_history):
            out["width_history"] = self.width_history
        return out

    def figures(self) -> dict[str, bytes]:
        from wordplay_audit.analysis.balderdash.adaptive_report import width_figure
        from wordplay_audit.analysis.report import figure_png

        if self.width_history is not None and len(self.width_history):
            return {"width": figure_png(width_figure(self.width_history))}
        return {}

    def to_dict(self) -> dict[str, Any]:
        from wordplay_audit.analysis.balderdash.recompute import REPLACED_NOTE

        out = {
            "truth": self.truth,
            "export": self.export,
            "design": self.design,
            "seed": self.seed,
            "skipped": self.skipped,
            "judge_audit": self.audits,
            "corrected": self.corrected,
            "round_status": self.round_status,
            "consensus": self.consensus,
            "replaced_note": REPLACED_NOTE,
            "replaced_rates": self.replaced_rates,
            "replaced_settings": self.replaced_settings,
        }
        if self.weighted:
            out["weights_note"] = WEIGHTS_NOTE
        if self.truth == "latent":
            from wordplay_audit.analysis.balderdash.latent_cells import LATENT_NOTE

            out.update(truth_note=LATENT_NOTE, rater_accuracy=self.raters, dependence=self.dependence)
        return plain(out)

    def summary(self) -> list[str]:
        from wordplay_audit.analysis.balderdash.recompute import REPLACED_NOTE

        lines = []
        judge_rows = self.skipped.get("judge_rows_in_human_file", 0)
        if judge_rows:
            lines.append(f"left out {judge_rows} judge row(s) of the human labels (people's labels only)")
        lines.append(truth_line(self.truth))
        lines += consensus_lines(self.consensus)
        lines += latent_lines(self.raters, self.dependence)
        for question, table in self.audits.items():
            lines.append(
                f"judge accuracy ({question}), re-weighted to all judged definitions (95 % intervals"
                f" of the {self.truth} truth):"
            )
            lines += frame_lines(table, [c for c in _AUDIT_W if c in table.columns])
            if any(c in table.columns for c in _AUDIT_RAW[1:]):
                lines.append(f"  raw, on the labelled items only ({question}; Wilson intervals):")
                lines += frame_lines(table, [c for c in _AUDIT_RAW if c in table.columns])
        lines.append(
            "rounds: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in self.round_status.items())
        )
        lines += [
            f"  {k.replace('_', ' ')}: {why}" for k, why in ROUND_STATUS.items() if k in self.round_status
        ]
        lines.append(
            "corrected rates (95 % intervals; exact for the binomial pieces):"
            if self.truth == "consensus"
            else "corrected rates (95 % bootstrap intervals of the latent truth; rg = ppi here):"
        )
        lines += frame_lines(self.corrected, [c for c in _CORRECTED if c in self.corrected.columns])
        lines += reason_lines(self.corrected)
        from wordplay_audit.analysis.correction import SEED_NOTE

        lines.append("  " + SEED_NOTE.format(seed=self.seed))
        lines.append(f"replaced labels — {REPLACED_NOTE}:")
        lines += frame_lines(self.replaced_rates)
        if self.weighted:
            lines.append(f"weights: {WEIGHTS_NOTE}")
        return lines

    def section(self):
        from wordplay_audit.analysis.balderdash.adaptive_report import adaptive_blocks
        from wordplay_audit.analysis.balderdash.report import CORRECTED_SHOWN, UNKNOWN_NOTE
        from wordplay_audit.analysis.report import Paragraph, Section, Table

        columns = [c for c in CORRECTED_SHOWN if c in self.corrected.columns]
        caption = (
            "Corrected LKR and TDR per model and deck (95 %; a missing interval says why in "
            f"*_reason; {UNKNOWN_NOTE})"
        )
        blocks = [Paragraph(f"Export {self.export}; design {self.design}."),
                  Table(self.corrected[columns], caption=caption)]  # fmt: skip
        for question, table in self.audits.items():
            cols = [c for c in _AUDIT_W if c in table.columns]
            blocks.append(Table(table[cols], caption=f"Judge accuracy ({question}), re-weighted"))
        if self.width_history is not None and len(self.width_history):
            blocks += adaptive_blocks(self.width_history)
        return Section(self.title, blocks)


TRUTH = ("consensus", "latent")


def truth_line(truth: str) -> str:
    """The line that says which truth the intervals cover."""
    if truth == "latent":
        return ("truth: latent — intervals cover the true labels, people's ratings and the judge's verdict "
                "taken as imperfect measurements of them (rater error carried)")  # fmt: skip
    return "truth: consensus — intervals cover what people's settled label says (rater error not carried)"


def latent_lines(raters: dict[str, pd.DataFrame], dependence: dict[str, pd.DataFrame]) -> list[str]:
    """Per question under the latent truth: each rater's sensitivity and specificity with
    bootstrap intervals, and the conditional-dependence check."""
    from wordplay_audit.analysis.balderdash.latent_cells import dependence_lines

    lines = []
    for question, table in raters.items():
        lines.append(
            f"raters ({question}), sensitivity and specificity under the latent model (95 % bootstrap):"
        )
        lines += frame_lines(table)
    return lines + dependence_lines(dependence)


def consensus_lines(counts: dict) -> list[str]:
    """Per question: people's labelled items, adjudicated ones and ties left out (with the advice
    to adjudicate them).

    >>> consensus_lines({"reference": {"items": 10, "labelled": 8, "ties": 2, "adjudicated": 1, "ties_broken": 0}})[0]
    "people's labels (reference): 10 items, 8 labelled (1 adjudicated), 2 tied"
    """
    from wordplay_audit.corpora.consensus import ties_note

    lines = []
    for question, c in counts.items():
        if c["items"]:
            lines.append(f"people's labels ({question}): {c['items']} items, {c['labelled']} labelled "
                         f"({c['adjudicated']} adjudicated), {c['ties']} tied")  # fmt: skip
            lines += [f"  {note}" for note in [ties_note(c["ties"])] if note]
    return lines


def reason_lines(corrected: pd.DataFrame) -> list[str]:
    """One line per distinct reason a corrected value or interval is missing, and one per cell
    whose interval counts definitions as unknown."""
    from wordplay_audit.analysis.correction.cells import UNKNOWN_PART

    lines = []
    for column in ("rg_reason", "ppi_reason"):
        for reason, part in corrected[corrected[column].notna()].groupby(column):
            cells = ", ".join(f"{r.metric}/{r.model}/{r.deck}" for r in part.itertuples())
            lines.append(f"  {column.split('_')[0]} not shown for {cells}: {reason}")
    for column in ("rg_unknown", "ppi_unknown"):
        if column not in corrected:
            continue
        for r in corrected[corrected[column].fillna(0) > 0].itertuples():
            lines.append(f"  {column.split('_')[0]} interval of {r.metric}/{r.model}/{r.deck} counts "
                         f"{int(getattr(r, column))} definition(s) as unknown ({UNKNOWN_PART})")  # fmt: skip
    return lines


def _weighted_obs(data: BalderdashData, labels: pd.DataFrame, weights: pd.DataFrame | None, design: str):
    if weights is None:
        return data.obs
    if design == "random":
        raise ParameterError("weights: need design 'stratified' (an adaptive campaign samples by verdict)")
    from wordplay_audit.workflow.campaign_weights import with_sampling_weights

    return with_sampling_weights(data.obs, labels, weights)


def balderdash_recompute(
    data: BalderdashData,
    human: pd.DataFrame,
    *,
    design: Design = "stratified",
    weights: pd.DataFrame | None = None,
    seed: int | None = None,
    truth: str = "consensus",
    n_boot: int = 1000,
) -> BalderdashRecompute:
    """Audit the judge per model (re-weighted to every judged definition), correct LKR and TDR
    per model and deck with intervals, and recompute the metrics under replaced labels.

    ``human``: contract labels with people's answers (``question`` ``reference`` → TDR,
    ``any_sense`` → LKR). ``weights``: a campaign's items table with ``sampling_weight`` (1/π)
    when the sampling rates changed between rounds (``annotate next``). ``truth``: what the
    corrected rates and the judge audit estimate — ``"consensus"`` (people's settled label) or
    ``"latent"`` (the true label; people's ratings and the judge's verdict its imperfect
    measurements; needs each rater's labels and a design that identifies their error;
    ``n_boot`` resamples, :mod:`~wordplay_audit.analysis.balderdash.latent_cells`). The tables
    keep their columns either way. ``seed``: of the randomised intervals and the bootstraps; None
    (default) draws a fresh one per run, recorded in the result."""
    from wordplay_audit.analysis.balderdash.corrected import CorrectionOptions, corrected_rates
    from wordplay_audit.analysis.balderdash.metrics import game_metrics, setting_metrics
    from wordplay_audit.analysis.balderdash.recompute import (
        recompute_scores,
        replace_labels,
        replaced_rates,
        replaced_round_metrics,
    )
    from wordplay_audit.analysis.balderdash.summary import judge_audit_tables
    from wordplay_audit.analysis.correction import randomisation_seed

    check_choice("design", design, DESIGNS)
    check_choice("truth", truth, TRUTH)
    seed = randomisation_seed(seed)
    labels = human_rows(data, human)
    weighted = _weighted_obs(data, labels, weights, design)
    replaced = replace_labels(data.obs, labels)
    rescored = recompute_scores(replaced)
    raters, dependence = {}, {}
    if truth == "latent":
        from wordplay_audit.analysis.balderdash.latent_cells import latent_rates

        found = latent_rates(weighted, labels, n_boot=n_boot, seed=seed)
        corrected, audits, raters, dependence = found
    else:
        audits = judge_audit_tables(data.obs, labels, seed=seed)
        corrected = corrected_rates(weighted, labels, design=design, options=CorrectionOptions(seed=seed))
    status = rescored.drop_duplicates(["game_id", "round_id"])["round_status"].value_counts().to_dict()
    skipped = {
        **data.skipped,
        **replaced.attrs.get("skipped", {}),
        "knows_undetermined": int(replaced["knows_undetermined"].sum()),
        "judge_rows_in_human_file": labels.attrs["judge_rows_left_out"],
    }
    history = None
    if weights is not None:
        from wordplay_audit.workflow.campaign_weights import campaign_width_history

        history = campaign_width_history(weights)
    return BalderdashRecompute(
        export=str(data.folder),
        design=design,
        audits=audits,
        corrected=corrected,
        replaced_rates=replaced_rates(data.obs, labels, replaced=replaced),
        replaced_settings=setting_metrics(game_metrics(replaced_round_metrics(rescored))),
        round_status={str(k): int(v) for k, v in status.items()},
        skipped=skipped,
        consensus=replaced.attrs.get("consensus", {}),
        weighted=weights is not None,
        width_history=history,
        truth=truth,
        raters=raters,
        dependence=dependence,
        rescored=rescored,
        seed=seed,
    )


def round_status_text(status: Mapping[str, int]) -> str:
    """``99 unchanged, 13 needs replay`` (the explanation is :data:`ROUND_STATUS`)."""
    return ", ".join(f"{number(n)} {k.replace('_', ' ')}" for k, n in status.items())
