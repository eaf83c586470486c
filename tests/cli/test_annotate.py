"""``wordplay-audit annotate`` as a command: Ctrl-C during ``next``, and every sub-command on
malformed input."""

from __future__ import annotations

import pytest

from tests.support import bad_inputs


def test_ctrl_c_during_next_names_a_written_round(run_cli, tmp_path, monkeypatch, capsys):
    """Ctrl-C after `next` wrote its round (the manifest changed) says the push may be partial;
    before that, the usual "no output was changed"."""
    from wordplay_audit.workflow import campaign_next as adaptive

    camp = tmp_path / "camp"
    camp.mkdir()
    (camp / "manifest.json").write_text("{}")

    def written(folder, spec, **kw):
        (folder / "manifest.json").write_text('{"rounds": [1]}')
        raise KeyboardInterrupt

    def early(folder, spec, **kw):
        raise KeyboardInterrupt

    args = ["annotate", "next", str(camp), "--budget", "4", "--labels", str(tmp_path / "f.csv")]
    monkeypatch.setattr(adaptive, "run_next", early)
    code, out, err = run_cli(*args)
    assert code == 130 and err.strip() == "error: interrupted; no output was changed"
    monkeypatch.setattr(adaptive, "run_next", written)
    with pytest.raises(SystemExit) as info:
        run_cli(*args)
    assert info.value.code == 130
    assert capsys.readouterr().err.startswith("error: interrupted after the round was written;")


# --- malformed input: one line, exit 2, the output folder as it was (tests/support/bad_inputs.py) ---


@pytest.mark.parametrize(
    ("command", "build", "kind", "slot"),
    bad_inputs.other_cases("annotate"),
    ids=bad_inputs.other_case_ids("annotate"),
)
def test_every_other_command_on_malformed_input(
    more_good, tmp_path, in_tmp, monkeypatch, tree_digest, command, build, kind, slot
):
    bad_inputs.check_other_command(more_good, tmp_path, in_tmp, monkeypatch, tree_digest, build, kind, slot)


@pytest.mark.parametrize("command", bad_inputs.good_runs("annotate"))
def test_the_table_breaks_only_the_input(more_good, good, tmp_path, in_tmp, monkeypatch, command):
    bad_inputs.check_good_run(more_good, good, tmp_path, in_tmp, monkeypatch, command)


@pytest.mark.parametrize("command", bad_inputs.folder_for_file("annotate"), ids=lambda c: c.replace(" ", "-"))
def test_a_folder_where_a_file_is_expected_is_named_as_a_folder(
    more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command
):
    bad_inputs.check_folder_for_file(more_good, good, tmp_path, in_tmp, monkeypatch, tree_digest, command)
