"""The command line: ``main.py`` registers each command group by name; one small file per group.

Group modules import only ``typer`` and the standard library at the top; the library code a
command needs is imported inside that command, so ``wordplay-audit --help`` stays fast.
"""

from wordplay_audit import lazy_exports

_EXPORTS = {"main": "main", "build_app": "main"}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS, ())
