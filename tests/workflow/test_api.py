"""The public API: every name ``wordplay_audit`` exports resolves on first access, to the same
object on every access (also after the modules behind it were imported some other way), and
importing the package stays light."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import wordplay_audit

ROOMS = ("annotate", "judges", "analysis", "corpora")


def test_every_exported_name_resolves_to_one_object():
    for name in wordplay_audit.__all__:
        first = getattr(wordplay_audit, name)
        assert getattr(wordplay_audit, name) is first, name


def test_a_fresh_interpreter_resolves_each_name_on_first_access():
    code = (
        "import wordplay_audit as wa\n"
        "missing = [n for n in wa.__all__ if getattr(wa, n, None) is None]\n"
        "print(len(missing), missing)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("0 "), out


def test_importing_the_package_loads_no_heavy_library():
    code = "import sys, wordplay_audit; print(sorted(m for m in ('pandas', 'openai', 'label_studio_sdk') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _packages() -> list[str]:
    out = []
    for room in ROOMS:
        package = importlib.import_module(f"wordplay_audit.{room}")
        out.append(package.__name__)
        out += [f"{package.__name__}.{m.name}" for m in pkgutil.walk_packages(package.__path__) if m.ispkg]
    return out


@pytest.mark.parametrize("package", _packages())
def test_room_exports_are_the_same_object_before_and_after_their_modules_load(package):
    """A lazily exported name that shares a sub-module's name was the function on first access
    and the module once the sub-module was imported (``annotate.reconcile``); and a sub-module
    must be reachable as an attribute without importing it by path (``analysis.allocation``)."""
    module = importlib.import_module(package)
    names = list(getattr(module, "__all__", []))
    first = {name: getattr(module, name) for name in names}
    for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
        importlib.import_module(f"{package}.{info.name}")
        assert getattr(module, info.name) is not None
    for name in names:
        assert getattr(module, name) is first[name], f"{package}.{name} changed once its modules loaded"


def test_every_parameter_of_a_public_function_reaches_its_body():
    """A keyword the function accepts but never reads is a silent drop (``agreement`` once took
    ``weights`` and measured unweighted): every parameter of every public function is read in
    its body (a body that hands ``locals()`` on reads all of them)."""
    import ast
    import inspect
    import textwrap

    import wordplay_audit as wa

    unread = {}
    for name in wa.API:
        obj = getattr(wa, name)
        if not inspect.isfunction(obj):
            continue
        node = ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]
        args = node.args
        params = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
        read = {n.id for statement in node.body for n in ast.walk(statement) if isinstance(n, ast.Name)}
        if "locals" in read:
            continue
        if missing := [p for p in params if p not in read]:
            unread[name] = missing
    assert not unread, unread
