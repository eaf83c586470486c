"""Balderdash: the study's metrics, their recomputation under human labels, convergence,
a simulator of exports with ground truth, and a campaign-size planner.

Modules: :mod:`.metrics`, :mod:`.recompute`, :mod:`.convergence`, :mod:`.simulate`, :mod:`.plan`,
:mod:`.report` (and :mod:`.trend`, the trend tests). Reading the export lives in
:mod:`corpora.balderdash`; its :func:`~corpora.balderdash.player_round_table` is the shared input.
"""
