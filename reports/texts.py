"""The reports' words: exceptions, stages and labels, in the reader's language.

A stored report keeps its exceptions as codes with parameters; they are put into words
here when the page, the CSV or the PDF is made, so one report reads in Spanish or in
English.
"""

from datetime import date

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from casino import formatting
from game import EngineError
from ledger.models import Transaction
from tables.errors import engine_message
from tables.rules_words import deck_words

STAGES = {
    "start": gettext_lazy("starting"),
    "hands": gettext_lazy("counting the hands"),
    "bets": gettext_lazy("adding up the bets"),
    "ledger": gettext_lazy("reading the ledger"),
    "voids": gettext_lazy("voids and reversals"),
    "cards": gettext_lazy("testing the dealt cards"),
    "chain": gettext_lazy("checking the chain of entries"),
    "replay": gettext_lazy("working every hand out again"),
    "checks": gettext_lazy("audit checks"),
    "tenures": gettext_lazy("reading the bank tenures"),
    "postings": gettext_lazy("capital, sales and distributions"),
    "done": gettext_lazy("done"),
}

#: What a hand's replay compares (``tables.replay``).
REPLAYED = {"stakes": gettext_lazy("stakes"), "results": gettext_lazy("results"), "nets": gettext_lazy("nets"),
            "commission": gettext_lazy("commission"), "next_bank": gettext_lazy("next bank"),
            "settlement": gettext_lazy("settlement"), "posting": gettext_lazy("ledger posting")}
RESULTS = {"win": gettext_lazy("win"), "natural": gettext_lazy("natural 7½"), "lose": gettext_lazy("lose"),
           "bust": gettext_lazy("bust")}
BET_KINDS = {"seat": gettext_lazy("seats' own bets"), "side": gettext_lazy("side bets"),
             "loca": gettext_lazy("la loca")}
RECONCILED = {"players": gettext_lazy("players (net)"), "bank": gettext_lazy("bank tenures (net)"),
              "house": gettext_lazy("house commission"), "other": gettext_lazy("other accounts")}
BEGAN = {"draw": gettext_lazy("drawn for"), "natural": gettext_lazy("taken with 7½"),
         "sale": gettext_lazy("bought"), "transfer": gettext_lazy("transferred"),
         "auction": gettext_lazy("won at auction")}
BOXES = {"drop": gettext_lazy("drop box"), "cagnotte": gettext_lazy("cagnotte box"),
         "tips": gettext_lazy("tips box")}
ENDED = {"closed": gettext_lazy("closed by its holder"), "natural": gettext_lazy("lost to a 7½"),
         "sale": gettext_lazy("sold"), "transfer": gettext_lazy("transferred"),
         "term": gettext_lazy("its awarded sessions played")}


def stage_label(stage):
    """What a running report is doing, in words."""
    return str(STAGES.get(stage, stage or ""))


def _numbers(numbers, count=None):
    shown = ", ".join(f"#{n}" for n in numbers[:50])
    more = (count or len(numbers)) - min(len(numbers), 50)
    return shown + (_(" and %(more)s more") % {"more": more} if more > 0 else "")


#: The parameters of a stored exception that are amounts of euros (``"12.50"``): every
#: one that an ``exception_text`` sentence prints before ``€`` (``reconciliation``,
#: ``player_differs``, ``tenure_*``, ``voids_not_cancelled``, ``commission_recomputed``,
#: ``box_variance``, ``drawer_variance``…). Only text is formatted: a tenure's id in
#: ``holder_chain``'s ``expected`` or a report's id in ``report`` is an int, and stays so.
AMOUNTS = ("report", "ledger", "difference", "amount", "movements", "balance", "capital", "result",
           "posted", "recomputed", "counted", "expected", "variance", "tolerance")


def _for_reader(item: dict) -> dict:
    """The exception's parameters as the reader reads them: amounts in his locale
    (``12,50``), the p-value with two significant digits (``< 0,001``), the statistic
    with two decimals."""
    shown = dict(item)
    for key in AMOUNTS:
        if isinstance(shown.get(key), str):
            shown[key] = formatting.number(shown[key], 2)
    if "p_value" in shown:
        shown["p_value"] = formatting.p_value(shown["p_value"])
    if shown.get("chi_square") is not None:
        shown["chi_square"] = formatting.number(shown["chi_square"], 2)
    if isinstance(shown.get("alpha"), float):
        shown["alpha"] = formatting.number(shown["alpha"], 3)
    return shown


def exception_text(item: dict) -> str:
    """One stored exception (``{"code": ..., ...}``) in words, its figures in the
    reader's format.

    Unknown codes are shown as their code and parameters, never dropped.
    """
    code = item.get("code")
    p = _for_reader(item)
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
        return _("settled hands without a ledger posting: %(count)s") % p
    if code == "void_not_reversed":
        return _("hand #%(hand)s was voided but its posting was never reversed") % p
    if code == "voids_not_cancelled":
        return _("the voided hands' postings and their reversals leave %(amount)s € on accounts: %(accounts)s") % p
    if code == "reversed_not_voided":
        return _("hand #%(hand)s is settled but its posting was reversed (transaction #%(transaction)s)") % p
    if code == "gaps":
        return _("hand numbers missing: %(numbers)s") % {"numbers": _numbers(p["numbers"], p["count"])}
    if code == "chain_link":
        return _("entry %(sequence)s of hand #%(hand)s does not follow the entry before it") % p
    if code == "chain_changed":
        return _("entry %(sequence)s of hand #%(hand)s was changed after it was entered") % p
    if code == "chain_unkeyed":
        return _("entry %(sequence)s of hand #%(hand)s is not signed with the audit trail's key") % p
    if code == "chain_unknown_key":
        return _("entry %(sequence)s of hand #%(hand)s is signed with a key this server does not hold") % p
    if code == "chain_last":
        return _("the table's last entry is missing from the chain")
    if code == "chain_more":
        return _("and %(count)s more breaks of the chain") % p
    if code == "hand_replay":
        return _("hand #%(hand)s: a replay of its entries disagrees with its %(what)s") % {
            "hand": p["hand"], "what": REPLAYED.get(p["what"], p["what"])}
    if code == "hand_unplayable":
        engine = p.get("engine")  # the engine's refusal in the reader's words (a report stored before: English)
        reason = (engine_message(EngineError(engine["rule"], engine["template"], **engine["params"])) if engine
                  else p["reason"])
        return _("hand #%(hand)s: its entries do not replay to a settled hand (%(reason)s)") % {**p, "reason": reason}
    if code == "void_without_entry":
        return _("hand #%(hand)s is voided but no void was entered at the table") % p
    if code == "posting_without_hand":
        from ledger.references import cause_text

        return _("transaction #%(transaction)s (%(reference)s) is a hand posting no hand points at") % {
            **p, "reference": cause_text(p.get("cause")) or p.get("reference", "")}
    if code == "seal_broken":
        return _("the chain head sealed in the report of shift #%(shift)s (version %(version)s) is no longer "
                 "the chain's: entry #%(entry)s was %(sealed)s, now %(now)s") % {
            **p, "sealed": p["sealed"][:16], "now": (p["now"] or _("missing"))[:16]}
    if code == "transaction_orphan":
        return _("transaction #%(transaction)s (%(kind)s, %(reference)s) has no record that justifies it, or its "
                 "record points at another transaction") % {
            **p, "kind": str(dict(Transaction.Kind.choices).get(p["kind"], p["kind"]))}
    if code == "record_without_posting":
        return (_("drawer #%(drawer)s lent a float but names no posting of it") if p["kind"] == "drawer_float"
                else _("drawer #%(drawer)s was closed but names no posting of its close")) % p
    if code == "statement_forged":
        return _("monthly statement #%(statement)s (%(month)s, version %(version)s) is not what its auditor "
                 "signed: its figures or its signature were rewritten") % p
    if code == "report_unwitnessed":
        return _("stored report #%(report)s (%(key)s, version %(version)s) has no line at the seals' witness: "
                 "it was not stored by the app") % p
    if code == "seal_replaced":
        return _("stored report #%(report)s (%(key)s, version %(version)s) is not what the seals' witness "
                 "holds (line %(line)s): its seal or its figures were rewritten after it was stored") % p
    if code == "report_gone":
        return _("report #%(report)s (%(key)s, version %(version)s), line %(line)s of the seals' witness, is not "
                 "in the database: deleted, or its transaction failed after the witness was written") % p
    if code == "witness_broken":
        return _("line %(line)s of the seals' witness does not follow the line before it: the file was edited") % p
    if code == "witness_unreadable":
        return _("line %(line)s of the seals' witness is not readable: the file was edited") % p
    if code == "open_hands":
        return _("hands left open: %(numbers)s") % {"numbers": _numbers(p["numbers"])}
    if code == "cards_outside_deck":
        cards = ", ".join(f"{card} ×{n}" for card, n in p["cards"].items())
        return _("cards dealt that the %(deck)s deck does not hold: %(cards)s") % {"deck": deck_words(p["deck"]), "cards": cards}
    if code == "cards_not_uniform":
        return _("the dealt cards are unlikely from a uniform %(deck)s deck: chi-square %(chi)s with %(df)s degrees "
                 "of freedom, %(p)s (below %(alpha)s)") % {
            "deck": deck_words(p["deck"]), "chi": p["chi_square"], "df": p["df"], "alpha": p["alpha"],
            "p": f"p {p['p_value']}" if p["p_value"].startswith("<") else f"p = {p['p_value']}"}
    if code == "tenure_balance":
        return _("bank tenure #%(tenure)s (%(holder)s): its postings add up to %(movements)s € but its account "
                 "holds %(balance)s €") % p
    if code == "tenure_capital":
        return _("bank tenure #%(tenure)s: capital %(capital)s € but the ledger's capital posting is %(ledger)s €") % p
    if code == "tenure_result":
        return _("bank tenure #%(tenure)s: its result of %(result)s € (taken out less put in) differs from its "
                 "takings in the ledger plus its sale price, %(ledger)s €") % p
    if code == "closed_tenure_holds":
        return _("bank tenure #%(tenure)s is closed but its account still holds %(balance)s €") % p
    if code == "tenure_open_hands":
        return _("bank tenure #%(tenure)s: hands left open: %(count)s") % p
    if code == "holder_chain":
        return _("bank tenure #%(tenure)s follows tenure #%(previous)s, not #%(expected)s before it") % {
            **p, "previous": p.get("previous") or "—"}
    if code == "holder_chain_ends":
        return _("bank tenure #%(tenure)s began by %(began)s but the tenure before it ended by %(previous_ended)s") % {
            "tenure": p["tenure"], "began": BEGAN.get(p["began"], p["began"]),
            "previous_ended": ENDED.get(p["previous_ended"], p["previous_ended"] or "—")}
    if code == "commission_recomputed":
        return _("the house's commission recomputed from the rate is %(recomputed)s €, the posted one %(posted)s € "
                 "(difference %(difference)s €) in hands (%(count)s): %(numbers)s") % {
            **p, "numbers": _numbers(p["numbers"], p["count"])}
    if code == "box_variance":
        return _("the %(box)s counted %(counted)s € against %(expected)s € recorded (variance %(variance)s €), "
                 "not explained") % {**p, "box": BOXES.get(p["box"], p["box"])}
    if code == "drawer_variance":
        return _("drawer #%(drawer)s of %(cashier)s (signed by %(supervisor)s) closed with a variance of "
                 "%(variance)s € (expected %(expected)s €, counted %(counted)s €), beyond the tolerance of "
                 "%(tolerance)s €") % p
    details = ", ".join(f"{key}={value}" for key, value in p.items() if key != "code")
    return f"{code}: {details}"


def event_text(event) -> str:
    """An entry's event in the reader's words: ``luis · carta · 1C``, ``banca · se planta``
    (``tables.words``)."""
    from tables.words import event_words

    return event_words(event)


# ---------------------------------------------------------------------------------------
# Alerts

PAIR_KINDS = {"dealer×bank": gettext_lazy("dealer × bank holder"), "dealer×player": gettext_lazy("dealer × player"),
              "bank×player": gettext_lazy("bank holder × player")}
CARD_TESTS = {"first": gettext_lazy("first cards"), "draws": gettext_lazy("drawn cards")}
#: What the pooled review adds up (``reports.pooling.POOLED_KINDS``).
POOLED_GROUPS = {**PAIR_KINDS, "bank": gettext_lazy("bank holder over all his tenures"),
                 "player": gettext_lazy("player over all tables"), "dealer": gettext_lazy("dealer over all tables")}
#: The footprint tests of a feeding dealer or bank holder (``reports.pooling.footprint_tests``).
FOOTPRINT_GROUPS = {
    "footprint:dealer×player": gettext_lazy("dealer × player, hands won with 7½ or the bank bust"),
    "footprint:bank×player": gettext_lazy("bank holder × player, hands won with 7½ or the bank bust"),
}
POOLED_GROUPS = {**POOLED_GROUPS, **FOOTPRINT_GROUPS}
#: The pooled review's windows (``reports.pooling.WINDOWS``, ``TO_DATE``).
POOLED_WINDOWS = {"day": gettext_lazy("the gaming day"), "week": gettext_lazy("the week"),
                  "month": gettext_lazy("the month"), "to_date": gettext_lazy("every hand to date"),
                  "report": gettext_lazy("the report's hands")}
GROUPS = {"all": gettext_lazy("all the hands"), "tenure": gettext_lazy("bank tenure"), "dealer": gettext_lazy("dealer")}


def _number(value, places=2):
    """A figure of a finding in the reader's format, ``—`` for none."""
    return formatting.number(value, places, missing="—")


def bank_result_words(actual) -> str:
    """The bank's result in the reader's words: "the bank won 12,00 €", or "the bank lost
    37,00 €" where it lost (never "won -37,00 €"). ``actual``: euros (a number)."""
    amount = float(actual)
    if amount < 0:
        return _("the bank lost %(amount)s €") % {"amount": _number(-amount)}
    return _("the bank won %(amount)s €") % {"amount": _number(amount)}


def place_words(who):
    """A place of the hand in the reader's words: the bank, the seats, la loca, or a seat's
    player id."""
    if who == "bank":
        return str(gettext_lazy("the bank"))
    if who == "seats":
        return str(gettext_lazy("the seats"))
    if who == "loca":
        return str(gettext_lazy("la loca"))
    return _("seat %(seat)s") % {"seat": who}


def points_words(half_points):
    """Points in half-points as a reader writes them: ``5½``, ``4``."""
    return f"{half_points // 2}" + ("½" if half_points % 2 else "")


def _rounded(value, places=3):
    """A figure rounded to ``places`` (the reader's format truncates), None for none."""
    return None if value is None else round(float(value), places)


def _signed(value, places=3):
    """A figure per unit staked with its sign, in the reader's format: ``+0,113``."""
    text = formatting.number(_rounded(value, places), places, missing="—")
    return text if text == "—" or text.startswith("-") else f"+{text}"


def expectation_text(evidence: dict) -> str:
    """What a review line or an alert expected and for which play, in the reader's
    language: "expected +0.113 ± 0.020 per unit staked, for seats standing at 5½ as
    observed in these 3,200 hands, the bank replying to what it sees".

    Args:
        evidence: a review line's or an alert's figures (``reports.detection.review``):
            ``per_unit_expected``, ``per_unit_band`` (the band's half-width per unit
            staked) and ``fit`` (``detection.fit_summary``; None or absent: the
            profile's default strategy, as alerts raised before the fit say).
    Returns:
        str, "" when the figures have no expectation per unit staked.
    """
    expected = evidence.get("per_unit_expected")
    if expected is None:
        return ""
    band = evidence.get("per_unit_band")
    text = (_("expected %(edge)s ± %(band)s per unit staked") % {"edge": _signed(expected),
                                                                  "band": _number(_rounded(band), 3)}
            if band is not None else _("expected %(edge)s per unit staked") % {"edge": _signed(expected)})
    fit = evidence.get("fit")
    if not isinstance(fit, dict) or fit.get("stand_at") is None:
        return _("%(expected)s, for the theory's default strategy") % {"expected": text}
    hands = fit.get("hands") or 0
    seats = ngettext("%(expected)s, for seats standing at %(points)s as observed in this %(hands)s hand",
                     "%(expected)s, for seats standing at %(points)s as observed in these %(hands)s hands", hands) % {
        "expected": text, "points": points_words(fit["stand_at"]), "hands": formatting.count(hands)}
    if fit.get("bank_stand_at") is not None:
        return _("%(seats)s, the bank standing at %(points)s") % {"seats": seats,
                                                                  "points": points_words(fit["bank_stand_at"])}
    return _("%(seats)s, the bank replying to what it sees") % {"seats": seats}


#: What each statistical alert tested, in words.
TESTED = {
    ("expected", "all"): gettext_lazy("The bank's result on all the hands reviewed against the theory's"),
    ("expected", "tenure"): gettext_lazy("The bank's result in one bank tenure against the theory's"),
    ("expected", "dealer"): gettext_lazy("The bank's result on one dealer's hands against the theory's"),
    ("pair", "dealer×bank"): gettext_lazy("The bank's result on the hands of one dealer with one bank holder"),
    ("pair", "dealer×player"): gettext_lazy("The bank's result on one player's bets with one dealer"),
    ("pair", "bank×player"): gettext_lazy("The bank's result on one player's bets against one bank holder"),
    ("cards", None): gettext_lazy("How often each rank was dealt, against a fair shuffle of the deck"),
    ("large_losses", None): gettext_lazy("How often a player lost his large stakes to one bank holder, against "
                                         "the theory's share of bets the bank wins"),
    ("pooled", "footprint:dealer×player"): gettext_lazy(
        "How often a player won with 7½ or with the bank bust in one dealer's hands, over every table, against his "
        "own rate in his other hands (or the other players' rate)"),
    ("pooled", "footprint:bank×player"): gettext_lazy(
        "How often a player won with 7½ or with the bank bust against one bank holder, over every table, against "
        "his own rate in his other hands (or the other players' rate)"),
}


def alert_test_rows(kind: str, code: str, evidence: dict) -> list:
    """An alert's evidence as the rows a reader checks, in his language: what was tested,
    the figure, the expectation with its band, the significance. ``[(label, text)]``; []
    for alerts that are not tests (exceptions, large bets, patterns)."""
    e = evidence if isinstance(evidence, dict) else {}
    tested = TESTED.get((kind, code)) or TESTED.get((kind, None))
    if tested is None:
        return []
    rows = [(_("What was tested"), str(tested))]
    if kind in ("expected", "pair"):
        rows.append((_("Hands"), formatting.count(e.get("hands"))))
        rows.append((_("Staked"), formatting.money(e.get("staked"))))
        rows.append((_("The bank won"), formatting.money(e.get("actual"))))
        expected = _("%(expected)s (band %(low)s to %(high)s)") % {
            "expected": formatting.money(e.get("expected")),
            "low": formatting.money(e["band"][0]), "high": formatting.money(e["band"][1])} \
            if isinstance(e.get("band"), list) and len(e["band"]) == 2 else formatting.money(e.get("expected"))
        rows.append((pgettext("alert test", "Expected"), expected))
        if e.get("per_unit_expected") is not None:
            rows.append((_("Per unit staked"), _("won %(actual)s, %(expectation)s") % {
                "actual": _signed(e["actual"] / e["staked"]) if e.get("staked") else "—",
                "expectation": expectation_text(e)}))
        rows.append((_("Standard deviation"), _("%(sd)s €, of which the theory's %(theory)s €") % {
            "sd": _number(e.get("sd")), "theory": _number(e.get("theory_sd"))}
            if e.get("theory_sd") is not None else f"{_number(e.get('sd'))} €"))
        rows.append((_("Significance"), "z = {z}, p = {p}, q = {q}".format(
            z=_number(e.get("z")), p=formatting.significant(e.get("p_value")),
            q=formatting.significant(e.get("combined_q")))))
    elif kind == "cards":
        rows.append((_("Significance"), _("chi-square %(statistic)s, %(df)s degrees of freedom, p = %(p)s, "
                                          "q = %(q)s") % {
            "statistic": _number(e.get("statistic")), "df": e.get("df"),
            "p": formatting.significant(e.get("p_value")), "q": formatting.significant(e.get("combined_q"))}))
    elif kind == "pooled":  # a footprint test
        rows.append((_("Hands"), formatting.count(e.get("hands"))))
        rows.append((_("Won with 7½ or the bank bust"), formatting.count(e.get("observed"))))
        rows.append((pgettext("alert test", "Expected"), _("%(expected)s ± %(sd)s (%(rate)s a hand, as in "
                                                           "%(baseline)s)") % {
            "expected": _number(e.get("expected_count"), 1), "sd": _number(e.get("sd_count"), 1),
            "rate": _number(e.get("rate"), 3), "baseline": footprint_baseline(e)}))
        rows.append((_("Significance"), "z = {z}, p = {p}, q = {q}".format(
            z=_number(e.get("z")), p=formatting.significant(e.get("p_value")),
            q=formatting.significant(e.get("combined_q")))))
    elif kind == "large_losses":
        rows.append((_("Significance"), "p = {p}, q = {q}".format(
            p=formatting.significant(e.get("p_value")), q=formatting.significant(e.get("combined_q")))))
    return rows


def alert_text(kind: str, code: str, evidence: dict) -> str:
    """An alert's finding in one sentence, in the reader's language, from its kind, code
    and evidence (``reports.detection``). Unknown kinds show their code and data."""
    e = evidence
    if kind == "exception" and "items" in e:
        first = exception_text(e["items"][0]) if e["items"] else str(code)
        more = e.get("item_total", len(e["items"])) - 1
        if more <= 0:
            return first
        return ngettext("%(first)s, and %(count)s more exception of the same kind",
                        "%(first)s, and %(count)s more exceptions of the same kind", more) % {
            "first": first, "count": more}
    if kind == "exception":
        return exception_text(e)
    if kind == "large_bet" and code == "stakes":
        return ngettext(
            "%(player)s staked at or above the table's large bet of %(threshold)s € %(count)s time on gaming day "
            "%(day)s (%(shift)s): %(total)s € in all, the largest %(largest)s €",
            "%(player)s staked at or above the table's large bet of %(threshold)s € %(count)s times on gaming day "
            "%(day)s (%(shift)s): %(total)s € in all, the largest %(largest)s €", e["count"]) % {
            "player": e["player"], "threshold": _number(e["threshold"]), "count": e["count"],
            "day": formats.date_format(date.fromisoformat(e["gaming_day"]), "SHORT_DATE_FORMAT"),
            "shift": (_("shift #%(id)s") % {"id": e["shift"]}) if e.get("shift") else _("imported hands"),
            "total": _number(e["total"]), "largest": _number(e["largest"])}
    if kind == "large_bet":
        return _("hand %(hand)s: %(player)s staked %(stake)s €, at or above the table's large bet of "
                 "%(threshold)s €") % {"hand": f"#{e['number']}", "player": e["player"],
                                        "stake": _number(e["stake"]), "threshold": _number(e["threshold"])}
    if kind == "expected":
        group = GROUPS.get(code, code)
        name = "" if code == "all" else f" {e.get('group')}"
        text = _("%(group)s%(name)s: %(result)s where %(expected)s € were expected "
                 "(band ±%(k)sσ: %(low)s € to %(high)s €; z = %(z)s, p = %(p)s, q = %(q)s)") % {
            "group": str(group).capitalize(), "name": name, "result": bank_result_words(e["actual"]),
            "expected": _number(e["expected"]), "k": _number(e["k"], 0), "low": _number(e["band"][0]),
            "high": _number(e["band"][1]), "z": _number(e["z"]), "p": formatting.significant(e["p_value"]),
            "q": formatting.significant(e.get("combined_q"))}
        expectation = expectation_text(e)
        return with_same(f"{text}; {expectation}" if expectation else text, e)
    if kind == "pair":
        text = _("%(pair)s %(a)s × %(b)s: %(hands)s hands, %(result)s where %(expected)s € were "
                 "expected (z = %(z)s, p = %(p)s, q = %(q)s)") % {
            "pair": str(PAIR_KINDS.get(code, code)).capitalize(), "a": e["a"], "b": e["b"], "hands": e["hands"],
            "result": bank_result_words(e["actual"]), "expected": _number(e["expected"]), "z": _number(e["z"]),
            "p": formatting.significant(e["p_value"]), "q": formatting.significant(e.get("combined_q"))}
        expectation = expectation_text(e)
        return with_same(f"{text}; {expectation}" if expectation else text, e)
    if kind == "cards":
        return _("%(test)s of %(who)s (%(deck)s, %(cards)s cards): the %(rank)s comes too often "
                 "(chi-square %(statistic)s, %(df)s degrees of freedom, p = %(p)s, q = %(q)s)") % {
            "test": str(CARD_TESTS.get(e.get("test"), e.get("test"))).capitalize(), "who": place_words(e.get("who")),
            "deck": e.get("deck"), "cards": e.get("cards"), "rank": e.get("rank"),
            "statistic": _number(e.get("statistic")), "df": e.get("df"), "p": formatting.significant(e.get("p_value")),
            "q": formatting.significant(e.get("combined_q"))}
    if kind == "large_losses":
        return _("%(player)s lost %(lost)s of his %(bets)s large stakes (at least %(large)s €) to the bank of "
                 "%(bank)s, %(amount)s € (p = %(p)s, q = %(q)s)") % {
            "player": e["player"], "lost": e["lost"], "bets": e["large_bets"], "large": _number(e["large_stake"]),
            "bank": e["bank"], "amount": _number(e["amount_lost"]), "p": formatting.significant(e["p_value"]),
            "q": formatting.significant(e.get("combined_q"))}
    if kind == "bank_changes" and code == "repeated_changes":
        return _("the bank changed hands %(count)s times between %(a)s and %(b)s (%(reversals)s times straight "
                 "back)") % {"count": e["count"], "a": e["players"][0], "b": e["players"][1],
                             "reversals": e["reversals"]}
    if kind == "bank_changes" and code == "price_far_from_balance":
        return _("bank sold by %(seller)s to %(buyer)s for %(price)s € while it held %(balance)s €") % {
            "seller": e["from"], "buyer": e["to"], "price": _number(e["price"]), "balance": _number(e["balance"])}
    if kind == "transfers":
        return transfer_text(code, e)
    if kind == "pooled":
        return pooled_text(code, e)
    details = ", ".join(f"{key}={value}" for key, value in e.items())
    return f"{kind}/{code}: {details}"


def same_words(e: dict) -> str:
    """The other groups of a test's same bets (``same`` of ``detection.same_tests`` and
    ``pooling``), in words: ``d1 × ana (dealer × player), ana (player over all tables)``; ""
    for none."""
    names = []
    for other in e.get("same") or []:
        code = other.get("code")
        if other.get("kind") == "expected":
            group = str(GROUPS.get(code, code))
            names.append(group if code == "all" else f"{group} {other.get('group')}")
        else:
            names.append(f"{pooled_who(code, other)} ({POOLED_GROUPS.get(code, code)})")
    return ", ".join(names)


def with_same(text: str, e: dict) -> str:
    """``text`` and, where the test's bets are also other groups', those groups named."""
    others = same_words(e)
    return text if not others else _("%(text)s; the same bets as %(others)s") % {"text": text, "others": others}


def pooled_who(code: str, e: dict) -> str:
    """A pooled group's people: ``d1 × ana``, or one person's code."""
    return e["a"] if e.get("b") is None else f"{e['a']} × {e['b']}"


def pooled_group_words(code: str, e: dict) -> dict:
    """The words every pooled finding's sentence opens with: ``who`` (its people: ``d1 ×
    ana``), ``group`` (its kind: ``dealer × player``), ``window``, ``from`` and ``to`` (short
    dates in the reader's locale), ``tables`` and ``shifts`` (counted in words: ``1 table``,
    ``3 shifts``)."""
    tables, shifts = e.get("tables"), e.get("shifts")
    return {"group": POOLED_GROUPS.get(code, code), "who": pooled_who(code, e),
            "window": POOLED_WINDOWS.get(e.get("window"), e.get("window")),
            "from": formats.date_format(date.fromisoformat(e["from"]), "SHORT_DATE_FORMAT"),
            "to": formats.date_format(date.fromisoformat(e["to"]), "SHORT_DATE_FORMAT"),
            "tables": "?" if tables is None else ngettext("%(n)s table", "%(n)s tables", tables) % {
                "n": formatting.count(tables)},
            "shifts": "?" if shifts is None else ngettext("%(n)s shift", "%(n)s shifts", shifts) % {
                "n": formatting.count(shifts)}}


def footprint_baseline(e: dict) -> str:
    """Where a footprint test's expected rate came from, in words."""
    if e.get("baseline") == "player":
        return ngettext("the player's %(n)s other hand", "the player's %(n)s other hands",
                        e.get("baseline_hands") or 0) % {"n": formatting.count(e.get("baseline_hands"))}
    return ngettext("the other players' %(n)s hand", "the other players' %(n)s hands",
                    e.get("baseline_hands") or 0) % {"n": formatting.count(e.get("baseline_hands"))}


def footprint_text(code: str, e: dict) -> str:
    """A footprint test's finding (``reports.pooling.footprint_tests``) in one sentence:
    the group, the window, the hands won with 7½ or the bank bust against the expected
    count, its rate and where that came from, z, p and q."""
    text = _("%(who)s (%(group)s) over %(window)s (%(from)s to %(to)s; %(tables)s in %(shifts)s): "
             "%(player)s won with 7½ or with the bank bust in %(observed)s of %(hands)s hands where %(expected)s "
             "were expected (%(rate)s a hand, as in %(baseline)s; z = %(z)s, p = %(p)s, q = %(q)s)") % {
        **pooled_group_words(code, e), "player": e.get("b"), "observed": e.get("observed"), "hands": e.get("hands"),
        "expected": _number(e.get("expected_count"), 1), "rate": _number(e.get("rate"), 3),
        "baseline": footprint_baseline(e), "z": _number(e.get("z")), "p": formatting.significant(e.get("p_value")),
        "q": formatting.significant(e.get("combined_q"))}
    return with_same(text, e)


def pooled_text(code: str, e: dict) -> str:
    """A pooled review's finding (``reports.pooling``) in one sentence, in the reader's
    language: the group, the window, where its hands were played, the bank's result against
    the expected, z, p and q (a footprint test: ``footprint_text``)."""
    if code in FOOTPRINT_GROUPS:
        return footprint_text(code, e)
    text = _("%(who)s (%(group)s) over %(window)s (%(from)s to %(to)s; %(hands)s hands at %(tables)s in "
             "%(shifts)s): %(result)s where %(expected)s € were expected (z = %(z)s, p = %(p)s, "
             "q = %(q)s)") % {
        **pooled_group_words(code, e), "hands": e["hands"], "result": bank_result_words(e["actual"]),
        "expected": _number(e["expected"]), "z": _number(e["z"]), "p": formatting.significant(e["p_value"]),
        "q": formatting.significant(e.get("combined_q"))}
    return with_same(text, e)


def transfer_text(code: str, e: dict) -> str:
    """A chip-transfer pattern (``reports.transfers``) in one sentence, in the reader's
    language, from its code and evidence."""
    span = {"from": formats.date_format(date.fromisoformat(e["from"]), "SHORT_DATE_FORMAT"),
            "to": formats.date_format(date.fromisoformat(e["to"]), "SHORT_DATE_FORMAT")}
    if code == "one_way":
        return _("%(giver)s gave %(receiver)s chips %(count)s times from %(from)s to %(to)s, %(total)s € in all, "
                 "and received none back") % {"giver": e["players"][0], "receiver": e["players"][1],
                                               "count": e["count"], "total": _number(e["total"]), **span}
    if code == "cycle":
        return _("chips went round %(round)s from %(from)s to %(to)s: %(count)s transfers, %(total)s € in all") % {
            "round": " → ".join([*e["players"], e["players"][0]]), "count": e["count"],
            "total": _number(e["total"]), **span}
    if code == "after_win":
        return _("%(giver)s gave %(receiver)s %(total)s € of chips shortly after winning %(won)s € in hands") % {
            "giver": e["players"][0], "receiver": e["players"][1], "total": _number(e["total"]),
            "won": _number(e["won"])}
    details = ", ".join(f"{key}={value}" for key, value in e.items())
    return f"transfers/{code}: {details}"
