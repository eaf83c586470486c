"""The real labelling page in headless Chromium (Debian's ``chromium`` driven by Playwright for
Python through ``executable_path``): log in, open a task of each config, choose an answer,
submit — and the pulled labels hold that answer."""

from __future__ import annotations

import os
import re
import shutil
import uuid

import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.server, pytest.mark.browser]  # Label Studio in Chromium

CHROMIUM = (
    os.environ.get("WORDPLAY_AUDIT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
)

# kind → (item texts, clicks as (text, nth occurrence), expected {question: label})
CASES = {
    "guess": (
        {"context": "PHRASE", "reference": "GOOD LUCK", "candidate": "GOOD LUCK"},
        [("Yes", 0)],
        {"": "true"},
    ),
    "category_name": (
        {"context": "A, B, C, D", "reference": "FISH", "candidate": "Trees"},
        [("No", 0)],
        {"": "false"},
    ),
    "definition": (
        {
            "context": "quire",
            "reference": "four sheets of paper",
            "candidate": "a set of paper",
            "senses": "four sheets | 24 sheets",
        },
        [("Yes", 0), ("No", 1)],
        {"reference": "true", "any_sense": "false"},
    ),
    "knowledge_type": (
        {
            "context": "BASS, FLOUNDER, SALMON, TROUT",
            "reference": "FISH",
            "difficulty": "yellow",
            "game_words": "BASS, FLOUNDER, SALMON, TROUT, ...",
        },
        [("word form + word meaning (choose the two below)", 0), ("encyclopedic", 0), ("phonology", 0)],
        {"": "encyclopedic + phonology"},
    ),
}


def _require_browser():
    required = os.environ.get("WORDPLAY_AUDIT_REQUIRE_SHARED") == "1"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("playwright is not installed (pip install playwright)")
        pytest.skip("playwright is not installed")
    if CHROMIUM is None:
        if required:
            pytest.fail("no chromium executable (apt-get install -y chromium)")
        pytest.skip("no chromium executable")


def _plan(tmp_path, run_cli, kind: str, texts: dict) -> tuple:
    rows = [{"item_id": f"{kind}-1", "game": "demo", "kind": kind, **texts}]
    pd.DataFrame(rows).to_csv(tmp_path / f"{kind}.csv", index=False)
    camp = tmp_path / f"camp_{kind}"
    code, _o, err = run_cli(
        "annotate",
        "plan",
        str(tmp_path / f"{kind}.csv"),
        "--n",
        "1",
        "--raters",
        "admin",
        "--overlap",
        "1",
        "--name",
        f"br-{kind}-{uuid.uuid4().hex[:6]}",
        "--out",
        str(camp),
    )
    assert code == 0, err
    code, out, err = run_cli("annotate", "push", str(camp), "--json")
    assert code == 0, err
    import json

    return camp, json.loads(out)["projects"][0]["project_id"]


def test_label_every_config_in_the_browser(tmp_path, run_cli, ls_env):
    _require_browser()
    from playwright.sync_api import sync_playwright

    server = ls_env
    planned = {kind: _plan(tmp_path, run_cli, kind, texts) for kind, (texts, _c, _e) in CASES.items()}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.set_default_timeout(90_000)
            page.goto(f"{server.url}/user/login/")
            page.fill("input[name=email]", server.username)
            page.fill("input[name=password]", server.password)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            for kind, (_texts, clicks, _expected) in CASES.items():
                _camp, project = planned[kind]
                page.goto(f"{server.url}/projects/{project}/data?labeling=1")
                page.get_by_role("button", name="Submit").first.wait_for()
                for text, nth in clicks:  # a choice shows its hotkey after its text: "Yes[1]"
                    pattern = re.compile(rf"^\s*{re.escape(text)}\s*(\[\w+\])?\s*$")
                    page.locator("label").filter(has_text=pattern).nth(nth).click()
                with page.expect_response(lambda r: "/annotations" in r.url and r.request.method == "POST"):
                    page.get_by_role("button", name="Submit").first.click()
        finally:
            browser.close()
    for kind, (_texts, _clicks, expected) in CASES.items():
        camp, _project = planned[kind]
        code, _o, err = run_cli("annotate", "pull", str(camp), "--out", str(tmp_path / f"pulled_{kind}"))
        assert code == 0, err
        labels = pd.read_csv(tmp_path / f"pulled_{kind}" / "labels.csv", dtype=str, keep_default_na=False)
        assert dict(zip(labels["question"], labels["label"], strict=True)) == expected, kind
        assert set(labels["rater"]) == {"admin"}
