"""The project's own small demo corpus (``data/``) and the ``wordplay-audit demo`` pipeline.

The puzzles in ``data/`` were written for this project in the Connections file format; they are
not NYT puzzles. ``data/knowledge_type_labels.csv`` holds three simulated linguists' labels.
"""

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
