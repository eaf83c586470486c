"""The project's own small demo corpus and the ``wordplay-audit demo`` pipeline.

:mod:`corpora.demo.connections_demo` holds original puzzles (not NYT puzzles), two invented
models' answers, human players' answers and three simulated linguists' labels as Python data,
and writes them in the Connections study's file layout (:func:`write_demo_corpus`).
"""

from wordplay_audit.corpora.demo.connections_demo import write_demo_corpus

__all__ = ["write_demo_corpus"]
