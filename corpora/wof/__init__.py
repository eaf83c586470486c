"""LLMike (Wheel of Fortune): the game master's report files, read and written.

* :mod:`.moves` — the move format: a move's keys, its special values, one line parsed;
* :mod:`.reader` — report files → a moves table (``_fast`` reads well-formed files quickly);
* :mod:`.items` — one row per game (``game_table``) and the data contract (``guess_items``);
* :mod:`.riddles` — riddle lists (``WoF.jsonl`` layout);
* :mod:`.simulate` — scripted runs written as report files plus their ground truth;
* :mod:`.game` — a game master with LLMike's rules that writes reports in the same format;
* :mod:`.players` — scripted, seeded player policies;
* :mod:`.demo_riddles` — the project's own riddles for the demo.
"""

from wordplay_audit.corpora.wof.game import Rules, play_game, write_report
from wordplay_audit.corpora.wof.items import game_table, guess_items
from wordplay_audit.corpora.wof.players import make_player
from wordplay_audit.corpora.wof.reader import read_report, read_reports
from wordplay_audit.corpora.wof.riddles import read_riddles
from wordplay_audit.corpora.wof.simulate import simulate_games, write_simulation

__all__ = [
    "Rules",
    "game_table",
    "guess_items",
    "make_player",
    "play_game",
    "read_report",
    "read_reports",
    "read_riddles",
    "simulate_games",
    "write_report",
    "write_simulation",
]
