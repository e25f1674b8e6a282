"""The reports' words: exceptions, stages and labels, in the reader's language.

A stored report keeps its exceptions as codes with parameters; they are put into words
here when the page, the CSV or the PDF is made, so one report reads in Spanish or in
English.
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

STAGES = {
    "start": gettext_lazy("starting"),
    "hands": gettext_lazy("counting the hands"),
    "bets": gettext_lazy("adding up the bets"),
    "ledger": gettext_lazy("reading the ledger"),
    "voids": gettext_lazy("voids and reversals"),
    "cards": gettext_lazy("testing the dealt cards"),
    "chain": gettext_lazy("checking the chain of entries"),
    "checks": gettext_lazy("audit checks"),
    "tenures": gettext_lazy("reading the bank tenures"),
    "postings": gettext_lazy("capital, sales and distributions"),
    "done": gettext_lazy("done"),
}

RESULTS = {"win": gettext_lazy("win"), "natural": gettext_lazy("natural 7½"), "lose": gettext_lazy("lose"),
           "bust": gettext_lazy("bust")}
BET_KINDS = {"seat": gettext_lazy("seats' own bets"), "side": gettext_lazy("side bets"),
             "loca": gettext_lazy("la loca")}
RECONCILED = {"players": gettext_lazy("players (net)"), "bank": gettext_lazy("bank tenures (net)"),
              "house": gettext_lazy("house commission"), "other": gettext_lazy("other accounts")}
BEGAN = {"draw": gettext_lazy("drawn for"), "natural": gettext_lazy("taken with 7½"),
         "sale": gettext_lazy("bought"), "transfer": gettext_lazy("transferred")}
ENDED = {"closed": gettext_lazy("closed by its holder"), "natural": gettext_lazy("lost to a 7½"),
         "sale": gettext_lazy("sold"), "transfer": gettext_lazy("transferred")}


def stage_label(stage):
    """What a running report is doing, in words."""
    return str(STAGES.get(stage, stage or ""))


def _numbers(numbers, count=None):
    shown = ", ".join(f"#{n}" for n in numbers[:50])
    more = (count or len(numbers)) - min(len(numbers), 50)
    return shown + (_(" and %(more)s more") % {"more": more} if more > 0 else "")


def exception_text(item: dict) -> str:
    """One stored exception (``{"code": ..., ...}``) in words.

    Unknown codes are shown as their code and parameters, never dropped.
    """
    code = item.get("code")
    p = item
    if code == "reconciliation":
        return _("%(what)s: the report says %(report)s €, the ledger %(ledger)s € (difference %(difference)s €)") % {
            "what": RECONCILED.get(p["what"], p["what"]), "report": p["report"], "ledger": p["ledger"],
            "difference": p["difference"]}
    if code == "player_differs":
        return _("player %(player)s: the bets say %(report)s €, the ledger %(ledger)s € (difference %(difference)s €)") % p
    if code == "tenure_differs":
        return _("bank tenure #%(tenure)s (%(holder)s): the hands say %(report)s €, the ledger %(ledger)s € "
                 "(difference %(difference)s €)") % {**p, "holder": p.get("holder") or "?"}
    if code == "settlements_unbalanced":
        return _("the hands' settlements do not balance: players + bank + house = %(difference)s €") % p
    if code == "hands_not_posted":
        return _("%(count)s settled hand(s) have no ledger posting") % p
    if code == "void_not_reversed":
        return _("hand #%(hand)s was voided but its posting was never reversed") % p
    if code == "voids_not_cancelled":
        return _("the voided hands' postings and their reversals leave %(amount)s € on %(accounts)s account(s)") % p
    if code == "reversed_not_voided":
        return _("hand #%(hand)s is settled but its posting was reversed (transaction #%(transaction)s)") % p
    if code == "gaps":
        return _("hand numbers missing: %(numbers)s") % {"numbers": _numbers(p["numbers"], p["count"])}
    if code == "chain_link":
        return _("entry %(sequence)s of hand #%(hand)s does not follow the entry before it") % p
    if code == "chain_changed":
        return _("entry %(sequence)s of hand #%(hand)s was changed after it was entered") % p
    if code == "chain_last":
        return _("the table's last entry is missing from the chain")
    if code == "chain_more":
        return _("and %(count)s more breaks of the chain") % p
    if code == "open_hands":
        return _("hands left open: %(numbers)s") % {"numbers": _numbers(p["numbers"])}
    if code == "cards_outside_deck":
        cards = ", ".join(f"{card} ×{n}" for card, n in p["cards"].items())
        return _("cards dealt that the %(deck)s deck does not hold: %(cards)s") % {"deck": p["deck"], "cards": cards}
    if code == "cards_not_uniform":
        return _("the dealt cards are unlikely from a uniform %(deck)s deck: chi-square %(chi)s with %(df)s degrees "
                 "of freedom, p = %(p).2g (below %(alpha)s)") % {
            "deck": p["deck"], "chi": p["chi_square"], "df": p["df"], "p": p["p_value"], "alpha": p["alpha"]}
    if code == "tenure_balance":
        return _("bank tenure #%(tenure)s (%(holder)s): its postings add up to %(movements)s € but its account "
                 "holds %(balance)s €") % p
    if code == "tenure_capital":
        return _("bank tenure #%(tenure)s: capital %(capital)s € but the ledger's capital posting is %(ledger)s €") % p
    if code == "closed_tenure_holds":
        return _("bank tenure #%(tenure)s is closed but its account still holds %(balance)s €") % p
    if code == "tenure_open_hands":
        return _("bank tenure #%(tenure)s has %(count)s hand(s) left open") % p
    if code == "holder_chain":
        return _("bank tenure #%(tenure)s follows tenure #%(previous)s, not #%(expected)s before it") % {
            **p, "previous": p.get("previous") or "—"}
    if code == "holder_chain_ends":
        return _("bank tenure #%(tenure)s began by %(began)s but the tenure before it ended by %(previous_ended)s") % {
            "tenure": p["tenure"], "began": BEGAN.get(p["began"], p["began"]),
            "previous_ended": ENDED.get(p["previous_ended"], p["previous_ended"] or "—")}
    if code == "drawer_variance":
        return _("drawer #%(drawer)s of %(cashier)s (signed by %(supervisor)s) closed with a variance of "
                 "%(variance)s € (expected %(expected)s €, counted %(counted)s €), beyond the tolerance of "
                 "%(tolerance)s €") % p
    details = ", ".join(f"{key}={value}" for key, value in p.items() if key != "code")
    return f"{code}: {details}"


def event_text(event) -> str:
    """An entry's event in table talk: ``luis card 2B``, ``bank stand``."""
    if not event:
        return "—"
    words = [str(event.get("seat", "")), str(event.get("do", ""))]
    for key in ("card", "amount", "hand"):
        if event.get(key) is not None:
            words.append(str(event[key]))
    if event.get("player"):
        words.append(_("by %(player)s") % {"player": event["player"]})
    return " ".join(word for word in words if word)
