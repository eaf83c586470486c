"""The project's own Wheel of Fortune riddles for the demo and ``wof simulate`` without
``--riddles`` (written for this toolkit; upper case letters and spaces only)."""

from __future__ import annotations

import pandas as pd

DEMO_RIDDLES: tuple[tuple[str, str], ...] = (
    ("In the kitchen", "A DRAWER OF WOODEN SPOONS"),
    ("In the kitchen", "SLOW COOKER STEW"),
    ("Place", "A QUIET HARBOUR TOWN"),
    ("Place", "THE TOP OF THE LIGHTHOUSE"),
    ("Food and drink", "LEMON SORBET"),
    ("Food and drink", "TOASTED SESAME BAGEL"),
    ("What are you doing?", "SORTING THE RECYCLING"),
    ("What are you doing?", "TUNING A GUITAR"),
    ("Living things", "A FLOCK OF STARLINGS"),
    ("Living things", "GARDEN SNAIL"),
    ("Fun and games", "A ROUND OF MINI GOLF"),
    ("Fun and games", "HIDE AND SEEK"),
)


def demo_riddles() -> pd.DataFrame:
    """The demo riddles as a table with ``category`` and ``sentence``."""
    return pd.DataFrame(DEMO_RIDDLES, columns=["category", "sentence"])
