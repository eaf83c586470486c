"""The output transaction (``corpora.io.output_folder`` / ``output_file``) refuses a ``--out``
folder or file the user made read-only, instead of replacing it: the exchange (or rename) needs
only the parent folder, so a user who cannot write into the folder by any other means would
still have lost it. A writable earlier output is replaced as before.

Modes mean nothing to a process holding root's capabilities (CAP_DAC_OVERRIDE ignores them), so
the commands run in a child process without privileges: when the tests run as root, the child
drops every capability before it starts Python (the bounding, inheritable and ambient sets are
emptied, so the exec of ``python`` grants none; it stays uid 0, which owns the test folders and
the interpreter), and the kernel then checks the mode bits for it as for any owner; as another
user the child runs as that user. ``test_the_child_cannot_write_into_a_read_only_folder`` shows
that the child is subject to the modes — without it the other tests would prove nothing.
(Switching to ``nobody`` instead is not possible here: the interpreter lives under ``/root``,
mode 700.)
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_checks import one_line_error
from wordplay_audit.corpora.demo import write_demo_corpus
from wordplay_audit.corpora.io import MARKER

_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _drop_capabilities() -> None:
    """Runs in the child between fork and exec: nothing the exec could grant is left."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:  # EINVAL past the last capability
            break
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        os._exit(120)
    for half in data:
        half.inheritable = 0
    if libc.capset(ctypes.byref(header), data) != 0:
        os._exit(121)


def run_child(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """Run ``argv`` with this interpreter in a child process without privileges."""
    done = subprocess.run(
        [sys.executable, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=_drop_capabilities if os.geteuid() == 0 else None,
        timeout=600,
    )
    return done.returncode, done.stdout, done.stderr


def cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    return run_child(cwd, "-m", "wordplay_audit", *args)


def tree(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def work(tmp_path):
    yield tmp_path
    for path in [tmp_path, *tmp_path.rglob("*")]:  # let pytest remove what the tests locked
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def test_the_child_cannot_write_into_a_read_only_folder(work):
    (work / "ro").mkdir(mode=0o555)
    (work / "ro").chmod(0o555)
    probe = (
        "import os\n"
        "eff = [l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1]\n"
        "try:\n    open('ro/x', 'w')\nexcept PermissionError:\n    print(int(eff, 16), 'denied')\n"
    )
    code, out, err = run_child(work, "-c", probe)
    assert (code, out) == (0, "0 denied\n"), err
    assert not (work / "ro" / "x").exists()


COMMANDS = {
    "connections score": ("connections", "score", "--data", "{data}", "--out", "{out}"),
    "balderdash simulate": (
        "balderdash",
        "simulate",
        "--out",
        "{out}",
        "--games-per-deck",
        "1",
        "--rounds",
        "2",
    ),
}


def _args(name: str, work: Path) -> list[str]:
    data = work / "cx"
    if name == "connections score" and not data.exists():
        write_demo_corpus(data)
    return [a.format(data=data, out=work / "out") for a in COMMANDS[name]]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_read_only_out_folder_is_refused_and_a_writable_one_replaced(work, name):
    out = work / "out"
    code, _, err = cli(work, *_args(name, work))
    assert code == 0 and out.is_dir(), err
    code, stdout, err = cli(work, *_args(name, work))  # the normal replace of an earlier output
    assert code == 0, err
    assert stdout.strip().splitlines()[-1] == f"replaced the earlier output in {out}"
    before = tree(out)
    out.chmod(0o555)
    code, stdout, err = cli(work, *_args(name, work))
    one_line_error(
        code,
        stdout,
        err,
        f"{out}: the folder is read-only (mode 555) and the output (--out) would replace it",
    )
    assert tree(out) == before
    data = {"cx"} if name == "connections score" else set()
    assert {p.name for p in work.iterdir()} == {"out", *data}  # no staging folder, no lock file


@pytest.mark.parametrize(
    "layout",
    ["an earlier demo output", "an empty folder", "a read-only folder inside"],
)
def test_demo_refuses_a_read_only_out_folder(work, layout):
    out = work / "out"
    out.mkdir()
    if layout != "an empty folder":  # what an earlier run leaves: the marker and its files
        (out / MARKER).write_text("written by wordplay-audit\n", encoding="utf-8")
        (out / "report.html").write_text("<p>earlier</p>\n", encoding="utf-8")
    locked = out
    if layout == "a read-only folder inside":
        locked = out / "figures"
        locked.mkdir()
        (locked / "a.png").write_bytes(b"png")
    before = tree(out)
    locked.chmod(0o555)
    code, stdout, err = cli(work, "demo", "--out", str(out))
    what = "the folder" if locked == out else f"a folder inside {out}"
    one_line_error(
        code, stdout, err, f"{locked}: {what} is read-only (mode 555) and the output (--out) would replace it"
    )
    assert tree(out) == before and [p.name for p in work.iterdir()] == ["out"]


def _labels(work: Path) -> Path:
    labels = work / "labels.csv"
    labels.write_text(
        "item_id,rater,rater_type,label\ni1,ann,human,yes\ni1,bob,human,yes\ni2,ann,human,no\ni2,bob,human,no\n",
        encoding="utf-8",
    )
    return labels


def test_a_read_only_out_file_is_refused(work):
    labels, out = _labels(work), work / "consensus.csv"
    out.write_text("item_id,label\ni1,yes\n", encoding="utf-8")  # someone's file, made read-only
    out.chmod(0o444)
    code, stdout, err = cli(work, "analyze", "aggregate", str(labels), "--out", str(out))
    one_line_error(
        code, stdout, err, f"{out}: the file is read-only (mode 444) and the output (--out) would replace it"
    )
    assert out.read_text(encoding="utf-8") == "item_id,label\ni1,yes\n"
    assert sorted(p.name for p in work.iterdir()) == ["consensus.csv", "labels.csv"]  # no lock, no temp


@pytest.mark.slow
def test_a_writable_out_file_is_replaced(work):
    labels, out = _labels(work), work / "consensus.csv"
    for _ in range(2):  # a new file, then the normal replace of the earlier one
        code, stdout, err = cli(work, "analyze", "aggregate", str(labels), "--out", str(out))
        assert code == 0, err
    assert stdout.strip().splitlines()[-1] == f"replaced the existing file {out}"
    assert out.read_text(encoding="utf-8").splitlines()[0].startswith("item_id")
