"""The one way this toolkit writes output: folders and files as transactions.

:func:`output_folder` stages everything in a private folder beside the target and makes it
appear in one step: a rename for a new folder, an atomic exchange (Linux ``renameat2``
``RENAME_EXCHANGE``; two renames elsewhere) for a folder that already holds an earlier run's
output. An error, SIGINT or SIGTERM leaves the target exactly as it was and removes the staging
folder; a staging folder left by SIGKILL is removed by the next run on the same target. A second
writer on the same target is refused (advisory ``flock`` on a lock file beside the target).

Refused targets: ``''``/``.``/the current directory or any folder containing it, a path that is
a file, an existing non-empty folder that this toolkit did not write (it holds no
:data:`MARKER` file) — replacing it would delete someone's files —, a folder that the user
cannot write into (or that holds such a folder: mode 555, say) and a file the user cannot write
— the rename would replace it although the user made it read-only —, and, inside
:func:`command_inputs` (every command of the CLI), a ``--…`` target that is, or holds, a path the
command was given as input (``balderdash items sim --out sim`` would replace its own input).

:func:`output_file` does the same for one file (temporary file beside it, ``os.replace``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path

from wordplay_audit.errors import InputError, ParameterError

MARKER = ".wordplay-audit"
"""File inside every output folder this toolkit wrote; its presence allows replacing the folder."""

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_INPUTS: ContextVar[tuple[tuple[str, Path], ...]] = ContextVar("wordplay_audit_inputs", default=())
_REPLACED: ContextVar[list[str] | None] = ContextVar("wordplay_audit_replaced", default=None)


INPLACE = "campaign"
"""The ``option`` of a folder a command updates in place (``annotate next``'s campaign): not an
output target named by the user, so neither checked against the inputs nor reported replaced."""


def parameter_name(option: str) -> str:
    """A command-line flag as the Python parameter it sets (``--honeypot-rate`` →
    ``honeypot_rate``); a parameter name as it is.

    >>> parameter_name("--out"), parameter_name("labels")
    ('out', 'labels')
    """
    return option.lstrip("-").replace("-", "_")


def replaced_outputs() -> list[str]:
    """The output targets (folders or files) that held an earlier output and were replaced
    since the enclosing :func:`command_inputs` began (the CLI says so: a second run on one folder
    is allowed, but not silent); empty outside it."""
    return list(_REPLACED.get() or ())


def _note_replaced(path: Path, option: str) -> None:
    found = _REPLACED.get()
    if found is not None and option != INPLACE:
        found.append(str(path))


@contextlib.contextmanager
def command_inputs(argv: Sequence[str]) -> Iterator[None]:
    """While inside, an output target given with a ``--…`` option may not be (or hold) a path
    that ``argv`` names and that exists — except the target's own value (the token after its
    option, or ``--out=…``). The CLI wraps every command in it."""
    found, prev = [], ""
    for token in argv:
        option, value = token.split("=", 1) if token.startswith("--") and "=" in token else (prev, token)
        for path in (value, value.partition("=")[2]):  # also RATER=FILE (--export ann=a.json)
            with contextlib.suppress(OSError, ValueError):  # a name too long, a NUL: not a path
                if path and os.path.exists(path):
                    found.append((parameter_name(option), Path(path).resolve()))
        prev = token
    reset, replaced = _INPUTS.set(tuple(found)), _REPLACED.set([])
    try:
        yield
    finally:
        _INPUTS.reset(reset)
        _REPLACED.reset(replaced)


def _target_path(target: str | os.PathLike, option: str) -> Path:
    text = os.fspath(target)
    if not str(text).strip():
        raise ParameterError(f"{option}: empty path; name a folder (it is created if absent)")
    path = Path(text)
    resolved = path.resolve()
    cwd = Path.cwd().resolve()
    if resolved == cwd or resolved in cwd.parents:
        raise ParameterError(
            f"{option}: {text} is the current directory or contains it; name a new or output folder"
        )
    name = parameter_name(option)
    for given, source in _INPUTS.get() if option != INPLACE else ():
        if given != name and (source == resolved or resolved in source.parents):
            raise ParameterError(
                f"{option}: {text} is or holds the input {source}, which the output would replace; "
                "name another path"
            )
    return path


class _Lock:
    """An exclusive, non-blocking ``flock`` on ``<parent>/.<name>.lock``, removed on release."""

    def __init__(self, target: Path, option: str) -> None:
        self.path = target.parent / f".{target.name}.lock"
        self.target = target
        self.option = option
        self.fd: int | None = None

    def acquire(self) -> None:
        for _ in range(20):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EAGAIN, errno.EACCES):
                    raise InputError(
                        f"{self.target}: another wordplay-audit run is writing this output "
                        f"(lock {self.path}); wait for it or choose another output"
                    ) from None
                raise
            try:  # the file we locked must still be the one at the path (not unlinked meanwhile)
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return
            os.close(fd)
        raise InputError(f"{self.target}: could not take the output lock {self.path}")

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self.fd)
        self.fd = None


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt for the duration, so clean-up code runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux ``renameat2``); False where unsupported."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc != 0:
        err = ctypes.get_errno()
        if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            return False
        raise OSError(err, os.strerror(err), str(a))
    return True


def _remove_stale(parent: Path, name: str) -> None:
    """Remove staging folders of earlier runs on this target (killed before they cleaned up)."""
    for stale in parent.glob(f".{name}.staging-*"):
        shutil.rmtree(stale, ignore_errors=True)


def _writable(path: Path, mode: int) -> bool:
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _read_only(path: Path, option: str, what: str) -> InputError:
    mode = stat.S_IMODE(path.stat().st_mode)
    return InputError(
        f"{path}: {what} is read-only (mode {mode:o}) and the output ({option}) would replace it; make it "
        "writable or choose another output"
    )


def _check_writable_folder(target: Path, option: str) -> None:
    """Refuse a folder the user cannot write into, or one holding such a folder: the exchange
    needs only the parent, but the user made it read-only (and could not remove it)."""
    if not _writable(target, os.W_OK | os.X_OK):
        raise _read_only(target, option, "the folder")
    for root, folders, _ in os.walk(target):
        for name in folders:
            inner = Path(root) / name
            if not inner.is_symlink() and not _writable(inner, os.W_OK | os.X_OK):
                raise _read_only(inner, option, f"a folder inside {target}")


def _check_replaceable(target: Path, option: str) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise InputError(f"{target}: is a file, expected an output folder ({option})")
    _check_writable_folder(target, option)
    if (target / MARKER).is_file():
        return
    if any(target.iterdir()):
        raise InputError(
            f"{target}: folder exists and was not written by wordplay-audit; "
            "choose a new output folder or empty it (its files would be replaced)"
        )


@contextlib.contextmanager
def output_folder(target: str | os.PathLike, *, option: str = "out") -> Iterator[Path]:
    """Yield a private staging folder; on normal exit make it ``target`` in one step.

    On any exception (including KeyboardInterrupt and SIGTERM) the staging folder is removed and
    ``target`` is left exactly as it was. ``option`` names the parameter in error messages.
    """
    path = _target_path(target, option)
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    lock = _Lock(path, option)
    lock.acquire()
    try:
        _remove_stale(parent, path.name)
        _check_replaceable(path, option)
        with _terminate_as_interrupt():
            staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.staging-", dir=parent))
            os.chmod(staging, 0o777 & ~_umask())
            try:
                yield staging
                (staging / MARKER).write_text("written by wordplay-audit\n", encoding="utf-8")
                earlier = path.exists()
                _commit(staging, path)
                if earlier:
                    _note_replaced(path, option)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    finally:
        lock.release()


def _commit(staging: Path, target: Path) -> None:
    if not target.exists():
        os.rename(staging, target)
        return
    if not _exchange(staging, target):
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=target.parent))
        os.rename(target, old / "old")
        os.rename(staging, target)
        shutil.rmtree(old, ignore_errors=True)
    # after the exchange, ``staging`` holds the previous output; the caller removes it


@contextlib.contextmanager
def output_file(target: str | os.PathLike, *, option: str = "out", mode: int | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on normal exit rename it onto ``target``.

    A second writer on the same file is refused, and so is a file the user cannot write (the
    rename needs only the folder); an exception leaves ``target`` untouched. ``mode`` (e.g.
    ``0o600`` for a file of secrets) replaces the umask's permissions; the temporary file has
    mode 0600 from its creation, so a secret is never readable by others.
    """
    path = _target_path(target, option)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected an output file name ({option})")
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _Lock(path, option)
    lock.acquire()
    try:
        if path.exists() and not _writable(path, os.W_OK):
            raise _read_only(path, option, "the file")
        for stale in path.parent.glob(f".{path.name}.staging-*"):
            stale.unlink(missing_ok=True)
        with _terminate_as_interrupt():
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.staging-", dir=path.parent)
            os.close(fd)
            tmp = Path(tmp_name)
            try:
                yield tmp
                os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
                earlier = path.exists()
                os.replace(tmp, path)
                if earlier:
                    _note_replaced(path, option)
            finally:
                tmp.unlink(missing_ok=True)
    finally:
        lock.release()
