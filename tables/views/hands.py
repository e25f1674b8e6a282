"""Hand history, under /tables/hands/: each table's hands, one hand with every entry, its
settlement and its ledger posting, and the hand as a hand record to download.

Read only (GET). Pit supervisors and auditors read every table; a dealer reads the table
of his open shift only (403 elsewhere); other roles get 403.
"""

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils import formats, timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from casino.formatting import csv_name, csv_writer, instant, number
from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR, has_role, role_required
from game import IllegalEvent
from game.errors import InvalidRules
from ledger.forms import EurosField
from ledger.models import Transaction
from ledger.signing import signature_faults
from patrons.models import Player
from tables import report_exceptions
from tables.chain import entry_fault
from tables.errors import engine_message
from tables.integrity import integrity_sections, number_gaps, table_faults
from tables.models import Hand, HandBet, HandEvent, Shift, SyndicateShare, Table
from tables.rules_words import rules_words
from tables.selectors import hand_record
from tables.services.recording import played_rules_and_state
from tables.words import describe, seat_words

PER_PAGE = 50

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
    if table.shifts.filter(closed_at__isnull=True, current_dealer=request.user).exists():
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
        shift = Shift.objects.filter(closed_at__isnull=True, current_dealer=request.user).first()
        if shift is None:
            return render(request, "tables/hands/tables.html", {"rows": [], "no_shift": True})
        return redirect("tables:hand_list", table_id=shift.table_id)
    rows = (Table.objects.annotate(hand_count=Count("hands"), last_played=Max("hands__opened_at"))
            .order_by("name"))
    return render(request, "tables/hands/tables.html", {"rows": rows})


class _PlayerField(forms.CharField):
    """A player's id (``luis``), optional, cleaned to the ``Player`` (None when empty);
    an unknown id is refused naming it."""

    def __init__(self, **kwargs):
        super().__init__(required=False, max_length=64, **kwargs)

    def clean(self, value):
        code = super().clean(value)
        if not code:
            return None
        player = Player.objects.filter(code=code).first() or Player.objects.filter(code__iexact=code).first()
        if player is None:
            raise forms.ValidationError(_("No player has the id %(code)s."), code="unknown_player",
                                        params={"code": code})
        return player


#: Where a report's exception names its hands: one hand's number, or a list of them.
EXCEPTION_HAND_KEYS = ("hand", "numbers")
#: Exceptions whose numbers are no hands (the numbers missing from the table's sequence).
EXCEPTION_NOT_HANDS = ("gaps",)


def exception_hand_numbers(exceptions, code=None) -> set[int]:
    """The hand numbers a report's exceptions name (``hand``, or ``numbers`` of hands left
    open), of the exceptions with ``code`` (every code when None); the numbers of gaps
    (hands that do not exist) are left out.

    Args:
        exceptions: a stored report's ``result["exceptions"]`` (dicts with ``code``).
        code: an exception code, or None.
    Returns:
        a set of hand numbers (ints).
    """
    numbers = set()
    for item in exceptions or []:
        if not isinstance(item, dict) or item.get("code") in EXCEPTION_NOT_HANDS:
            continue
        if code is not None and item.get("code") != code:
            continue
        for key in EXCEPTION_HAND_KEYS:
            value = item.get(key)
            values = value if isinstance(value, list) else [value]
            numbers.update(v for v in values if isinstance(v, int) and not isinstance(v, bool))
    return numbers


class HandFilterForm(forms.Form):
    """The hand list's filters (GET; each optional, all applied together):

    - ``shift`` (one shift of the table), ``status``, ``date_from``/``date_to`` (the days the
      hands were opened, the casino's days, ``TIME_ZONE``, both included);
    - ``dealer`` (his username), ``bank`` (a player id: the hands whose bank he held, or in
      whose bank tenure he had a syndicate share), ``player`` (a player id: the hands where
      he had a bet, la loca's included, or a seat), ``min_stake`` (euros: the hands with a
      bet of at least this much; with ``player``, a bet of his of at least this much);
    - ``number_from``/``number_to`` (hand numbers, both included), ``tenure`` (a bank
      tenure's id);
    - ``report`` and ``exception`` (a stored report of this table and one of its exception
      codes: the hands those exceptions name; the report alone: every exception's).

    Bad input is a field error naming the field (the page answers 400, the CSV 400 with
    the errors as text), never a 500.
    """

    shift = forms.TypedChoiceField(label=gettext_lazy("Shift"), required=False, coerce=int, empty_value=None)
    status = forms.ChoiceField(label=gettext_lazy("Status"), required=False)
    date_from = forms.DateField(label=gettext_lazy("From"), required=False,
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label=gettext_lazy("To"), required=False,
                              widget=forms.DateInput(attrs={"type": "date"}))
    dealer = forms.CharField(label=gettext_lazy("Dealer"), required=False, max_length=150)
    bank = _PlayerField(label=gettext_lazy("Bank holder or syndicate member"))
    player = _PlayerField(label=gettext_lazy("Player"))
    min_stake = EurosField(label=gettext_lazy("Stake of at least (€)"), required=False,
                           widget=forms.TextInput(attrs={"inputmode": "decimal", "size": 8}))
    number_from = forms.IntegerField(label=gettext_lazy("From hand #"), required=False, min_value=1,
                                     max_value=2_147_483_647, widget=forms.NumberInput(attrs={"size": 7}))
    number_to = forms.IntegerField(label=gettext_lazy("To hand #"), required=False, min_value=1,
                                   max_value=2_147_483_647, widget=forms.NumberInput(attrs={"size": 7}))
    tenure = forms.IntegerField(label=gettext_lazy("Bank tenure"), required=False, min_value=1,
                                max_value=2_147_483_647, widget=forms.NumberInput(attrs={"size": 7}))
    report = forms.IntegerField(label=gettext_lazy("Report"), required=False, min_value=1,
                                max_value=2_147_483_647, widget=forms.NumberInput(attrs={"size": 7}))
    exception = forms.CharField(label=gettext_lazy("Exception"), required=False, max_length=64)

    #: The filters shown at first; the others open under "More filters" (or when used).
    MAIN = ("shift", "status", "date_from", "date_to", "dealer", "player")

    def __init__(self, *args, table, **kwargs):
        super().__init__(*args, **kwargs)
        self.table = table
        # The latest shifts (and the one asked for, however old): a select stays short.
        shifts = list(table.shifts.select_related("dealer").order_by("-opened_at", "-id")[:100])
        asked = self.data.get("shift")
        if asked and str(asked).isdigit() and all(str(s.pk) != asked for s in shifts):
            shifts += list(table.shifts.select_related("dealer").filter(pk=int(asked)))
        self.fields["shift"].choices = [("", _("every shift"))] + [
            (s.pk, f"{formats.date_format(timezone.localtime(s.opened_at), 'SHORT_DATETIME_FORMAT')} · "
                   f"{s.dealer.get_username()}") for s in shifts]
        self.fields["status"].choices = [("", _("every status")), *Hand.Status.choices]
        self.exception_numbers = None

    @property
    def main_fields(self):
        """The filters shown at first (``MAIN``)."""
        return [self[name] for name in self.MAIN]

    @property
    def more_fields(self):
        """The other filters, under "More filters"."""
        return [self[name] for name in self.fields if name not in self.MAIN]

    @property
    def more_used(self):
        """Whether any of the other filters is given or wrong (its box opens)."""
        return any(self.data.get(field.name) or field.errors for field in self.more_fields)

    def clean_dealer(self):
        name = self.cleaned_data["dealer"].strip()
        if not name:
            return None
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError(_("No user is called %(name)s."), code="unknown_dealer",
                                        params={"name": name})
        return user

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error("date_to", _("the last day comes before the first"))
        if data.get("number_from") and data.get("number_to") and data["number_to"] < data["number_from"]:
            self.add_error("number_to", _("the last hand number comes before the first"))
        code = (data.get("exception") or "").strip()
        data["exception"] = code or None
        if "report" in data and "exception" not in self.errors:
            self._clean_report(data, code)
        return data

    def _clean_report(self, data, code):
        if not data.get("report"):
            if code:
                self.add_error("report", _("Give the report whose exception %(code)s you want the hands of.")
                               % {"code": code})
            return
        exceptions = report_exceptions.exceptions_of(table=self.table, report_id=data["report"])
        if exceptions is None:
            self.add_error("report", _("Table %(table)s has no report #%(id)s.")
                           % {"table": self.table.name, "id": data["report"]})
            return
        if code and not any(isinstance(item, dict) and item.get("code") == code for item in exceptions):
            self.add_error("exception", _("Report #%(id)s has no exception %(code)s.")
                           % {"id": data["report"], "code": code})
            return
        self.exception_numbers = exception_hand_numbers(exceptions, code or None)

    def filter(self, hands):
        """``hands`` narrowed by the valid filters (none when the form is invalid)."""
        if not self.is_valid():
            return hands.none()
        data = self.cleaned_data
        if data["shift"]:
            hands = hands.filter(shift_id=data["shift"])
        if data["status"]:
            hands = hands.filter(status=data["status"])
        zone = timezone.get_default_timezone()
        if data["date_from"]:
            hands = hands.filter(opened_at__gte=timezone.make_aware(datetime.combine(data["date_from"], time.min), zone))
        if data["date_to"]:
            end = timezone.make_aware(datetime.combine(data["date_to"] + timedelta(days=1), time.min), zone)
            hands = hands.filter(opened_at__lt=end)
        if data["dealer"]:
            hands = hands.filter(dealer=data["dealer"])
        if data["bank"]:
            hands = hands.filter(Q(bank=data["bank"]) | Exists(
                SyndicateShare.objects.filter(tenure_id=OuterRef("tenure_id"), player=data["bank"])))
        bets = HandBet.objects.filter(hand_id=OuterRef("pk"))
        if data["player"]:
            bets = bets.filter(player=data["player"])
        if data["min_stake"] is not None:
            bets = bets.filter(stake__gte=data["min_stake"])
        if data["min_stake"] is not None:
            hands = hands.filter(Exists(bets))
        elif data["player"]:
            hands = hands.filter(Exists(bets) | Q(seats__contains=[data["player"].code]))
        if data["number_from"]:
            hands = hands.filter(number__gte=data["number_from"])
        if data["number_to"]:
            hands = hands.filter(number__lte=data["number_to"])
        if data["tenure"]:
            hands = hands.filter(tenure_id=data["tenure"])
        if self.exception_numbers is not None:
            hands = hands.filter(number__in=sorted(self.exception_numbers))
        return hands


def _filtered_hands(request, table):
    form = HandFilterForm(request.GET, table=table)
    hands = Hand.objects.filter(table=table).select_related("bank", "dealer").order_by("-number")
    return form, form.filter(hands)


@readers
@require_safe
def hand_list(request, table_id):
    """A table's hands, newest first, 50 a page; ``?shift=ID``, ``?status=``,
    ``?date_from=`` and ``?date_to=`` (the casino's days) filter; the same filters give
    the CSV export."""
    table = _readable_table(request, table_id)
    form, hands = _filtered_hands(request, table)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "tables/hands/list.html", {
        "table": table, "form": form, "hands": _page(request, hands), "query": query.urlencode(),
        "is_auditor": _sees_every_table(request.user)})


def _hand_csv_rows(hands):
    """The export's rows: a header, then one row per hand in the reader's format."""
    yield [_("hand"), _("opened at"), _("settled at"), _("dealer"), _("bank holder"), _("bank tenure"), _("seats"),
           _("status"), _("bets"), _("stakes €"), _("bank's net €"), _("house commission €"), _("voided at"),
           _("void reason")]
    for hand in hands.iterator(2000):
        settlement = hand.settlement if hand.status == Hand.Status.SETTLED else None
        bets = (hand.settlement or {}).get("bets", [])
        yield [
            hand.number, instant(hand.opened_at, "SHORT_DATETIME_FORMAT"),
            instant(hand.settled_at, "SHORT_DATETIME_FORMAT"),
            hand.dealer.get_username() if hand.dealer_id else _("imported"), hand.bank.code,
            hand.tenure_id, " ".join(hand.seats), hand.get_status_display(), len(bets) if settlement else "",
            number(sum(Decimal(b["stake"]) for b in bets), 2, False) if settlement else "",
            number(settlement["bank"]["net"], 2, False) if settlement else "",
            number(settlement["commission"], 2, False) if settlement else "",
            instant(hand.voided_at, "SHORT_DATETIME_FORMAT"), hand.void_reason or ""]


class _Echo:
    def write(self, value):
        return value


@readers
@require_safe
def hand_list_csv(request, table_id):
    """The hands the list's filters select, oldest first, as CSV in the reader's format
    (es: ``;`` between fields, decimal comma, the casino's times; the first line says
    so, and the file's name names the separator). A voided hand has no result. Streamed:
    any number of hands in constant memory. 400 with the form's errors for bad filters."""
    table = _readable_table(request, table_id)
    form, hands = _filtered_hands(request, table)
    if not form.is_valid():
        return HttpResponse("; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()),
                            status=400, content_type="text/plain; charset=utf-8")
    hands = hands.select_related("bank", "dealer").order_by("number")
    writer, description = csv_writer(_Echo())

    def lines():
        yield writer.writerow([f"# {description}"])
        for row in _hand_csv_rows(hands):
            yield writer.writerow(row)

    name = "-".join(part for part in [
        slugify(table.name) or "table", "hands", *(str(form.cleaned_data[key]) for key in ("date_from", "date_to")
                                                    if form.cleaned_data[key])] if part)
    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{csv_name(name)}"'
    return response


@role_required(PIT_SUPERVISOR, read_roles=(AUDITOR,))
@require_safe
def integrity(request, table_id):
    """The table's keyed chain of entries (HMAC, tables.chain) recomputed, its hands' signed
    openings and its hand numbers checked, and what the apps above register
    (``tables.integrity.table_faults``: its hands replayed, its stored reports' seals): the
    faults ``manage.py ledger_check`` finds at this table; and the ledger's postings'
    signatures (``ledger.signing.signature_faults``: a forged posting names no table); and
    the sections the apps above register (``tables.integrity.register_integrity_section``:
    the latest runs of ``ledger_check``, nightly and weekly)."""
    table = get_object_or_404(Table, pk=table_id)
    return render(request, "tables/hands/integrity.html", {
        "table": table, "faults": table_faults(table), "gaps": number_gaps(table),
        "entries": HandEvent.objects.filter(table=table).count(), "postings": signature_faults(),
        "sections": integrity_sections(table)})


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
            seat, action, detail = describe(entry.event)
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
        "bets": [BetLine(b["player"], seat_words(b["seat"]), b["hand"], Decimal(b["stake"]), _points(b["points"]),
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


def _rules_played(hand):
    """The rules the hand replays under (``played_rules_and_state``): its own, or, for a
    hand its profile's later options would refuse, with their earlier values; its own
    where it does not replay (the checks say why)."""
    try:
        return played_rules_and_state(hand)[0]
    except (IllegalEvent, InvalidRules):
        return hand.rules


def _hand(request, table_id, number):
    table = _readable_table(request, table_id)
    return get_object_or_404(Hand.objects.select_related("table", "bank", "shift__dealer", "dealer", "tenure", "opened_by",
                                                         "voided_by"), table=table, number=number)


@readers
@require_safe
def hand_detail(request, table_id, number):
    """One hand: seats, bank, every entry (who, when, undos and voids with their reason,
    hashes), the settlement, the ledger's posting and its reversal."""
    hand = _hand(request, table_id, number)
    numbers = Hand.objects.filter(table_id=hand.table_id)
    return render(request, "tables/hands/detail.html", {
        "hand": hand, "rules": rules_words(_rules_played(hand)), "entries": entry_lines(hand), "settlement": _settlement(hand), "postings": _postings(hand),
        "can_void": has_role(request.user, PIT_SUPERVISOR) and hand.status != Hand.Status.VOIDED,
        "can_dispute": has_role(request.user, PIT_SUPERVISOR),
        "disputes": hand.disputes.select_related("opened_by").order_by("opened_at", "id"),
        "incidents": hand.incidents.select_related("recorded_by").order_by("recorded_at", "id"),
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
    path("hands/<int:table_id>/hands.csv", hand_list_csv, name="hand_list_csv"),
    path("hands/<int:table_id>/integrity/", integrity, name="hand_integrity"),
    path("hands/<int:table_id>/<int:number>/", hand_detail, name="hand_detail"),
    path("hands/<int:table_id>/<int:number>/record.json", hand_record_download, name="hand_record"),
]
