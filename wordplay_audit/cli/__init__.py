"""The command line: ``main.py`` registers each command group by name; one small file per group.

Group modules import only ``typer`` and the standard library at the top; the library code a
command needs is imported inside that command, so ``wordplay-audit --help`` stays fast.
"""

from wordplay_audit import lazy_exports

_EXPORTS = {"main": "main", "build_app": "main"}
__all__ = sorted([*_EXPORTS, "run"])
__getattr__ = lazy_exports(__name__, _EXPORTS, ())


def run() -> int:
    """The console script ``wordplay-audit``: :func:`main`, with a Ctrl-C while the command line
    is still importing ending as every interrupt does (one line, exit code 130)."""
    try:
        from wordplay_audit.cli.main import main
    except KeyboardInterrupt:
        import sys

        sys.stderr.write("error: interrupted; no output was changed\n")
        return 130
    return main()
