"""LLMike (Wheel of Fortune): the game master's report files, read and written.

* :mod:`.reader` — report files → a moves table (``_fast`` reads well-formed files quickly);
* :mod:`.items` — one row per game (``game_table``) and the data contract (``guess_items``);
* :mod:`.riddles` — riddle lists (``WoF.jsonl`` layout);
* :mod:`.simulate` — scripted runs written as report files plus their ground truth;
* :mod:`.game` — a game master with LLMike's rules that writes reports in the same format;
* :mod:`.players` — scripted, seeded player policies;
* :mod:`.demo_riddles` — the project's own riddles for the demo.
"""
