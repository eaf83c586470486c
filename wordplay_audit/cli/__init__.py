"""The command line: ``main.py`` registers each command group by name; one small file per group.

Group modules import only ``typer`` and the standard library at the top; the library code a
command needs is imported inside that command, so ``wordplay-audit --help`` stays fast.
"""
