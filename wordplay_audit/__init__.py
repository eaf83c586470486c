"""wordplay-audit: check the labels behind LLM word-game benchmarks.

The rooms install under this root: ``wordplay_audit.annotate``, ``.judges``, ``.analysis``,
``.corpora`` (see docs/ARCHITECTURE.md); the command line is ``wordplay_audit.cli``.
"""

from __future__ import annotations

from collections.abc import Callable

__version__ = "0.1.0"

__all__ = ["__version__", "lazy_exports"]


def lazy_exports(package: str, exports: dict[str, str], submodules: tuple[str, ...] = ()) -> Callable:
    """A module ``__getattr__`` that imports ``exports`` (name → sub-module) and ``submodules``
    of ``package`` on first use, so importing a package stays light (no pandas, openai or
    Label Studio SDK until a name that needs them is touched)."""

    def __getattr__(name: str):
        import importlib

        if name in exports:
            return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
