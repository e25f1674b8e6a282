"""Hand records written the way the table talks, for readable tests.

    record("luis deal 5O", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
           "bank card 4E", "bank stand", seats=["luis"])

Each line is ``SEAT DO [ARGS]``:
``deal CARD``, ``bet AMOUNT [by PLAYER]``, ``card CARD [down]``, ``reveal [CARD]``,
``stand``, ``split``, ``exchange CARD``, ``fusilar CARD``, ``muerto CARD AMOUNT``,
``identify HAND CARD``; and ``shuffle`` alone.
"""

from game.payouts import settle
from game.record import FORMAT, play_record


def event(line):
    """One event dict from one line of table talk."""
    words = line.split()
    if words == ["shuffle"]:
        return {"do": "shuffle"}
    seat, do, *args = words
    ev = {"do": do, "seat": seat}
    if do in ("deal", "exchange", "fusilar"):
        ev["card"] = _card(args[0])
    elif do == "bet":
        ev["amount"] = args[0]
        if len(args) == 3 and args[1] == "by":
            ev["player"] = args[2]
    elif do == "card":
        ev["card"] = _card(args[0])
        if "down" in args[1:]:
            ev["down"] = True
    elif do == "reveal" and args:
        ev["card"] = _card(args[0])
    elif do == "muerto":
        ev["card"], ev["amount"] = _card(args[0]), args[1]
    elif do == "identify":
        ev["hand"], ev["card"] = int(args[0]), _card(args[1])
    return ev


def _card(word):
    return None if word == "?" else word


def record(*lines, rules="reglamento", seats=("luis",), bank="ana", min_bet="5", max_bet="100", **extra):
    """A hand record dict from lines of table talk."""
    return {"format": FORMAT, "rules": rules, "min_bet": min_bet, "max_bet": max_bet,
            "bank": bank, "seats": list(seats), "events": [event(line) for line in lines], **extra}


def settled(*lines, **options):
    """Play and settle a record written as table talk; returns the Settlement."""
    return settle(play_record(record(*lines, **options)))


def nets(settlement):
    """``{(player, seat, hand): (result, multiplier, net cents)}`` of a settlement."""
    return {(b.player, b.seat, b.hand): (b.result, b.multiplier, b.net) for b in settlement.bets}
