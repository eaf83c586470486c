"""Compose the sub-commands that each package defines under ``<package>/cli/``.

Every module there that has ``NAME`` and ``app`` (a ``typer.Typer``) becomes a command group;
one with ``NAME`` and ``command`` (a function) becomes a single command. Bad input anywhere ends
as one line on stderr and exit code 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click
import typer

from wordplay_audit.corpora.contract import InputError

PACKAGES = ("wordplay_audit.corpora", "wordplay_audit.annotate", "wordplay_audit.judges", "wordplay_audit.analysis")


def build_app() -> typer.Typer:
    root = typer.Typer(
        name="wordplay-audit",
        help="Audit the labels behind LLM word-game benchmarks.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for package in PACKAGES:
        cli_package = importlib.import_module(f"{package}.cli")
        for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{package}.cli.{info.name}")
            name = getattr(module, "NAME", None)
            if name is None:
                continue
            if hasattr(module, "app"):
                root.add_typer(module.app, name=name)
            elif hasattr(module, "command"):
                root.command(name)(module.command)
    return root


def _usage_error(exc: BaseException) -> bool:
    """A command-line usage error from click or typer's bundled copy of it."""
    return hasattr(exc, "format_message") and hasattr(exc, "exit_code")


def main(argv: list[str] | None = None) -> int:
    app = build_app()
    try:
        result = app(args=argv, standalone_mode=False, prog_name="wordplay-audit")
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (typer.Exit, click.exceptions.Exit) as exc:
        return int(exc.exit_code)
    except (typer.Abort, click.exceptions.Abort):
        print("error: aborted", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not _usage_error(exc):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()
            return 0
        print(f"error: {exc.format_message()}", file=sys.stderr)
        return 2
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
