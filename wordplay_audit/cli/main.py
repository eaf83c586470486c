"""The ``wordplay-audit`` entry point: every command group registered here, by name.

Bad input anywhere ends as one line on stderr and exit code 2 (:mod:`wordplay_audit.errors`);
an interrupt (SIGINT/SIGTERM) ends with exit code 130 after the output transaction rolled back.
"""

from __future__ import annotations

import sys

import click
import typer

from wordplay_audit.cli import analyze, annotate, balderdash, connections, demo, judge, wof
from wordplay_audit.errors import InputError, ParameterError


def build_app() -> typer.Typer:
    root = typer.Typer(
        name="wordplay-audit",
        help="Audit the labels behind LLM word-game benchmarks.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    root.command("demo")(demo.command)
    root.add_typer(analyze.app, name="analyze")
    root.add_typer(annotate.app, name="annotate")
    root.add_typer(balderdash.app, name="balderdash")
    root.add_typer(connections.app, name="connections")
    root.add_typer(judge.app, name="judge")
    root.add_typer(wof.app, name="wof")
    return root


def _usage_error(exc: BaseException) -> bool:
    """A command-line usage error from click or typer's bundled copy of it."""
    return hasattr(exc, "format_message") and hasattr(exc, "exit_code")


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def main(argv: list[str] | None = None) -> int:
    app = build_app()
    try:
        result = app(args=argv, standalone_mode=False, prog_name="wordplay-audit")
    except (InputError, ParameterError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (typer.Exit, click.exceptions.Exit) as exc:
        return int(exc.exit_code)
    except (typer.Abort, click.exceptions.Abort, KeyboardInterrupt):
        print("error: interrupted; no output was changed", file=sys.stderr)
        return 130
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{_one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not _usage_error(exc):
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()
            return 0
        print(f"error: {_one_line(exc.format_message())}", file=sys.stderr)
        return 2
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
