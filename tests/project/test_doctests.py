"""Every docstring example in the library and the README's "From Python" section run as tests.

Modules are imported by their installed names (``wordplay_audit.<room>.…``), so the examples
see the same objects a user does.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import wordplay_audit

REPO = Path(__file__).resolve().parents[2]


ROOMS = ("annotate", "judges", "analysis", "corpora")


def library_modules() -> list[str]:
    """Every module of the app layer and of the four rooms (mapped under the root)."""
    packages = [wordplay_audit] + [importlib.import_module(f"wordplay_audit.{room}") for room in ROOMS]
    names = {p.__name__ for p in packages}
    for package in packages:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.add(info.name)
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("name", library_modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_readme_from_python_section():
    result = doctest.testfile(
        str(REPO / "README.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0 and result.failed == 0
