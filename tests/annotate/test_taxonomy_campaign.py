"""A knowledge-type campaign over a sample of the shared Connections categories on the real
server: plan → push → three scripted linguists → pull → Fleiss κ (checked against statsmodels)
and the pulled labels mapped onto the study's Table 1 columns."""

from __future__ import annotations

import json
import uuid

import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.shared, pytest.mark.server]

SINGLE_FORM = {"phonological": "phonology", "orthographical": "orthography", "morphological": "morphology"}


def _answer(study_label: str) -> list[dict]:
    """The result a linguist submits for a study label such as 'encyclopedic + orthographical'."""
    parts = [SINGLE_FORM.get(p.strip(), p.strip()) for p in study_label.split("+")]
    res = [
        {
            "from_name": "knowledge_type",
            "to_name": "t_context",
            "type": "choices",
            "value": {"choices": [parts[0] if len(parts) == 1 else "word meaning + word form"]},
        }
    ]
    if len(parts) == 2:
        res.append(
            {
                "from_name": "combination",
                "to_name": "t_context",
                "type": "choices",
                "value": {"choices": parts},
            }
        )
    return res


def _study(label: str) -> str:
    parts = [SINGLE_FORM.get(p.strip(), p.strip()) for p in label.split("+")]
    return " + ".join(parts)


def test_taxonomy_campaign_fleiss_kappa(tmp_path, run_cli, connections_dir, label_studio, monkeypatch):
    from label_studio_sdk import LabelStudio
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from wordplay_audit.analysis.connections import taxonomy_column

    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    code, _o, err = run_cli(
        "connections", "score", "--data", str(connections_dir), "--out", str(tmp_path / "cx")
    )
    assert code == 0, err
    items = pd.read_csv(tmp_path / "cx" / "items.csv", dtype=str, keep_default_na=False)
    items = items[(items["kind"] == "knowledge_type") & (items["knowledge_type"] != "")]
    items.to_csv(tmp_path / "taxonomy.csv", index=False)
    tag = uuid.uuid4().hex[:6]
    raters = [f"ling{i}{tag}" for i in range(3)]
    code, _o, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / "taxonomy.csv"),
        "--n",
        "45",
        "--strata",
        "difficulty",
        "--allocation",
        "equal",
        "--raters",
        ",".join(raters),
        "--overlap",
        "3",
        "--seed",
        "4",
        "--name",
        f"tax-{tag}",
        "--out",
        str(tmp_path / "camp"),
    )
    assert code == 0, err
    code, _o, err = run_cli("annotate", "push", str(tmp_path / "camp"))
    assert code == 0, err
    manifest = json.loads((tmp_path / "camp" / "manifest.json").read_text())
    gold = items.set_index("item_id")["knowledge_type"]
    options = sorted({_study(v) for v in gold})
    client = LabelStudio(base_url=label_studio.url, api_key=label_studio.token, timeout=300)
    uid_item = {(a["rater"], a["uid"]): a["item_id"] for a in manifest["assignments"]}
    marker = f"wordplay-audit campaign {manifest['campaign_id']} rater "
    rng = np.random.default_rng(9)
    given = []
    for project in client.projects.list():
        last = (project.description or "").splitlines()[-1:]
        if not last or not last[0].startswith(marker):
            continue
        rater = last[0][len(marker) :]
        for task in client.tasks.list(project=project.id, page_size=1000):
            item = uid_item[(rater, task.data["uid"])]
            label = _study(gold[item]) if rng.random() < 0.8 else str(rng.choice(options))
            client.annotations.create(id=task.id, result=_answer(label))
            given.append((item, rater, label))
    assert len(given) == 45 * 3
    code, out, err = run_cli(
        "annotate", "pull", str(tmp_path / "camp"), "--out", str(tmp_path / "pulled"), "--json"
    )
    assert code == 0, err
    labels = pd.read_csv(tmp_path / "pulled" / "labels.csv", dtype=str, keep_default_na=False)
    assert set(zip(labels["item_id"], labels["rater"], labels["label"], strict=True)) == set(given)
    assert labels["label"].map(taxonomy_column).notna().all()
    # Fleiss κ from the toolkit equals statsmodels' on the same item × rater table
    wide = labels.pivot(index="item_id", columns="rater", values="label")
    codes = {c: i for i, c in enumerate(sorted(set(labels["label"])))}
    counts, _ = aggregate_raters(wide.apply(lambda col: col.map(codes)).to_numpy())
    expected = fleiss_kappa(counts, method="fleiss")
    code, out, err = run_cli(
        "analyze", "agreement", str(tmp_path / "pulled" / "labels.csv"), "--bootstrap", "0", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["fleiss_kappa"]["value"] == pytest.approx(expected, abs=1e-12)
    assert 0.3 < expected < 0.95
