"""List the benchmark scripts, or run the ones named: ``python -m benchmarks [NAME ...]``.

A NAME is a file in this folder (``bench_agreement`` or ``bench_agreement.py``); arguments after
``--`` go to every script run.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts() -> list[Path]:
    return sorted(p for p in HERE.glob("*.py") if p.name.startswith(("bench_", "sim_")))


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    available = {p.stem: p for p in scripts()}
    if not argv:
        for name in available:
            print(name)
        return 0
    unknown = [n for n in argv if n.removesuffix(".py") not in available]
    if unknown:
        print(
            f"error: no benchmark named {unknown[0]!r} (have: {', '.join(available)})",
            file=sys.stderr,
        )
        return 2
    for name in argv:
        path = available[name.removesuffix(".py")]
        print(f"== {path.name}", flush=True)
        sys.argv = [str(path), *extra]
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                return int(exc.code) if isinstance(exc.code, int) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
