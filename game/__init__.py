"""The game of siete y media: the rules engine, pure Python, no Django import.

- ``cards``: the Spanish and French decks and points in half-points (7½ = 15).
- ``profiles``: the named rule profiles and per-table overrides.
- ``hand``: ``HandState``, the hand state machine, and the legal actions for the console.
- ``errors``: an illegal event and an invalid profile, as translatable templates.
- ``record``: reading and playing a hand record (``hand-record.md``).
- ``entries``: the dealer's log of entries and undos, to the engine's events and a hand record.
- ``recordfiles``: hand records from files, directories, JSON Lines and standard input.
- ``payouts``: the settlement of a finished hand (every bet, the bank, the commission).
- ``settling``: ``manage.py settle``'s core, a decoded record to its printed settlement.
- ``simulate``: random legal play, for tests, demo data and benchmarks.
- ``edge``, ``edge_exact``: the bank's edge by simulation, and its exact check.
- ``sources``: ``SIETE_PURE_PYTHON=1``, the pure modules imported where ``setup.py``
  compiled some (``cards``, ``hand``, ``payouts``, ``record``) with mypyc; so are they
  when a compiled module is older than its ``.py`` (an edit not compiled again).
"""

import os

from game.sources import prefer_current_sources, prefer_sources

if os.environ.get("SIETE_PURE_PYTHON"):
    prefer_sources()
else:
    prefer_current_sources()  # a compiled module older than its .py: the .py


from game.cards import NATURAL, card_name, format_points, parse_card
from game.errors import EngineError, IllegalEvent, InvalidRules
from game.hand import HandState, format_cents, parse_amount, valid_player_id
from game.profiles import OPTION_NAMES, PROFILES, Profile
from game.record import FORMAT, play_record, read_header

__all__ = [
    "FORMAT", "NATURAL", "OPTION_NAMES", "PROFILES", "EngineError", "HandState", "IllegalEvent",
    "InvalidRules", "Profile", "card_name", "format_cents", "format_points", "parse_amount",
    "parse_card", "play_record", "read_header", "valid_player_id",
]
