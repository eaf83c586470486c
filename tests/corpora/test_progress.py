"""The one progress bar: off by default (a notebook's output cell stays clean), on when the
step asks or the calling context (the CLI) says so, and always on stderr."""

from wordplay_audit.corpora.progress import bar, progress, progress_default, show_progress


def _run(capsys, **kwargs):
    assert list(progress(range(3), desc="work", **kwargs)) == [0, 1, 2]
    return capsys.readouterr()


def test_off_by_default(capsys):
    assert progress_default() is False
    seen = _run(capsys)
    assert seen.out == "" and seen.err == ""


def test_asked_for_shows_on_stderr_only(capsys):
    seen = _run(capsys, enabled=True)
    assert seen.out == ""
    assert "work" in seen.err and "/3 " in seen.err  # the bar counts out of 3 (cleared when done)


def test_context_default_and_override(capsys):
    with show_progress(True):
        assert "work" in _run(capsys).err
        assert _run(capsys, enabled=False).err == ""
    with show_progress(False):
        assert "work" in _run(capsys, enabled=True).err
    assert progress_default() is False


def test_auto_hides_off_a_terminal(capsys):
    with show_progress(None):  # pytest's captured stderr is not a terminal
        assert _run(capsys).err == ""


def test_bar_counts_updates(capsys):
    with bar(total=10, desc="items", enabled=True) as b:
        b.update(4)
        b.update(6)
    assert "items" in capsys.readouterr().err
