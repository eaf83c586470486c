"""The wheel holds one import package, ``wordplay_audit``; the rooms live under it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the tracked files (the checkout gets no build folder)."""
    src = tmp_path_factory.mktemp("src")
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in files:
        if (REPO / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(src),
        ],
        check=True,
        capture_output=True,
    )
    (found,) = out.glob("wordplay_audit-*.whl")
    return found


def test_the_wheel_records_only_the_wordplay_audit_package(wheel):
    with zipfile.ZipFile(wheel) as archive:
        record = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
        paths = [line.split(",")[0] for line in archive.read(record).decode().splitlines() if line]
    tops = {p.split("/")[0] for p in paths}
    assert tops == {"wordplay_audit", wheel.name.split("-py3")[0] + ".dist-info"}
    for room in ("annotate", "judges", "analysis", "corpora"):
        assert f"wordplay_audit/{room}/__init__.py" in paths


def test_installed_in_a_fresh_venv_it_imports_under_one_root(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # dependencies (pandas, …) from the test environment, appended after the fresh site-packages:
    # its site-packages and those its .pth files add (a venv may take its packages from another)
    deps = [sysconfig.get_paths()["purelib"], *(p for p in sys.path if p.endswith("site-packages"))]
    (fresh_site / "deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = (
        "import importlib.util, wordplay_audit, sys\n"
        "from wordplay_audit.analysis.agreement import fleiss_kappa\n"
        "print(wordplay_audit.__file__)\n"
        "print([n for n in ('analysis', 'corpora', 'annotate', 'judges') if importlib.util.find_spec(n)])\n"
    )
    result = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    location, stray = result.stdout.splitlines()
    assert location.startswith(str(fresh_site))
    assert stray == "[]"
    helped = subprocess.run(
        [str(env_dir / "bin" / "wordplay-audit"), "--help"], capture_output=True, text=True, cwd=tmp_path
    )
    assert helped.returncode == 0 and "balderdash" in helped.stdout
