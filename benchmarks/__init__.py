"""Benchmarks and simulations (``bench_*.py``, ``sim_*.py``); not collected by pytest.

``python -m benchmarks`` lists them; ``python -m benchmarks NAME [NAME ...]`` runs them.
"""


def seed_loop(iterable, *, desc: str, total: int | None = None):
    """A simulation's loop over seeds or repetitions, with the toolkit's bar on stderr when
    stderr is a terminal (a log file gets none); the library calls inside stay quiet."""
    import sys

    from wordplay_audit.corpora.progress import progress

    return progress(iterable, desc=desc, total=total, enabled=sys.stderr.isatty())
