"""The layer rule, checked on the source tree by walking every module's imports (AST).

    wordplay_audit.cli → the public API (the root ``wordplay_audit``: names resolved lazily
        from wordplay_audit.workflow) → {analysis, judges, annotate} → corpora → errors

The CLI imports the root's public names, ``errors``, itself and the output transaction's
guards (``corpora.io``, ``workflow.jsonable``) — never a room or another workflow module. The
workflow imports the rooms, ``corpora`` and ``errors``, never the CLI or the root's API. The
middle three never import each other, nor the workflow, the API or the CLI; ``corpora``
imports only ``errors``; ``errors`` imports none of the toolkit. The root's helpers
(``lazy_exports``, ``__version__``) may be imported by every layer. Imports inside functions
count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("annotate", "judges", "analysis", "corpora")
ROOT_NAMES = ("lazy_exports", "__version__")  # helpers of the root module every layer may use
GUARDS = ("wordplay_audit.corpora.io", "wordplay_audit.workflow.jsonable")  # the CLI's output transaction

ALLOWED: dict[str, set[str]] = {
    "cli": {"cli", "api", "guard:corpora", "guard:workflow", "errors", "root"},
    "api": {"api", "workflow", "root", "errors"},
    "workflow": {
        "workflow",
        "guard:workflow",
        "analysis",
        "judges",
        "annotate",
        "corpora",
        "guard:corpora",
        "errors",
        "root",
    },
    "analysis": {"analysis", "corpora", "guard:corpora", "errors", "root"},
    "judges": {"judges", "corpora", "guard:corpora", "errors", "root"},
    "annotate": {"annotate", "corpora", "guard:corpora", "errors", "root"},
    "corpora": {"corpora", "guard:corpora", "errors", "root"},
    "errors": {"errors", "root"},
    "root": {"root"},
}


def layer_of(module: str, *, home: bool = False) -> str | None:
    """The layer of a dotted name of the toolkit (a module, or a name imported from one); None
    for outside modules. ``home``: the layer a module lives in (a guard is in its room's)."""
    if module in ("wordplay_audit", "wordplay_audit.__init__"):
        return "api"
    if not module.startswith("wordplay_audit."):
        return None
    for guard in GUARDS:
        if not home and (module == guard or module.startswith(guard + ".")):
            return "guard:" + guard.split(".")[1]  # guard:corpora, guard:workflow
    second = module.split(".")[1]
    if second in ("cli", "__main__"):
        return "cli"
    if second == "workflow":
        return "workflow"
    if second in ROOMS:
        return second
    if second == "errors":
        return "errors"
    if second in ROOT_NAMES:
        return "root"
    return "api"  # a public name of the root (wa.read_labels, wa.API)


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[0] in ROOMS:
        parts = ["wordplay_audit", *parts]
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, dotted name) of every import in ``source``, relative imports resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            # the names imported say what is reached: ``from wordplay_audit import lazy_exports``
            # reaches the root's helper, not its API; ``from x import *`` reaches the module
            found += [
                (node.lineno, name if alias.name == "*" else f"{name}.{alias.name}") for alias in node.names
            ]
    return found


def violations(path: Path, source: str | None = None, module: str | None = None) -> list[str]:
    module = module or module_name(path)
    own = layer_of(module, home=True)
    if own is None:
        return []
    text = source if source is not None else path.read_text(encoding="utf-8")
    out = []
    for line, name in imported_modules(text, module, path.name == "__init__.py"):
        target = layer_of(name)
        if target is None or target in ALLOWED[own]:
            continue
        out.append(f"{path}:{line}: {module} ({own}) imports {name} ({target})")
    return sorted(set(out))


def library_files() -> list[Path]:
    files = [p for room in ROOMS for p in (ROOT / room).rglob("*.py")]
    return files + list((ROOT / "wordplay_audit").rglob("*.py"))


def test_every_library_module_respects_the_layers():
    problems = [v for path in library_files() for v in violations(path)]
    assert not problems, "imports against the layer rule:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "bad"),
    [
        ("wordplay_audit.corpora.x", "from wordplay_audit.analysis.agreement import fleiss_kappa", True),
        ("wordplay_audit.analysis.x", "import wordplay_audit.judges.base", True),
        ("wordplay_audit.judges.x", "def f():\n    from wordplay_audit.annotate import plan\n", True),
        ("wordplay_audit.annotate.x", "from wordplay_audit.cli.output import emit", True),
        ("wordplay_audit.analysis.x", "from wordplay_audit.cli import main", True),
        ("wordplay_audit.analysis.x.y", "from ...judges import base", True),
        ("wordplay_audit.analysis.x", "from wordplay_audit.corpora.contract import place", False),
        ("wordplay_audit.cli.x", "from wordplay_audit.analysis import agreement", True),
        ("wordplay_audit.cli.x", "from wordplay_audit.workflow.results import Result", True),
        ("wordplay_audit.cli.x", "def f():\n    import wordplay_audit as wa\n", False),
        ("wordplay_audit.cli.x", "from wordplay_audit.corpora.io import output_file", False),
        ("wordplay_audit.cli.x", "from wordplay_audit.workflow.jsonable import plain", False),
        ("wordplay_audit.workflow.x", "from wordplay_audit.analysis import agreement", False),
        ("wordplay_audit.workflow.x", "from wordplay_audit.cli.output import show", True),
        ("wordplay_audit.workflow.x", "import wordplay_audit as wa", True),
        ("wordplay_audit.analysis.x", "from wordplay_audit.workflow import results", True),
        ("wordplay_audit.analysis.x", "from wordplay_audit import read_labels", True),
        ("wordplay_audit.analysis.x", "from wordplay_audit import lazy_exports", False),
        ("wordplay_audit.corpora.x", "import wordplay_audit as wa", True),
        ("wordplay_audit.analysis.x.y", "from . import z", False),
        ("wordplay_audit.errors", "from wordplay_audit.corpora import io", True),
    ],
)
def test_the_check_fails_on_a_synthetic_module_against_the_arrows(module, source, bad):
    assert bool(violations(Path("synthetic.py"), source, module)) is bad


def test_the_command_line_starts_without_heavy_libraries():
    """``wordplay-audit --help`` imports the command groups only: no pandas, numpy, matplotlib,
    statsmodels, openai or Label Studio SDK at start-up (their import is what made it slow)."""
    import subprocess
    import sys

    code = (
        "import sys; from wordplay_audit.cli.main import build_app; build_app(); "
        "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib', 'statsmodels', 'openai', "
        "'label_studio_sdk', 'sklearn', 'scipy', 'pyarrow') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # two fresh interpreters, about 4-5 s
def test_balderdash_metrics_and_recompute_run_without_scipy(tmp_path):
    """``balderdash metrics`` and ``recompute`` never import scipy (≈ 0.15–0.3 s of their start-up,
    the margin of a recompute within 1.3 × metrics): their normal quantile, log-factorials
    and majority vote come from numpy and the standard library."""
    import subprocess
    import sys

    export = tmp_path / "export"
    subprocess.run(
        [sys.executable, "-m", "wordplay_audit", "balderdash", "simulate", "--out", str(export),
         "--games-per-deck", "1", "--rounds", "4", "--labels-per-stratum", "6"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    runner = (
        "import runpy, sys; sys.argv = ['wordplay-audit', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('wordplay_audit', run_name='__main__')\n"
        "except SystemExit as stop:\n    assert not stop.code, stop.code\n"
        "print('SCIPY', sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    for args in (
        ["balderdash", "metrics", str(export)],
        ["balderdash", "recompute", str(export), "--human", str(export / "labels.csv")],
        ["balderdash", "recompute", str(export), "--human", str(export / "labels.csv"), "--json"],
    ):
        out = subprocess.run(
            [sys.executable, "-c", runner, *args], capture_output=True, text=True, check=True
        )
        assert out.stdout.strip().splitlines()[-1] == "SCIPY []", (
            args,
            out.stdout[-500:],
            out.stderr[-2000:],
        )


def test_every_package_names_its_public_api():
    """Each package's ``__init__`` declares ``__all__``, and every name in it resolves."""
    import importlib

    packages = [p for p in library_files() if p.name == "__init__.py"]
    missing = []
    for path in packages:
        name = module_name(path)
        module = importlib.import_module(name)
        if not hasattr(module, "__all__"):
            missing.append(name)
            continue
        for attr in module.__all__:
            getattr(module, attr)  # raises when a listed name does not exist
    assert not missing, "packages without __all__: " + ", ".join(missing)
