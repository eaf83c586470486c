"""The Wheel of Fortune section of the HTML report: lays out results, recomputes nothing."""

from __future__ import annotations

from wordplay_audit.analysis.correction import MIN_LABELS
from wordplay_audit.analysis.report import Bullets, Figure, Paragraph, Section, Table, figure_png
from wordplay_audit.analysis.wof.metrics import WofMetrics
from wordplay_audit.analysis.wof.plots import first_consonant_figure, outcome_figure
from wordplay_audit.analysis.wof.recompute import WinRecompute

MODEL_COLUMNS = [
    "model", "games", "wins", "unfinished", "win_rate", "final_budget_total", "letters_chosen", "pct_correct_letters",
    "completion_at_win", "vowels_bought", "wrong_guesses", "wrong_guess_words", "wrong_guess_letters",
    "distinct_first_pairs", "distinct_first_triplets",
]  # fmt: skip
AUDIT_COLUMNS = ["player_model", "n_labelled", "tp", "fn", "fp", "tn", "fnr_w", "fnr_w_low", "fnr_w_high"]
RATE_COLUMNS = [
    "model",
    "n",
    "n_labelled",
    "judge",
    "replaced",
    "corrected",
    "corrected_low",
    "corrected_high",
    "corrected_reason",
]


def _recompute_blocks(result: WinRecompute) -> list:
    level = round(100 * result.confidence)
    return [
        Paragraph(
            "People's guess-equivalence labels against the game master's exact match: a near miss "
            "(a typo, a dropped article) is a loss for the game master and a win for people."
        ),
        Table(result.audit[[c for c in AUDIT_COLUMNS if c in result.audit.columns]],
              caption=f"Exact-match judge vs people per model (FNR re-weighted on the verdict, {level} % interval)"),
        Table(result.rates[[c for c in RATE_COLUMNS if c in result.rates.columns]],
              caption=f"Win rates: exact match, replaced where labelled, and corrected under people's labels "
                      f"(post-stratified on the verdict, {result.design} sample; randomised exact {level} % "
                      f"interval, none where a verdict holds fewer than {MIN_LABELS} labels)"),
        Table(result.mcnemar, caption="Win-rate differences between models, exact McNemar on paired riddles"),
    ]  # fmt: skip


def wof_figures(metrics: WofMetrics) -> dict[str, bytes]:
    """The section's two plots as PNG: ``outcomes`` and ``first_consonants``."""
    return {"outcomes": figure_png(outcome_figure(metrics)),
            "first_consonants": figure_png(first_consonant_figure(metrics))}  # fmt: skip


def wof_section(
    metrics: WofMetrics,
    recompute: WinRecompute | None = None,
    *,
    title: str = "Wheel of Fortune (LLMike)",
    skipped: dict[str, int] | None = None,
    figures: dict[str, bytes] | None = None,
) -> Section:
    """Metrics per model, the error taxonomy and first-letter plots (``figures``: those of
    :func:`wof_figures`, when already drawn); with ``recompute`` the judge audit and the
    recomputed win rates."""
    pngs = figures if figures is not None else wof_figures(metrics)
    errors = metrics.errors.pivot(index="model", columns="outcome", values="percent_of_losses").reset_index()
    blocks = [
        Paragraph(
            "The game master's metrics recomputed from its report files: a game is won when the last "
            "guess equals the solution; a loss is classed by the last move. A game cut off before its "
            "ending move is unfinished: counted, and neither played, won nor lost."
        ),
        Table(metrics.models[MODEL_COLUMNS], caption="Per model"),
        Table(errors, caption="Losses by error, percent of the model's losses"),
        Figure(pngs["outcomes"], caption="Wins and losing errors per model"),
        Figure(pngs["first_consonants"], caption="First consonant named vs English letter frequency"),
    ]  # fmt: skip
    if skipped:
        blocks.append(Bullets([f"{k}: {v}" for k, v in skipped.items()]))
    if recompute is not None:
        blocks += _recompute_blocks(recompute)
    return Section(title, blocks)
