"""The command line: ``main.py`` registers each command group by name; one small file per group.

Group modules import only ``typer`` and the standard library at the top; the library code a
command needs is imported inside that command, so ``wordplay-audit --help`` stays fast.
"""

_EXPORTS = {"main": "main", "build_app": "main"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Import on first use, so importing the package stays light."""
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
