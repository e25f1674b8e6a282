"""Cards of the Spanish deck and their points, in integer half-points.

A card is a small integer code, ``suit * 10 + rank_index``, so that a hand is a list of
ints and points are a table lookup. Ranks are 1–7, 10 (sota), 11 (caballo), 12 (rey);
suits oros (O), copas (C), espadas (E), bastos (B). There is no 8 or 9.
A figure (sota, caballo, rey) is a *media*: half a point. [rules.md "Cards and points"]
"""

RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS = ("O", "C", "E", "B")
SOTA, CABALLO, REY = 10, 11, 12

NATURAL = 15  # 7½ in half-points

#: Card code -> rank, suit letter, half-points, written name ("7O", "12B").
CARD_RANK = tuple(rank for _suit in SUITS for rank in RANKS)
CARD_SUIT = tuple(suit for suit in SUITS for _rank in RANKS)
CARD_POINTS = tuple(1 if rank >= SOTA else 2 * rank for _suit in SUITS for rank in RANKS)
CARD_NAME = tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS)
ALL_CARDS = tuple(range(len(CARD_NAME)))

#: The cards of each deck option. [rules.md: deck "spanish-40", "spanish-36" without sotas]
DECKS = {
    "spanish-40": frozenset(ALL_CARDS),
    "spanish-36": frozenset(c for c in ALL_CARDS if CARD_RANK[c] != SOTA),
}


def _spellings():
    """Every accepted way to write a card, mapped to its code.

    Readers accept the numeric rank, or S/C/R for 10/11/12 when followed by a suit,
    with the suit letter in either case. [hand-record.md "Cards"]
    """
    table = {}
    letters = {SOTA: "sS", CABALLO: "cC", REY: "rR"}
    for code in ALL_CARDS:
        rank, suit = CARD_RANK[code], CARD_SUIT[code]
        ranks = [str(rank), *letters.get(rank, "")]
        for r in ranks:
            for s in (suit, suit.lower()):
                table[r + s] = code
    return table


#: Every accepted spelling of a card -> its code.
CARD_SPELLINGS = _spellings()


def parse_card(text):
    """Return the card code for ``text`` ("7O", "11c", "rb"), or None if it is no card.

    Args:
        text: the card as written in a hand record or typed by a dealer; any other type
            than ``str`` is no card.
    Returns:
        int code in ``ALL_CARDS``, or None.
    """
    if type(text) is not str:
        return None
    return CARD_SPELLINGS.get(text)


def card_name(code):
    """The numeric written form of a card code: 12 of bastos -> "12B"."""
    return CARD_NAME[code]


def is_media(code):
    """True for a figure (sota, caballo, rey), worth half a point."""
    return CARD_POINTS[code] == 1


def _write_points(half_points):
    whole, half = divmod(half_points, 2)
    return f"{whole}.5" if half else str(whole)


# Every hand's points fit here: at most 7 (14) plus a 7 before it stops.
_POINTS_TEXT = tuple(_write_points(h) for h in range(64))


def format_points(half_points):
    """Half-points as the record writes them: 15 -> "7.5", 12 -> "6", 1 -> "0.5"."""
    if 0 <= half_points < 64:
        return _POINTS_TEXT[half_points]
    return _write_points(half_points)
