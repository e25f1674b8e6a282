"""``Legal``, what the dealer's console may offer now: built by ``HandState.legal()``.

A module of its own, not compiled with ``game.hand`` (setup.py): its fields are its
``__slots__``, which a compiled (native) class does not keep.
"""


class Legal:
    """What the console may offer now; amounts in cents. Built by ``HandState.legal()``,
    whose docstring lists the fields."""

    __slots__ = ("phase", "to_deal", "actor", "hand", "bet", "draw", "draw_down", "stand",
                 "reveal", "split", "pair_split", "one_card_cap", "exchange", "exchange_required",
                 "fusilar", "muerto", "shuffle", "side_bet_seats", "loca_bets_open", "loca_raises",
                 "loca_calls", "loca_responsables", "loca_responsable", "announce",
                 "bank_must_draw", "bank_must_stand", "complete", "identities_owed")

    def __init__(self, **values):
        for name in self.__slots__:
            setattr(self, name, values.get(name))

    def as_dict(self):
        """The legal actions as plain data (tuples as lists), for templates and the API."""
        return {name: getattr(self, name) for name in self.__slots__}
