"""The one-line-error check the bad-input tests share."""

from __future__ import annotations


def one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    """Exit 2, nothing on stdout, one ``error:`` line on stderr holding every needle, no traceback."""
    assert code == 2 and out == "", (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
