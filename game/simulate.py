"""Random legal play: whole hand records played by plausible random players.

For property tests, demo data and benchmarks. Every choice is taken from
``HandState.legal()`` and applied at once, so a choice the engine then refuses means
``legal()`` and ``apply()`` disagree: that raises ``AssertionError``.

Every option of rules.md is played where the rules have it on: the French deck's cards
(sometimes in lower case), splits of halves and with ``split_pairs`` of pairs (a pair
over 7½ too, as ``legal().pair_split`` offers it), stakes within ``one_card_stand_max``
for a seat that may stand on its card (and a card first where its stake is above it),
la loca's calls by its responsable with ``loca_calls`` (with raises while "dobla quien
quiera" is open), fusilar, muerto, exchanges, side bets, bets on la loca.
"""

from game.cards import CARD_NAME, CARD_RANK, DECKS, FRENCH_BASE, SOTA
from game.errors import IllegalEvent
from game.hand import (
    BANK_ID,
    DOBLA,
    DOBLA_QUIEN_QUIERA,
    LOCA_ID,
    SE_PLANTA,
    HandState,
    format_cents,
)
from game.payouts import settle
from game.profiles import DECK_NAMES, EXCHANGE_FOURS, PROFILES, Profile
from game.record import FORMAT, play_record

NAMES = ("ana", "luis", "marta", "pepe", "rosa", "juan", "lola", "paco", "nuria", "toni",
         "elena", "quique", "maite", "jose.m", "carmen_r")
_LETTER = {10: "s", 11: "c", 12: "r"}


def random_rules(rng):
    """A random ``rules`` value: a named profile, often with a few random overrides."""
    name = rng.choice(sorted(PROFILES))
    if rng.random() < 0.3:
        return name
    rules = {"profile": name}
    choices = {
        "deck": lambda: rng.choice(DECK_NAMES),
        "fixed_stake": lambda: rng.random() < 0.2,
        "one_card_stand_max": lambda: rng.choice((None, 1, 2, 3)),
        "raise_on_stand": lambda: rng.random() < 0.5,
        "natural_pays": lambda: rng.choice((1, 2, 3)),
        "natural_pays_first_only": lambda: rng.random() < 0.5,
        "bank_natural_collects": lambda: rng.choice((1, 2)),
        "bank_natural_vs_natural": lambda: rng.choice((1, 2, 4)),
        "max_hands": lambda: rng.choice((None, 1, 2, 3, "by_players")),
        "split_pairs": lambda: rng.random() < 0.5,
        "exchange_fours": lambda: rng.choice(EXCHANGE_FOURS),
        "fusilar": lambda: rng.random() < 0.5,
        "fusilar_pays": lambda: rng.choice((3, 4)),
        "muerto": lambda: rng.random() < 0.5,
        "loca": lambda: rng.random() < 0.5,
        "loca_calls": lambda: rng.random() < 0.5,
        "side_bets": lambda: rng.random() < 0.5,
        "bank_draws_below": lambda: rng.choice((None, 5, 6, "6.5")),
        "bank_chases_natural": lambda: rng.random() < 0.3,
        "face_up": lambda: rng.random() < 0.3,
        "bank_passes_on_natural": lambda: rng.random() < 0.5,
        "commission_rate": lambda: rng.choice(("0", "0.05", "0.1", "0.025")),
    }
    for option in rng.sample(sorted(choices), rng.randint(1, 5)):
        rules[option] = choices[option]()
    return rules


def random_record(rng, rules=None, seats=None, bank=None, min_bet=None, max_bet=None,
                  table=None, number=None, tries=20):
    """A complete, valid hand record of random legal play (``random_hand``'s record).

    Args:
        rng: a ``random.Random`` (the only source of chance: same seed, same record).
        rules, seats, bank: the table's rules value, the seated player ids in order and
            the bank holder; random when None.
        min_bet, max_bet: the limits in integer cents; random when None.
        table, number: written into the record when given.
        tries: a deal that gets stuck (the stock runs out with no bust hand to shuffle
            back) is played again, at most this many times.
    Returns:
        dict, a hand record (``hand-record.md``).
    Raises:
        AssertionError: the engine refused an action its ``legal()`` offered.
        RuntimeError: every try got stuck.
    """
    return random_hand(rng, rules=rules, seats=seats, bank=bank, min_bet=min_bet, max_bet=max_bet,
                       table=table, number=number, tries=tries)[0]


def random_hand(rng, rules=None, seats=None, bank=None, min_bet=None, max_bet=None,
                table=None, number=None, tries=20):
    """A hand of random legal play: its record and the engine's state it was played on.

    Args: as ``random_record`` (the same arguments and chance give the same record).
    Returns:
        ``(record, state)``: the hand record (``hand-record.md``) and the ``HandState``
        every event was applied to as it was chosen from ``legal()``, finished as the
        record ends (``state.complete``): what the hand settles to as it was played, for
        a replay of the record to agree with.
    Raises:
        AssertionError, RuntimeError: as ``random_record``.
    """
    rules = random_rules(rng) if rules is None else rules
    profile = Profile.from_rules(rules)
    if seats is None:
        names = rng.sample(NAMES, rng.randint(2, 10))
        bank, seats = (bank or names[0]), [n for n in names[1:] if n != bank]
    bank = bank or "banca"
    if min_bet is None:
        min_bet = rng.choice((100, 500, 1000, 250) if profile.fixed_stake else (0, 100, 500, 1000, 250))
        max_bet = min_bet if profile.fixed_stake else rng.choice((min_bet * 10, min_bet * 20, 5000)) or 5000
    elif max_bet is None:
        max_bet = min_bet if profile.fixed_stake else 20 * min_bet
    for _ in range(tries):
        played = _play(rng, profile, min_bet, max_bet, bank, seats)
        if played is not None:
            events, state = played
            record = {"format": FORMAT, "rules": rules, "min_bet": format_cents(min_bet),
                      "max_bet": format_cents(max_bet), "bank": bank, "seats": list(seats),
                      "events": events}
            if table is not None:
                record["table"] = table
            if number is not None:
                record["number"] = number
            return record, state
    raise RuntimeError("random play got stuck on every try")


def random_night(rng, count, *, table, rules, min_bet, max_bet, bank, players=NAMES, max_seats=6, first=1):
    """``count`` hand records of one table in a row, as a night's hands are: numbered
    from ``first``, each banked by the player the hand before left the bank to (a seat's
    7½ takes it where the rules say so: ``Settlement.next_bank``), with 1 to
    ``max_seats`` of ``players`` seated (never the bank's holder).

    Args:
        rng: a ``random.Random``; table: the records' ``table``; rules, min_bet, max_bet
        (integer cents), bank (the first hand's holder): as for ``random_record``.
    Returns:
        list of hand records (``hand-record.md``).
    """
    records = []
    for number in range(first, first + count):
        seated = [name for name in players if name != bank]
        seats = rng.sample(seated, rng.randint(1, min(max_seats, len(seated))))
        record = random_record(rng, rules=rules, seats=seats, bank=bank, min_bet=min_bet, max_bet=max_bet,
                               table=table, number=number)
        records.append(record)
        bank = settle(play_record(record)).next_bank or bank
    return records


class _Player:
    """The random choices of one hand's players and bank."""

    def __init__(self, rng, state, bank, seats):
        self.rng = rng
        self.state = state
        self.bank = bank
        self.bettors = [n for n in NAMES if n != bank]
        deck = sorted(DECKS[state.profile.deck])
        rng.shuffle(deck)
        self.stock = deck
        self.events = []

    def emit(self, event):
        try:
            self.state.apply(event)
        except IllegalEvent as error:
            raise AssertionError(f"legal() offered {event}, apply() refused: {error.message}") from error
        self.events.append(event)

    def card(self):
        """The next card of the stock, written as a dealer may type it: mostly as the
        record writes it, sometimes in the reader's other forms (a Spanish figure by its
        letter, ``"rb"``; a French card in lower case, ``"qd"``)."""
        code = self.stock.pop()
        if self.rng.random() < 0.1:
            if code >= FRENCH_BASE:
                return CARD_NAME[code].lower()
            if CARD_RANK[code] >= SOTA:
                name = _LETTER[CARD_RANK[code]] + CARD_NAME[code][-1]
                return name.upper() if self.rng.random() < 0.5 else name.lower()
        return CARD_NAME[code]

    def amount(self, low, high):
        """A random amount in [low, high] cents, written as the record writes amounts."""
        rng = self.rng
        cents = low if rng.random() < 0.4 else rng.randint(low, high)
        if cents > low and rng.random() < 0.7:
            cents = max(low, cents - cents % 100)
        if cents % 100 == 0 and rng.random() < 0.3:
            return cents, cents // 100
        text = format_cents(cents)
        return cents, text[:-3] if text.endswith(".00") and rng.random() < 0.3 else text

    def restock(self):
        """After a shuffle: the stock is every card of the deck not on the table."""
        live = self.state.live
        self.stock = [c for c in sorted(self.state.deck) if c not in live]
        self.rng.shuffle(self.stock)


def _play(rng, profile, min_bet, max_bet, bank, seats):
    state = HandState(profile, min_bet, max_bet, bank, seats)
    p = _Player(rng, state, bank, seats)
    to_deal = list(state.order)
    rng.shuffle(to_deal)
    for who in to_deal:
        p.emit({"do": "deal", "seat": who, "card": p.card()})
    muerto_plan = set()
    steps = 0
    while not state.over:
        steps += 1
        if steps > 2000:  # pragma: no cover - a policy loop would be a bug
            raise AssertionError("random play does not end")
        legal = state.legal()
        if legal.pair_split and rng.random() < 0.7:  # a pair over 7½ just drawn
            p.emit({"do": "split", "seat": legal.pair_split[0]})
            continue
        if state.complete and rng.random() < 0.7:
            break  # nothing standing: the bank need not play
        if not p.stock:
            if legal.shuffle:
                p.emit({"do": "shuffle"})
                p.restock()
                continue
            if legal.stand and rng.random() < 0.9:
                p.emit({"do": "stand", "seat": legal.actor})
                continue
            if state.complete:
                break
            return None  # stuck: the stock is out and nothing can go back
        if _maybe_side_bets(p, legal):
            continue
        who = legal.actor
        if who == BANK_ID:
            _bank_turn(p, legal)
        elif who == LOCA_ID:
            _loca_turn(p, legal)
        else:
            _seat_turn(p, legal, who, muerto_plan)
    return p.events, state


def _maybe_side_bets(p, legal):
    rng, state = p.rng, p.state
    if legal.side_bet_seats and rng.random() < 0.08:
        seat_id = rng.choice(legal.side_bet_seats)
        bettor = rng.choice([b for b in p.bettors if b != seat_id])
        before = state.seat(seat_id).side_bets.get(bettor, 0)
        low = 1 if before else max(state.min_bet, 1)
        high = state.max_bet - before
        if low <= high:
            _, amount = p.amount(low, high)
            p.emit({"do": "bet", "seat": seat_id, "player": bettor, "amount": amount})
            return True
    if legal.loca_bets_open and rng.random() < 0.15:
        bettor = rng.choice(p.bettors)
        _, amount = p.amount(1, 5000)
        p.emit({"do": "bet", "seat": LOCA_ID, "player": bettor, "amount": amount})
        return True
    if legal.loca_raises and not legal.loca_bets_open and rng.random() < 0.2:
        bettor, room = rng.choice(sorted(legal.loca_raises.items()))
        if room:
            _, amount = p.amount(1, room)
            p.emit({"do": "bet", "seat": LOCA_ID, "player": bettor, "amount": amount})
            return True
    return False


def _draw(p, legal, who):
    event = {"do": "card", "seat": who, "card": p.card()}
    if legal.draw_down and p.rng.random() < 0.5:
        event["down"] = True
    p.emit(event)


def _wants_card(rng, points):
    return rng.random() < (0.95 if points <= 6 else 0.7 if points <= 8 else
                           0.45 if points <= 10 else 0.2 if points <= 12 else 0.05)


def _seat_turn(p, legal, who, muerto_plan):
    rng, state = p.rng, p.state
    hand = state.current_hand()
    if legal.exchange_required or (legal.exchange and rng.random() < 0.6):
        p.emit({"do": "exchange", "seat": who, "card": p.card()})
        return
    if hand.stake == 0:
        low, high = legal.bet
        cap = legal.one_card_cap
        if cap is not None and low <= cap and rng.random() < 0.5:
            high = min(high, cap)  # a stake it may stand on with its one card
        if (state.profile.muerto and hand.number == 1 and len(hand.cards) == 1
                and CARD_RANK[hand.cards[0]] == 7 and 0 < 2 * state.min_bet <= high
                and rng.random() < 0.5):
            muerto_plan.add(who)
            amount = format_cents(2 * state.min_bet)
        else:
            _, amount = p.amount(low, high)
        p.emit({"do": "bet", "seat": who, "amount": amount})
        return
    if legal.muerto and who in muerto_plan:
        _, amount = p.amount(*legal.muerto)
        p.emit({"do": "muerto", "seat": who, "card": p.card(), "amount": amount})
        return
    if legal.fusilar and rng.random() < 0.3:
        p.emit({"do": "fusilar", "seat": who, "card": p.card()})
        return
    if legal.split and rng.random() < 0.7:
        p.emit({"do": "split", "seat": who})
        return
    if legal.bet and legal.draw and not hand.raise_pending and rng.random() < 0.1 and len(p.stock) > 3:
        _, amount = p.amount(*legal.bet)
        p.emit({"do": "bet", "seat": who, "amount": amount})
        return
    if legal.reveal and legal.draw and rng.random() < 0.15:
        p.emit({"do": "reveal", "seat": who})
        return
    if legal.draw and (not legal.stand or _wants_card(rng, hand.points)):
        _draw(p, legal, who)
    else:
        p.emit({"do": "stand", "seat": who})


def _loca_turn(p, legal):
    rng, state = p.rng, p.state
    hand = state.loca
    calls = legal.loca_calls
    call = None
    if calls:  # loca_calls, with bets on it: its responsable calls
        responsable = (legal.loca_responsable if rng.random() < 0.8
                       else rng.choice(legal.loca_responsables))

        def call(what):
            p.emit({"do": "loca_call", "seat": LOCA_ID, "call": what, "responsable": responsable})

        if DOBLA in calls and rng.random() < 0.25:
            call(DOBLA)
            return
        if (DOBLA_QUIEN_QUIERA in calls and legal.draw
                and rng.random() < (0.05 if state.loca_window else 0.4)):
            call(DOBLA_QUIEN_QUIERA)  # (a repeat before the same card changes nothing)
            return
    if legal.reveal and legal.draw and rng.random() < 0.1:
        p.emit({"do": "reveal", "seat": LOCA_ID})
    elif legal.draw and _wants_card(rng, hand.points):
        _draw(p, legal, LOCA_ID)
    elif call is not None and SE_PLANTA in calls and rng.random() < 0.5:
        call(SE_PLANTA)
    else:
        p.emit({"do": "stand", "seat": LOCA_ID})


def _bank_turn(p, legal):
    rng, hand = p.rng, p.state.bank
    if legal.reveal and rng.random() < 0.3:
        p.emit({"do": "reveal", "seat": BANK_ID})
    elif legal.draw and (legal.bank_must_draw or not legal.stand or _wants_card(rng, hand.points)):
        _draw(p, legal, BANK_ID)
    else:
        p.emit({"do": "stand", "seat": BANK_ID})
