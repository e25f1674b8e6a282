"""Cards of the decks and their points, in integer half-points.

A card is a small integer code, so that a hand is a list of ints and points are a table
lookup: a Spanish card is ``suit * 10 + rank_index`` (0–39), a French one 40 more (40–79).
Every card has a rank of ``RANKS``: 1–7, 10 (sota), 11 (caballo), 12 (rey); there is no 8
or 9. The French deck's jack, queen and king take the ranks 10, 11 and 12 and its ace
1, so that a rank means the same in both decks (a 4 is exchanged, a 7 fusilado, a figure
is a *media*: half a point). [rules.md "Cards and points"]

- Spanish deck: suits oros (O), copas (C), espadas (E), bastos (B); written rank then
  suit, ``"7O"``, ``"12B"`` (also ``S``, ``C``, ``R`` for 10, 11, 12 and either case).
  A Catalan deck is written and played as the Spanish one.
- French deck (``deck: "french-40"``): suits spades (S), hearts (H), diamonds (D), clubs
  (C); ranks ``A``, 2–7, ``J``, ``Q``, ``K``, written ``"AS"``, ``"7H"``, ``"QD"`` (either
  case). [hand-record.md "Cards"; seeds 000, 004]

A card is read in its table's deck (``parse_card(text, deck)``): ``"7C"`` is the seven of
copas at a Spanish table and of clubs at a French one.
"""

from typing import Final

RANKS: Final = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS: Final = ("O", "C", "E", "B")
FRENCH_SUITS: Final = ("S", "H", "D", "C")
SOTA: Final = 10
CABALLO: Final = 11
REY: Final = 12
#: The first French card's code.
FRENCH_BASE: Final = len(SUITS) * len(RANKS)
#: How a French rank is written.
FRENCH_RANK_NAMES: Final = {1: "A", 10: "J", 11: "Q", 12: "K"}

NATURAL: Final = 15  # 7½ in half-points

_SPANISH = [(suit, rank, f"{rank}{suit}") for suit in SUITS for rank in RANKS]
_FRENCH = [(suit, rank, f"{FRENCH_RANK_NAMES.get(rank, rank)}{suit}") for suit in FRENCH_SUITS for rank in RANKS]

#: Card code -> rank, suit letter, half-points, written name ("7O", "12B", "QD").
CARD_RANK: Final = tuple(rank for _suit, rank, _name in _SPANISH + _FRENCH)
CARD_SUIT: Final = tuple(suit for suit, _rank, _name in _SPANISH + _FRENCH)
CARD_POINTS: Final = tuple(1 if rank >= SOTA else 2 * rank for _suit, rank, _name in _SPANISH + _FRENCH)
CARD_NAME: Final = tuple(name for _suit, _rank, name in _SPANISH + _FRENCH)
#: Every card code of every deck.
ALL_CARDS: Final = tuple(range(len(CARD_NAME)))
SPANISH_CARDS: Final = ALL_CARDS[:FRENCH_BASE]
FRENCH_CARDS: Final = ALL_CARDS[FRENCH_BASE:]

#: The cards of each deck option. [rules.md: deck "spanish-40", "spanish-36" without
#: sotas, "french-40" without 8, 9 and 10]
DECKS: Final = {
    "spanish-40": frozenset(SPANISH_CARDS),
    "spanish-36": frozenset(c for c in SPANISH_CARDS if CARD_RANK[c] != SOTA),
    "french-40": frozenset(FRENCH_CARDS),
}
#: Each deck option's suits, in the order the console shows them.
DECK_SUITS: Final = {"spanish-40": SUITS, "spanish-36": SUITS, "french-40": FRENCH_SUITS}


def _spanish_spellings():
    """Every accepted way to write a Spanish card, mapped to its code.

    Readers accept the numeric rank, or S/C/R for 10/11/12 when followed by a suit,
    with the suit letter in either case. [hand-record.md "Cards"]
    """
    table = {}
    letters = {SOTA: "sS", CABALLO: "cC", REY: "rR"}
    for code in SPANISH_CARDS:
        rank, suit = CARD_RANK[code], CARD_SUIT[code]
        ranks = [str(rank), *letters.get(rank, "")]
        for r in ranks:
            for s in (suit, suit.lower()):
                table[r + s] = code
    return table


def _french_spellings():
    """Every accepted way to write a French card: ``A``, 2–7, ``J``, ``Q``, ``K`` then the
    suit, each letter in either case (``"QD"``, ``"qd"``). No ``1``, ``10`` or ``T``.
    [hand-record.md "Cards"]"""
    table = {}
    for code in FRENCH_CARDS:
        name = CARD_NAME[code]
        rank, suit = name[:-1], name[-1]
        for r in {rank, rank.lower()}:
            for s in (suit, suit.lower()):
                table[r + s] = code
    return table


#: Every accepted spelling of a Spanish (or Catalan) card -> its code.
CARD_SPELLINGS: Final = _spanish_spellings()
#: Every accepted spelling of a French card -> its code.
FRENCH_SPELLINGS: Final = _french_spellings()
#: Each deck option's spellings: a card is read in its table's deck.
DECK_SPELLINGS: Final = {"spanish-40": CARD_SPELLINGS, "spanish-36": CARD_SPELLINGS, "french-40": FRENCH_SPELLINGS}


def parse_card(text, deck="spanish-40"):
    """Return the card code for ``text`` read in ``deck``, or None if it is no card there.

    Args:
        text: the card as written in a hand record or typed by a dealer ("7O", "11c",
            "rb"; at a French table "QD", "as"); any other type than ``str`` is no card.
        deck: a ``DECKS`` key, the table's deck option; its family decides the spelling
            (a Spanish deck reads Spanish cards, ``french-40`` French ones). The sotas of
            ``spanish-36`` are still read here (as cards the table does not play).
    Returns:
        int code in ``ALL_CARDS``, or None.
    """
    if type(text) is not str:
        return None
    return DECK_SPELLINGS[deck].get(text)


def other_deck_card(text, deck):
    """The written card ``text`` as it reads in the other family of decks, or None: the
    name of the card (``"QD"``, ``"12O"``) a dealer wrote of the Spanish deck at a French
    table or the other way round, for the error that says so. [hand-record.md "Cards"]"""
    if type(text) is not str:
        return None
    other = FRENCH_SPELLINGS if DECK_SPELLINGS[deck] is CARD_SPELLINGS else CARD_SPELLINGS
    code = other.get(text)
    return None if code is None else CARD_NAME[code]


def card_name(code):
    """The written form of a card code: 12 of bastos -> "12B", queen of diamonds -> "QD"."""
    return CARD_NAME[code]


def is_media(code):
    """True for a figure (sota, caballo, rey; jack, queen, king), worth half a point."""
    return CARD_POINTS[code] == 1


def _write_points(half_points):
    whole, half = divmod(half_points, 2)
    return f"{whole}.5" if half else str(whole)


# Every hand's points fit here: at most 7 (14) plus a 7 before it stops.
_POINTS_TEXT: Final = tuple(_write_points(h) for h in range(64))
#: ``format_points`` of 0 to 63 half-points, by index (every hand's points are there).
POINTS_TEXT: Final = _POINTS_TEXT


def format_points(half_points):
    """Half-points as the record writes them: 15 -> "7.5", 12 -> "6", 1 -> "0.5"."""
    if 0 <= half_points < 64:
        return _POINTS_TEXT[half_points]
    return _write_points(half_points)
