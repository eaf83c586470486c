"""The data room: the contract, readers and writers of each game's files, simulators, the output transaction."""

_EXPORTS = {}
_SUBMODULES = ("balderdash", "connections", "contract", "demo", "io", "literal", "values", "wof")
__all__ = sorted([*_EXPORTS, *_SUBMODULES])


def __getattr__(name: str):
    """Import on first use, so importing the package stays light."""
    import importlib

    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
