"""Every plot of the HTML report, drawn from real analysis results at the sizes that crowded it
(6 lines in a Balderdash panel, 12 adaptive targets, 6 judges, 6 models): no legend over a
panel or its labels, at most MAX_SERIES series in a panel (small multiples above it), no colour
used for two series of a plot, numbers on heatmap cells in a colour that reads (WCAG 2)."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba

from tests.support.wof_logs import ALPHA, BETA, report_text
from wordplay_audit.analysis.agreement import BootstrapOptions, agreement
from wordplay_audit.analysis.agreement.section import (
    category_kappa_figure,
    consensus_confusions,
    pairwise_heatmap,
)
from wordplay_audit.analysis.balderdash.adaptive_report import width_figure, width_history
from wordplay_audit.analysis.balderdash.report import round_figure
from wordplay_audit.analysis.connections import analyze_connections
from wordplay_audit.analysis.connections.figures import knowledge_figure, unweighted_figure
from wordplay_audit.analysis.judge_audit_groups import judge_audit
from wordplay_audit.analysis.judge_audit_report import fnr_figure
from wordplay_audit.analysis.report.plotting import MAX_SERIES, REFERENCE, contrast_ratio
from wordplay_audit.analysis.wof.metrics import wof_metrics
from wordplay_audit.analysis.wof.plots import first_consonant_figure, outcome_figure
from wordplay_audit.corpora.connections import read_connections
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.corpora.wof.reader import read_reports

pytestmark = pytest.mark.slow  # builds every result once (≈ 20 s)

MODELS6 = [f"model-{k}" for k in "abcdef"]


def _wof(folder, models):
    folder.mkdir()
    for k, model in enumerate(models):
        (folder / f"{model}.jsonl").write_text(report_text([ALPHA, BETA][k % 2]), encoding="utf-8")
    return wof_metrics(read_reports(folder).moves)


def _connections(folder, extra):
    corpus = write_demo_corpus(folder)
    for model in extra:
        shutil.copy(corpus / "model-a.json", corpus / f"{model}.json")
    return analyze_connections(read_connections(corpus), match="exact", plots=False)


def _judge_audit(judges: int):
    rng = np.random.default_rng(judges)
    items = pd.DataFrame(
        [
            {"item_id": f"{m}-{i}", "game": "g", "kind": "guess", "player_model": m}
            for m in ("m1", "m2", "m3")
            for i in range(30)
        ]
    )
    truth = rng.random(len(items)) < 0.5
    human = pd.DataFrame(
        {"item_id": items["item_id"], "rater": "ann", "rater_type": "human", "label": np.where(truth, "true", "false")}
    )  # fmt: skip
    verdicts = []
    for j in range(judges):
        said = np.where(rng.random(len(items)) < 0.8, truth, ~truth)
        verdicts.append(
            pd.DataFrame(
                {
                    "item_id": items["item_id"],
                    "rater": f"judge-{j}",
                    "rater_type": "judge",
                    "label": np.where(said, "true", "false"),
                }
            )  # fmt: skip
        )
    return judge_audit(pd.concat(verdicts, ignore_index=True), human, items, n_boot=0)


def _balderdash(models: list[str], decks: list[str]):
    """Per-round judge and replaced rates and corrected rates with bands, as the analysis lays
    them out (the columns round_figure reads)."""
    rng = np.random.default_rng(0)
    obs = pd.DataFrame(
        [
            {"model": m, "deck": d, "round_id": r, "game": g, "knows": rng.random() < 0.6,
             "true_def": rng.random() < 0.4}
            for m in models for d in decks for r in range(1, 9) for g in range(3)
        ]
    )  # fmt: skip
    replaced = obs.assign(knows=obs["knows"] | (rng.random(len(obs)) < 0.2))
    corrected = pd.DataFrame(
        [
            {"model": m, "deck": d, "metric": metric, "round_id": r, "rg": 0.6, "rg_low": 0.4, "rg_high": 0.8}
            for m in models for d in decks for metric in ("lkr", "tdr") for r in range(1, 9)
        ]
    )  # fmt: skip
    return obs, corrected, replaced


def _history(targets: list[str]):
    rounds = [
        {"round": r, "strata": [{"labelled": 30 * r, "add": 30}],
         "half_width_before": {t: 0.3 / r for t in targets}, "half_width_after": {t: 0.25 / r for t in targets}}
        for r in range(2, 6)
    ]  # fmt: skip
    return width_history({"rounds": rounds})


def _agreement(raters: int):
    rng = np.random.default_rng(raters)
    truth = rng.choice(["a", "b", "c", "d"], size=60, p=[0.55, 0.25, 0.15, 0.05])
    rows = []
    for r in range(raters):
        said = np.where(rng.random(60) < 0.8, truth, rng.choice(["a", "b", "c", "d"], size=60))
        rows += [
            {"item_id": f"i{i}", "rater": f"r{r}", "rater_type": "human", "label": s}
            for i, s in enumerate(said)
        ]
    return agreement(pd.DataFrame(rows), bootstrap=BootstrapOptions(n_boot=50, seed=0))


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    """name → matplotlib Figure, for every plot of the report at a small and a crowded size."""
    tmp = tmp_path_factory.mktemp("plots")
    wof3, wof6 = _wof(tmp / "wof3", MODELS6[:3]), _wof(tmp / "wof6", MODELS6)
    cx2, cx6 = _connections(tmp / "cx2", []), _connections(tmp / "cx6", MODELS6[2:])
    crowd3, crowd12 = _agreement(3), _agreement(12)
    two_by_two = _balderdash(["average-llm", "omniscient-llm"], ["balderdash_words", "basic_english_words"])
    twelve = [
        f"{m} {g} {d}"
        for m in ("lkr", "tdr")
        for g in ("gpt-4o", "llama", "mistral")
        for d in ("easy", "hard")
    ]
    built = {
        "wof_outcomes": outcome_figure(wof6),
        "wof_first_consonant_3_models": first_consonant_figure(wof3),
        "wof_first_consonant_6_models": first_consonant_figure(wof6),
        "connections_unweighted_2_models": unweighted_figure(cx2),
        "connections_unweighted_6_models": unweighted_figure(cx6),
        "connections_knowledge_2_models": knowledge_figure(cx2),
        "connections_knowledge_6_models": knowledge_figure(cx6),
        "judge_fnr_2_judges": fnr_figure(_judge_audit(2)),
        "judge_fnr_6_judges": fnr_figure(_judge_audit(6)),
        "agreement_kappa": category_kappa_figure(crowd3),
        "agreement_pairwise_3": pairwise_heatmap(crowd3),
        "agreement_pairwise_12": pairwise_heatmap(crowd12),
        "agreement_confusions_3": consensus_confusions(crowd3),
        "agreement_confusions_12": consensus_confusions(crowd12),
        "balderdash_lkr_2_models_2_decks": round_figure(*two_by_two, "lkr"),
        "balderdash_tdr_1_model_1_deck": round_figure(*_balderdash(["m"], ["d"]), "tdr"),
        "width_3_targets": width_figure(_history(["lkr m1", "lkr m2", "tdr m1"])),
        "width_12_targets": width_figure(_history(twelve)),
        "width_6_unsplittable_targets": width_figure(_history([f"target{k}" for k in range(6)])),
    }
    for fig in built.values():
        FigureCanvasAgg(fig).draw()  # lays the figure out as figure_png does (constrained layout)
    return built


NAMES = [
    "wof_outcomes", "wof_first_consonant_3_models", "wof_first_consonant_6_models",
    "connections_unweighted_2_models", "connections_unweighted_6_models", "connections_knowledge_2_models",
    "connections_knowledge_6_models", "judge_fnr_2_judges", "judge_fnr_6_judges", "agreement_kappa",
    "agreement_pairwise_3", "agreement_pairwise_12", "agreement_confusions_3", "agreement_confusions_12",
    "balderdash_lkr_2_models_2_decks", "balderdash_tdr_1_model_1_deck", "width_3_targets", "width_12_targets",
    "width_6_unsplittable_targets",
]  # fmt: skip


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def _legends(fig):
    return list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]


def _series(ax) -> dict[str, object]:
    """label → handle of the labelled artists of a panel."""
    return dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))


def _colour(handle) -> tuple:
    if hasattr(handle, "patches"):  # bars
        return tuple(handle.patches[0].get_facecolor())
    if hasattr(handle, "lines"):  # error bars
        return to_rgba(handle.lines[0].get_color())
    if hasattr(handle, "get_color"):  # a line
        return to_rgba(handle.get_color(), handle.get_alpha())
    return tuple(handle.get_facecolor()[0])  # a band (fill_between)


def test_every_plot_is_in_the_gallery(figures):
    assert sorted(figures) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_no_legend_covers_a_panel_or_a_label(figures, name):
    fig = figures[name]
    renderer = fig.canvas.get_renderer()
    legends = _legends(fig)
    texts = [fig._suptitle, fig._supxlabel, fig._supylabel]
    for ax in _panels(fig):
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.get_visible():
                assert not box.overlaps(ax.get_window_extent(renderer)), f"{name}: legend over a panel"
        for text in texts:
            if text is not None and text.get_text():
                assert not box.overlaps(text.get_window_extent(renderer)), (
                    f"{name}: legend over {text.get_text()!r}"
                )


@pytest.mark.parametrize("name", NAMES)
def test_a_panel_holds_at_most_max_series(figures, name):
    for ax in _panels(figures[name]):
        assert len(_series(ax)) <= MAX_SERIES, (name, list(_series(ax)))


@pytest.mark.parametrize("name", NAMES)
def test_no_colour_serves_two_series(figures, name):
    colours: dict[str, tuple] = {}
    for ax in _panels(figures[name]):
        for label, handle in _series(ax).items():
            colours.setdefault(label, _colour(handle))
    by_colour: dict[tuple, list[str]] = {}
    for label, colour in colours.items():
        by_colour.setdefault(colour, []).append(label)
    assert all(len(labels) == 1 for labels in by_colour.values()), (name, by_colour)
    assert not any(
        c[:3] == to_rgba(REFERENCE)[:3] for c in colours.values() if by_colour[c] != ["English text"]
    )


def test_crowded_plots_become_small_multiples(figures):
    assert len(_panels(figures["balderdash_lkr_2_models_2_decks"])) == 4  # a model per row, a deck per column
    assert len(_panels(figures["width_12_targets"])) == 6  # a panel per model × deck, lkr and tdr in each
    assert len(_panels(figures["width_6_unsplittable_targets"])) == 6
    assert len(_panels(figures["judge_fnr_6_judges"])) == 6
    assert len(_panels(figures["connections_unweighted_6_models"])) == 6
    assert len(_panels(figures["wof_first_consonant_6_models"])) == 6
    for name in (
        "wof_first_consonant_3_models",
        "connections_unweighted_2_models",
        "judge_fnr_2_judges",
        "width_3_targets",
    ):
        assert len(_panels(figures[name])) == 1, name


@pytest.mark.parametrize(
    "name",
    ["agreement_pairwise_3", "agreement_pairwise_12", "agreement_confusions_3", "agreement_confusions_12"],
)
def test_numbers_on_heatmap_cells_read(figures, name):
    checked = 0
    for ax in _panels(figures[name]):
        if not ax.images:
            continue
        image = ax.images[0]
        values = np.asarray(image.get_array())
        for text in ax.texts:
            col, row = (int(round(v)) for v in text.get_position())
            cell = image.cmap(image.norm(values[row, col]))
            # WCAG 2 AA asks 4.5 : 1 for text; the better of black and white reaches ≥ 4.58 on any colour
            assert contrast_ratio(cell, text.get_color()) >= 4.5, (name, text.get_text(), cell)
            checked += 1
    assert checked > 0
