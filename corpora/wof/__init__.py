"""LLMike (Wheel of Fortune): the game master's report files, read and written.

* :mod:`.reader` — report files → a moves table, one row per game (:func:`game_table`) and the
  data contract (:func:`guess_items`);
* :mod:`.game` — a game master with LLMike's rules that writes reports in the same format;
* :mod:`.players` — scripted, seeded player policies;
* :mod:`.demo_riddles` — the project's own riddles for the demo.
"""
