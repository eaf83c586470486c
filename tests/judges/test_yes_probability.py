"""P(yes) from a choice's token log-probabilities (judges/prompts.py, ``yes_probability``): which
token is the answer, which alternatives count as yes or no, the bound for a class below the top
k, and where there is no P(yes). Expected values by hand (the arithmetic in the comments)."""

from __future__ import annotations

import math

import pytest

from wordplay_audit.judges.prompts import yes_probability

e = math.exp


def _entry(token: str, logprob: float, top: list[tuple[str, float]]) -> dict:
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top],
    }


def test_case_space_and_quotes_count_as_yes_or_no():
    top = [
        ("Yes", -0.5),
        (" yes", -1.5),
        ("YES", -3.0),
        ('"yes', -4.0),
        ("No", -2.0),
        (" no", -2.5),
        ("Yeah", -2.2),
    ]
    # yes-class: Yes, " yes", YES, '"yes' → e^−0.5 + e^−1.5 + e^−3 + e^−4 = 0.606531 + 0.223130 + 0.049787
    # + 0.018316 = 0.897764; no-class: e^−2 + e^−2.5 = 0.135335 + 0.082085 = 0.217420; "Yeah" neither.
    # P = 0.897764 / (0.897764 + 0.217420) = 0.805037
    got = yes_probability({"content": [_entry("Yes", -0.5, top)]})
    assert got == pytest.approx(0.805037, abs=1e-6)
    want = (e(-0.5) + e(-1.5) + e(-3) + e(-4)) / (e(-0.5) + e(-1.5) + e(-3) + e(-4) + e(-2) + e(-2.5))
    assert got == pytest.approx(want, abs=1e-12)


def test_the_answer_token_is_the_first_that_is_not_white_space_or_a_quote_mark():
    content = [
        _entry(" ", -0.01, [(" ", -0.01)]),
        _entry("**", -0.3, [("**", -0.3), ("Yes", -1.4)]),  # not the answer: only marks
        _entry("No", -0.2, [("No", -0.2), ("Yes", -1.8)]),  # the answer token
        _entry(".", -0.01, [(".", -0.01), ("yes", -9.0)]),
    ]
    # at "No": P = e^−1.8 / (e^−0.2 + e^−1.8) = 1 / (1 + e^1.6) = 0.167982
    assert yes_probability({"content": content}) == pytest.approx(1 / (1 + e(1.6)), abs=1e-12)
    assert 1 / (1 + e(1.6)) == pytest.approx(0.167982, abs=1e-6)


def test_the_chosen_token_counts_once_even_when_also_listed():
    # the chosen "yes" appears in its own top list (as OpenAI returns it): counted once.
    # P = e^−0.1 / (e^−0.1 + e^−2.4) = 1 / (1 + e^−2.3) = 0.908877
    entry = _entry("yes", -0.1, [("yes", -0.1), ("no", -2.4)])
    assert yes_probability({"content": [entry]}) == pytest.approx(1 / (1 + e(-2.3)), abs=1e-12)
    # a sampled token outside the listed top k still counts (temperature > 0)
    entry = _entry("no", -5.0, [("yes", -0.05), ("Yes", -3.1)])
    want = (e(-0.05) + e(-3.1)) / (e(-0.05) + e(-3.1) + e(-5.0))
    assert yes_probability({"content": [entry]}) == pytest.approx(want, abs=1e-12)


def test_a_class_below_the_top_k_gets_its_upper_bound():
    # only yes-class listed: yes = e^−0.05 + e^−3.5 = 0.951229 + 0.030197 = 0.981426; what the listed
    # tokens leave of 1 is 0.018574 < the lowest listed 0.030197, so no = 0.018574 and
    # P = 0.981426 / (0.981426 + 0.018574) = 0.981426
    entry = _entry("yes", -0.05, [("yes", -0.05), ("Yes", -3.5)])
    assert yes_probability({"content": [entry]}) == pytest.approx(e(-0.05) + e(-3.5), abs=1e-12)
    assert e(-0.05) + e(-3.5) == pytest.approx(0.981426, abs=1e-6)
    # only no-class listed, lowest listed alternative the smaller bound: yes = e^−6 (0.002479);
    # no = e^−0.7 (0.496585); left of 1: 1 − 0.496585 − 0.002479 − 0.367879 (Maybe, e^−1) = 0.133057
    entry = _entry("no", -0.7, [("no", -0.7), ("Maybe", -1.0), ("The", -6.0)])
    assert yes_probability({"content": [entry]}) == pytest.approx(e(-6) / (e(-6) + e(-0.7)), abs=1e-12)


@pytest.mark.parametrize(
    "logprobs",
    [
        None,  # the server gave none
        {"content": None},
        {"content": []},
        {"content": [_entry("yes", -0.1, [])]},  # top_logprobs=0: no alternatives to compare
        {"content": [_entry("Maybe", -0.1, [("Maybe", -0.1), ("Perhaps", -2.0)])]},  # neither class
        {"content": [{"token": "yes"}]},  # no log-probability at all
        {"content": "yes"},
    ],
)
def test_no_p_yes_without_the_evidence(logprobs):
    assert yes_probability(logprobs) is None


def test_very_unlikely_tokens_and_bad_values():
    # OpenAI and vLLM write −9999.0 for "very unlikely": e^−9999 = 0, so P = 1 − 0 = 1
    entry = _entry("yes", -0.01, [("yes", -0.01), ("no", -9999.0)])
    assert yes_probability({"content": [entry]}) == 1.0
    # a logprob that is not a number (or > 0) is left out, not guessed
    entry = _entry("yes", -0.2, [("yes", -0.2), ("no", "x"), ("No", 0.5), ("no", -1.2)])
    assert yes_probability({"content": [entry]}) == pytest.approx(1 / (1 + e(-1.0)), abs=1e-12)
