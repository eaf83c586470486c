"""The ``wordplay-audit`` entry point: every command group registered here, by name.

Bad input anywhere ends as one line on stderr and exit code 2 (:mod:`wordplay_audit.errors`);
an interrupt (SIGINT/SIGTERM) ends with exit code 130 after the output transaction rolled back.
"""

from __future__ import annotations

import re
import sys

import click
import typer

from wordplay_audit.cli import analyze, annotate, balderdash, connections, demo, judge, wof
from wordplay_audit.corpora.io import command_inputs
from wordplay_audit.errors import InputError, ParameterError


def build_app() -> typer.Typer:
    root = typer.Typer(
        rich_markup_mode=None,
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


def _error(message: object, code: int = 2) -> int:
    print(f"error: {_one_line(message)}", file=sys.stderr)
    return code


def _os_message(exc: OSError) -> str:
    """``<file>: <the system's message>``, lower-case as every other message; a folder named so."""
    where = f"{exc.filename}: " if exc.filename else ""
    if isinstance(exc, IsADirectoryError):
        return f"{where}is a folder, expected a file"
    what = str(exc.strerror or exc)
    return f"{where}{what[:1].lower()}{what[1:]}"


def _command_flags(argv: list[str]) -> dict[str, str]:
    """Python parameter name → how the command ``argv`` invokes names it (``--honeypot-rate``
    for ``honeypot_rate``, ``LABELS`` for an argument)."""
    command = typer.main.get_command(build_app())
    context = click.Context(command)
    for token in argv:
        if not hasattr(command, "get_command"):  # not a group (typer bundles its own click)
            break
        sub = command.get_command(context, token)
        if sub is None:
            break
        command = sub
    flags = {}
    for param in getattr(command, "params", []):
        if getattr(param, "param_type_name", "") == "option":
            longs = [o for o in param.opts if o.startswith("--")] or list(param.opts)
            flags[str(param.name)] = longs[0]
        else:
            flags[str(param.name)] = str(param.name).upper()
    return flags


# the command of each public function a library message may point to (`wa.fit_judge`)
API_COMMANDS = {
    "adjudicate": "annotate adjudicate", "agreement": "analyze agreement", "consensus": "analyze aggregate",
    "judge_audit": "analyze judge-audit", "balderdash_convergence": "balderdash convergence",
    "balderdash_items": "balderdash items", "balderdash_metrics": "balderdash metrics",
    "balderdash_recompute": "balderdash recompute", "balderdash_report": "balderdash report",
    "balderdash_trend": "balderdash trend", "plan_labels": "balderdash plan", "simulate_balderdash": "balderdash simulate",
    "batch_read": "judge batch-read", "batch_write": "judge batch-write", "fit_judge": "judge fit", "run_judge": "judge run",
    "campaign_status": "annotate status", "next_round": "annotate next", "plan_campaign": "annotate plan",
    "push_campaign": "annotate push", "pull_campaign": "annotate pull", "create_raters": "annotate raters",
    "export_task_files": "annotate export-files", "import_answers": "annotate import-file",
    "connections_recompute": "connections recompute", "connections_score": "connections score",
    "wof_metrics": "wof metrics", "wof_recompute": "wof recompute", "simulate_wof": "wof simulate", "run_demo": "demo",
}  # fmt: skip

_LEADING_NAMES = re.compile(r"^([a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*):")


def cli_message(message: str, flags: dict[str, str]) -> str:
    """A library message that starts with Python parameter names (``overlap: …``,
    ``assume_se, assume_sp: …``) with each name the command has as a flag replaced by it.

    >>> cli_message("overlap: expected 1..3", {"overlap": "--overlap"})
    '--overlap: expected 1..3'
    >>> cli_message("assume_se, assume_sp: give both", {"assume_se": "--assume-se", "assume_sp": "--assume-sp"})
    '--assume-se, --assume-sp: give both'
    >>> cli_message("labels.csv line 3: bad", {"labels": "LABELS"})
    'labels.csv line 3: bad'

    A parameter named in parentheses anywhere (``the output (out) would replace it``) is its
    flag too:

    >>> cli_message("x: the output (out) would replace it", {"out": "--out"})
    'x: the output (--out) would replace it'

    and so is one in backquotes (``give `name```), and a public function the command of its own:

    >>> cli_message("fit: needs a threshold (`wa.fit_judge`)", {"fit": "--fit"})
    '--fit: needs a threshold (`wordplay-audit judge fit`)'


    >>> cli_message("name: bad (the output folder's; give `name`)", {"name": "--name"})
    "--name: bad (the output folder's; give `--name`)"
    """
    message = re.sub(r"\(([a-z_][a-z0-9_]*)\)", lambda m: f"({flags.get(m.group(1), m.group(1))})", message)
    message = re.sub(r"`([a-z_][a-z0-9_]*)`", lambda m: f"`{flags.get(m.group(1), m.group(1))}`", message)
    message = re.sub(r"`wa\.([a-z_]+)`", lambda m: f"`wordplay-audit {API_COMMANDS[m.group(1)]}`"
                     if m.group(1) in API_COMMANDS else m.group(0), message)  # fmt: skip
    found = _LEADING_NAMES.match(message)
    if not found or not all(name in flags for name in found.group(1).split(", ")):
        return message
    names = ", ".join(flags[name] for name in found.group(1).split(", "))
    return names + message[found.end(1) :]


def _handle(exc: BaseException, argv: list[str] | None = None) -> int:
    """The exit code for an exception that ended a command (after printing one line)."""
    if isinstance(exc, InputError | ParameterError):
        # the library names its parameters; the user typed flags
        return _error(
            cli_message(_one_line(exc), _command_flags(list(sys.argv[1:] if argv is None else argv)))
        )
    if isinstance(exc, typer.Exit | click.exceptions.Exit):
        return int(exc.exit_code)
    if isinstance(exc, typer.Abort | click.exceptions.Abort | KeyboardInterrupt):
        return _error("interrupted; no output was changed", 130)
    if isinstance(exc, OSError):  # the last resort: readers turn the usual ones into InputError
        return _error(_os_message(exc))
    if type(exc).__name__ == "NoArgsIsHelpError":
        exc.show()
        return 0
    if _usage_error(exc):
        return _error(exc.format_message())
    raise exc


def progress_default(args: list[str]) -> bool | None:
    """The bars' default for a command (its ``--progress``/``--no-progress`` decides over it):
    off under ``--json`` (a pipe reads the output), else shown when stderr is a terminal.

    >>> progress_default(["analyze", "agreement", "labels.csv", "--json"]), progress_default(["demo"])
    (False, None)
    """
    options = args[: args.index("--")] if "--" in args else args  # after "--": arguments only
    return False if "--json" in options else None


def main(argv: list[str] | None = None) -> int:
    import wordplay_audit as wa

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        app = build_app()
        with command_inputs(args), wa.show_progress(progress_default(args)):  # no --out onto an input
            result = app(args=argv, standalone_mode=False, prog_name="wordplay-audit")
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - re-raised when not a user error
        return _handle(exc, argv)
    if result == 130:  # typer turns Ctrl-C into Exit(130), which click returns in this mode
        return _error("interrupted; no output was changed", 130)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    raise SystemExit(main())
