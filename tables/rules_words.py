"""A table's or a hand's ``rules`` in words, in the reader's language: the profile's
name, then each option that decides how a hand is played and paid
(``Reglamento: baraja española de 40 cartas; el siete y media paga 2 a 1; …``); the
options a table overrides are marked. Never the raw JSON.

[rules.md "The named profiles"; game.profiles for the options]
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from casino.formatting import number
from game import InvalidRules
from game.profiles import Profile

PROFILE_NAMES = {
    "tradicional": gettext_lazy("Traditional"),
    "reglamento": gettext_lazy("Regulation"),
    "profesional": gettext_lazy("Professional"),
    "americana": gettext_lazy("American"),
}
DECKS = {"spanish-40": gettext_lazy("Spanish deck of 40 cards"),
         "spanish-36": gettext_lazy("Spanish deck of 36 cards (without sotas)"),
         "french-40": gettext_lazy("French deck of 40 cards (without 8, 9 and 10)")}
#: A deck's name inside a phrase ("the {deck} deck"): never its code (``spanish-40``).
DECK_SHORT = {"spanish-40": gettext_lazy("Spanish 40-card"), "spanish-36": gettext_lazy("Spanish 36-card"),
              "french-40": gettext_lazy("French 40-card")}
EXCHANGES = {"off": gettext_lazy("no exchange of fours"), "optional": gettext_lazy("fours may be exchanged"),
             "mandatory": gettext_lazy("fours must be exchanged")}


def deck_words(deck) -> str:
    """A deck's code (``spanish-40``) as a phrase takes it: ``Spanish 40-card`` (es
    ``española de 40 cartas``); an unknown code as it is."""
    return str(DECK_SHORT.get(deck, deck))


def _points(half_points):
    whole, half = divmod(half_points, 2)
    return f"{whole}½" if half else str(whole)


def _options(profile: Profile) -> list[tuple[str, str]]:
    """``[(option name, phrase)]`` in reading order. ``one_card_stand_max``,
    ``split_pairs`` and ``loca_calls``, which only add to the game, are said where they
    are on or where the rules override them."""
    p = profile
    overridden = p.overrides
    out = [("deck", str(DECKS.get(p.deck, p.deck))),
           ("fixed_stake", _("fixed stake") if p.fixed_stake else _("free stakes"))]
    if p.one_card_stand_max is not None:
        out.append(("one_card_stand_max", _("a stand on one card carries at most %(n)s× the minimum bet") % {
            "n": p.one_card_stand_max}))
    elif "one_card_stand_max" in overridden:
        out.append(("one_card_stand_max", _("any stake may stand on one card")))
    out.append(("raise_on_stand", _("a player may raise when he stands") if p.raise_on_stand
                else _("no raise on standing")))
    natural = _("a natural 7½ pays %(n)s to 1") % {"n": p.natural_pays}
    if p.natural_pays_first_only:
        # [rules.md "Settlement of one bet"; 003: "solo cobra doble el primero"]
        natural += " " + _("(only the first in order of play; later ones are paid 1 to 1)")
    out.append(("natural_pays", natural))
    out.append(("bank_natural_collects", _("the bank's natural collects %(n)s× the stake") % {
        "n": p.bank_natural_collects}))
    out.append(("bank_natural_vs_natural", _("natural against the bank's natural: %(n)s×") % {
        "n": p.bank_natural_vs_natural}))
    if p.max_hands == "by_players":
        hands = _("splits: 3 hands up to 3 seats, 2 with 4–5, 1 with 6 or more")
    elif p.max_hands is None:
        hands = _("splits without limit")
    elif p.max_hands == 1:
        hands = _("no splits")
    else:
        hands = ngettext("at most %(n)s hand per seat", "at most %(n)s hands per seat", p.max_hands) % {
            "n": p.max_hands}
    out.append(("max_hands", hands))
    if p.split_pairs or "split_pairs" in overridden:
        out.append(("split_pairs", _("pairs of equal cards split like halves") if p.split_pairs
                    else _("only halves split")))
    out.append(("exchange_fours", str(EXCHANGES.get(p.exchange_fours, p.exchange_fours))))
    out.append(("fusilar", _("fusilar allowed, pays %(n)s×") % {"n": p.fusilar_pays} if p.fusilar
                else _("no fusilar")))
    out.append(("muerto", _("muerto played") if p.muerto else _("no muerto")))
    out.append(("loca", _("la loca played") if p.loca else _("no la loca")))
    if p.loca_calls or "loca_calls" in overridden:
        out.append(("loca_calls", _("la loca played by its responsable's calls (dobla quien quiera, dobla, se planta)")
                    if p.loca_calls else _("la loca without calls")))
    out.append(("side_bets", _("side bets allowed") if p.side_bets else _("no side bets")))
    if p.bank_draws_below is not None:
        out.append(("bank_draws_below", _("the bank draws below %(points)s") % {
            "points": _points(p.bank_draws_below)}))
    else:
        out.append(("bank_draws_below", _("the bank draws as it chooses")))
    if p.bank_chases_natural:
        out.append(("bank_chases_natural", _("the bank may not stand after a player's 7½")))
    out.append(("face_up", _("cards dealt face up") if p.face_up else _("first card face down")))
    out.append(("bank_passes_on_natural", _("a player's natural 7½ takes the bank")
                if p.bank_passes_on_natural else _("a natural 7½ does not take the bank")))
    out.append(("commission_rate", _("house commission %(rate)s %% of the bank's win") % {
        "rate": number(p.commission_rate * 100, 2)} if p.commission_rate else _("no house commission")))
    return out


def rules_words(rules) -> str:
    """``rules`` (a profile name or ``{"profile": …, options…}``, as stored on a table, a
    hand or a report) in words: ``"Regulation: …; …"``, the overridden options followed by
    ``(this table)``. Rules the engine does not know are shown as their profile's name (or
    their text), never raising."""
    try:
        profile = Profile.from_rules(rules)
    except InvalidRules:
        name = rules.get("profile") if isinstance(rules, dict) else rules
        return str(PROFILE_NAMES.get(name, name))
    phrases = []
    for option, phrase in _options(profile):
        if option in profile.overrides:
            phrase = _("%(option)s (this table)") % {"option": phrase}
        phrases.append(phrase)
    return _("%(profile)s: %(options)s") % {"profile": profile_name(rules), "options": "; ".join(phrases)}


def profile_name(rules) -> str:
    """The profile's name in words (``Regulation``), with ``with changes`` when the rules
    override some of its options."""
    name = rules.get("profile") if isinstance(rules, dict) else rules
    words = str(PROFILE_NAMES.get(name, name))
    if isinstance(rules, dict) and len(rules) > 1:
        words = _("%(profile)s, with changes") % {"profile": words}
    return words
