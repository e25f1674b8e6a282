"""Hand history, under /tables/hands/: each table's hands, one hand with every entry, its
settlement and its ledger posting, and the hand as a hand record to download.

Read only (GET). Pit supervisors and auditors read every table; a dealer reads the table
of his open shift only (403 elsewhere); other roles get 403. [issue 4 "Around the hand"]
"""

import json
from dataclasses import dataclass
from decimal import Decimal

from django import forms
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Max
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR, has_role, role_required
from ledger.models import Transaction
from ledger.money import euros, show
from tables.chain import entry_fault
from tables.engine import IllegalEvent
from tables.engine.cards import CARD_NAME, parse_card
from tables.engine.hand import parse_amount
from tables.errors import engine_message
from tables.integrity import chain_faults, number_gaps
from tables.models import Hand, HandEvent, Shift, Table
from tables.selectors import hand_record

PER_PAGE = 50

#: What each ``do`` is called on the page.
ACTIONS = {
    "deal": gettext_lazy("deal"), "bet": gettext_lazy("bet"), "card": gettext_lazy("card"),
    "reveal": gettext_lazy("reveal"), "stand": gettext_lazy("stand"), "split": gettext_lazy("split"),
    "exchange": gettext_lazy("exchange of a four"), "fusilar": gettext_lazy("fusilar"),
    "muerto": gettext_lazy("muerto"), "shuffle": gettext_lazy("shuffle"), "identify": gettext_lazy("identify"),
}
RESULTS = {"win": gettext_lazy("win"), "natural": gettext_lazy("natural"), "lose": gettext_lazy("lose"),
           "bust": gettext_lazy("bust")}

#: Who reads hand history; an auditor's POST is 403 as everywhere, anyone else's 405.
readers = role_required(PIT_SUPERVISOR, DEALER, read_roles=(AUDITOR,))


def _sees_every_table(user):
    return has_role(user, PIT_SUPERVISOR, AUDITOR)


def _readable_table(request, table_id):
    """The table, if the user may read its hands; else 403 (404 if there is none).

    A dealer reads only the table of his open shift."""
    table = get_object_or_404(Table, pk=table_id)
    if _sees_every_table(request.user):
        return table
    if table.shifts.filter(closed_at__isnull=True, dealer=request.user).exists():
        return table
    raise PermissionDenied(_("A dealer reads the hands of the table of his open shift only."))


def _page(request, queryset, per_page=PER_PAGE):
    return Paginator(queryset, per_page).get_page(request.GET.get("page"))


# ---------------------------------------------------------------------------------------
# The tables and their hands


@readers
@require_safe
def tables(request):
    """The tables whose hands the user may read; a dealer goes straight to his table."""
    if not _sees_every_table(request.user):
        shift = Shift.objects.filter(closed_at__isnull=True, dealer=request.user).first()
        if shift is None:
            return render(request, "tables/hands/tables.html", {"rows": [], "no_shift": True})
        return redirect("tables:hand_list", table_id=shift.table_id)
    rows = (Table.objects.annotate(hand_count=Count("hands"), last_played=Max("hands__opened_at"))
            .order_by("name"))
    return render(request, "tables/hands/tables.html", {"rows": rows})


class HandFilterForm(forms.Form):
    """The hand list's filters: one shift of the table, one status."""

    shift = forms.TypedChoiceField(label=gettext_lazy("Shift"), required=False, coerce=int, empty_value=None)
    status = forms.ChoiceField(label=gettext_lazy("Status"), required=False)

    def __init__(self, *args, table, **kwargs):
        super().__init__(*args, **kwargs)
        # The latest shifts (and the one asked for, however old): a select stays short.
        shifts = list(table.shifts.select_related("dealer").order_by("-opened_at", "-id")[:100])
        asked = self.data.get("shift")
        if asked and str(asked).isdigit() and all(str(s.pk) != asked for s in shifts):
            shifts += list(table.shifts.select_related("dealer").filter(pk=int(asked)))
        self.fields["shift"].choices = [("", _("every shift"))] + [
            (s.pk, f"{s.opened_at:%d/%m/%Y %H:%M} · {s.dealer.get_username()}") for s in shifts]
        self.fields["status"].choices = [("", _("every status")), *Hand.Status.choices]


@readers
@require_safe
def hand_list(request, table_id):
    """A table's hands, newest first, 50 a page; ``?shift=ID`` and ``?status=`` filter."""
    table = _readable_table(request, table_id)
    form = HandFilterForm(request.GET, table=table)
    hands = Hand.objects.filter(table=table).select_related("bank", "shift__dealer").order_by("-number")
    if form.is_valid():
        if form.cleaned_data["shift"]:
            hands = hands.filter(shift_id=form.cleaned_data["shift"])
        if form.cleaned_data["status"]:
            hands = hands.filter(status=form.cleaned_data["status"])
    else:
        hands = hands.none()
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "tables/hands/list.html", {
        "table": table, "form": form, "hands": _page(request, hands), "query": query.urlencode(),
        "is_auditor": _sees_every_table(request.user)})


@role_required(PIT_SUPERVISOR, read_roles=(AUDITOR,))
@require_safe
def integrity(request, table_id):
    """The table's keyed chain of entries (HMAC, tables.chain) recomputed, and its hand numbers checked."""
    table = get_object_or_404(Table, pk=table_id)
    return render(request, "tables/hands/integrity.html", {
        "table": table, "faults": chain_faults(table), "gaps": number_gaps(table),
        "entries": HandEvent.objects.filter(table=table).count()})


# ---------------------------------------------------------------------------------------
# One hand


@dataclass
class EntryLine:
    """One entry as the page shows it: the event in words, who and when, its hash, and
    whether it was undone (by which entry) or its hash no longer matches its content."""

    entry: HandEvent
    seat: str
    action: str
    detail: str
    reason: str
    undone_by: int | None
    hash_ok: bool


def _card(value):
    if value is None:
        return "?"
    code = parse_card(value)
    return CARD_NAME[code] if code is not None else str(value)


def _amount(value):
    amount = parse_amount(value)
    return show(euros(amount)) if amount is not None else str(value)


def _seat(seat):
    return {"bank": _("bank"), "loca": _("la loca"), None: ""}.get(seat, seat)


def _describe(event):
    """``(seat, action, detail)`` of an engine event, in words."""
    do = event.get("do")
    details = []
    if "card" in event:
        details.append(_card(event["card"]) if event["card"] is not None else _("face down, unknown"))
    if event.get("down"):
        details.append(_("face down"))
    if "amount" in event:
        details.append(_amount(event["amount"]))
    if event.get("player"):
        details.append(_("by %(player)s") % {"player": event["player"]})
    if "hand" in event:
        details.append(_("hand %(number)s") % {"number": event["hand"]})
    return _seat(event.get("seat")), str(ACTIONS.get(do, do)), " · ".join(details)


def entry_lines(hand):
    """Every entry of the hand, in order, described (see ``EntryLine``)."""
    entries = list(hand.events.select_related("entered_by").order_by("sequence"))
    undone, in_force = {}, []
    for entry in entries:
        if entry.kind == HandEvent.Kind.EVENT:
            in_force.append(entry.sequence)
        elif entry.kind == HandEvent.Kind.UNDO and in_force:
            undone[in_force.pop()] = entry.sequence
    lines = []
    for entry in entries:
        ok = entry_fault(entry_id=entry.pk, key_id=entry.key_id, stored=entry.hash, previous=entry.previous_hash,
                         table_id=hand.table_id, hand_number=hand.number, sequence=entry.sequence, kind=entry.kind,
                         event=entry.event, entered_by_id=entry.entered_by_id, entered_at=entry.entered_at) is None
        if entry.kind == HandEvent.Kind.EVENT:
            seat, action, detail = _describe(entry.event)
            reason = ""
        elif entry.kind == HandEvent.Kind.UNDO:
            seat, action = "", _("undo")
            detail = _("undoes entry %(sequence)s") % {"sequence": entry.event.get("undo")}
            reason = entry.event.get("reason", "")
        else:
            seat, action, detail, reason = "", _("void"), "", entry.event.get("reason", "")
        lines.append(EntryLine(entry, seat, action, detail, reason, undone.get(entry.sequence), ok))
    return lines


@dataclass
class BetLine:
    """One settled bet as shown: amounts ``Decimal`` euros, points as written (``7½``)."""

    player: str
    seat: str
    hand: int
    stake: Decimal
    points: str
    result: str
    multiplier: int
    net: Decimal


def _points(text):
    whole, _dot, half = text.partition(".")
    if not half:
        return whole
    return "½" if whole == "0" else f"{whole}½"


def _settlement(hand):
    """The settlement in display form, or None: bets, players' nets, bank, commission."""
    if not hand.settlement:
        return None
    done = hand.settlement
    return {
        "bets": [BetLine(b["player"], _seat(b["seat"]), b["hand"], Decimal(b["stake"]), _points(b["points"]),
                         str(RESULTS.get(b["result"], b["result"])), b["multiplier"], Decimal(b["net"]))
                 for b in done["bets"]],
        "players": [(code, Decimal(net)) for code, net in done["players"].items()],
        "bank_player": done["bank"]["player"], "bank_points": _points(done["bank"]["points"]),
        "bank_net": Decimal(done["bank"]["net"]), "commission": Decimal(done["commission"]),
        "next_bank": done["next_bank"],
    }


def _postings(hand):
    """The hand's ledger transaction and its reversal, each with its entries, or []."""
    if hand.transaction_id is None:
        return []
    found = (Transaction.objects.filter(pk=hand.transaction_id) | Transaction.objects.filter(
        reverses_id=hand.transaction_id)).select_related("posted_by").order_by("id")
    return [(txn, list(txn.entries.select_related("account__player", "account__tenure").order_by("id")))
            for txn in found]


def _hand(request, table_id, number):
    table = _readable_table(request, table_id)
    return get_object_or_404(Hand.objects.select_related("table", "bank", "shift__dealer", "tenure", "opened_by",
                                                         "voided_by"), table=table, number=number)


@readers
@require_safe
def hand_detail(request, table_id, number):
    """One hand: seats, bank, every entry (who, when, undos and voids with their reason,
    hashes), the settlement, the ledger's posting and its reversal."""
    hand = _hand(request, table_id, number)
    numbers = Hand.objects.filter(table_id=hand.table_id)
    return render(request, "tables/hands/detail.html", {
        "hand": hand, "rules": json.dumps(hand.rules, ensure_ascii=False), "entries": entry_lines(hand), "settlement": _settlement(hand), "postings": _postings(hand),
        "can_void": has_role(request.user, PIT_SUPERVISOR) and hand.status != Hand.Status.VOIDED,
        "previous": numbers.filter(number__lt=hand.number).aggregate(n=Max("number"))["n"],
        "next": numbers.filter(number__gt=hand.number).order_by("number").values_list("number", flat=True).first()})


@readers
@require_safe
def hand_record_download(request, table_id, number):
    """The hand as a hand record (JSON, ``hand-record.md``), as a file to download;
    409 while a face-down card of it is still unnamed."""
    hand = _hand(request, table_id, number)
    try:
        record = hand_record(hand)
    except IllegalEvent as error:
        return HttpResponse(engine_message(error), status=409,
                            content_type="text/plain; charset=utf-8")
    response = JsonResponse(record, json_dumps_params={"ensure_ascii": False, "indent": 2})
    name = f"{slugify(hand.table.name) or 'table'}-{hand.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


urlpatterns = [
    path("hands/", tables, name="hands"),
    path("hands/<int:table_id>/", hand_list, name="hand_list"),
    path("hands/<int:table_id>/integrity/", integrity, name="hand_integrity"),
    path("hands/<int:table_id>/<int:number>/", hand_detail, name="hand_detail"),
    path("hands/<int:table_id>/<int:number>/record.json", hand_record_download, name="hand_record"),
]
