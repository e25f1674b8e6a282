"""The cage's pages. Thin: a form checks the input, a service posts, a selector reads.
The cashier books; the cage supervisor and the auditor read (``READERS``); a superuser
has every role."""

from datetime import date, datetime, time

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django_countries import countries

from cage import form_tokens
from cage.forms import (
    BankDepositForm,
    CageSearchForm,
    CashierForm,
    CashOutForm,
    PlayerForm,
    PlayerSearchForm,
    SlipVoidForm,
)
from cage.models import CashierSlip
from cage.services import slips
from casino.forms import add_refusal
from casino.roles import AUDITOR, CAGE_SUPERVISOR, CASHIER, has_role, role_required
from ledger.errors import AlreadyPosted, LedgerError
from ledger.models import Transaction
from ledger.selectors import ZERO, player_balance, player_statement
from patrons.errors import AdmissionRefused
from patrons.models import Player, PlayerChange
from patrons.services import IDENTITY_FIELDS, player_register, player_update
from tables.bank.statements import tenure_closings, tenure_statement
from tables.models import BankTenure

#: Who reads the cage's pages without booking: the cage supervisor and the auditor (who
#: reads every statement on the web as through the API).
READERS = (CAGE_SUPERVISOR, AUDITOR)


def _slip_booked_with(key):
    """The slip a form's key already booked, if any."""
    return CashierSlip.objects.filter(transaction__idempotency_key=key).first()


def _show_booked(request, slip):
    messages.warning(request, _("This form's slip is already booked: slip %(number)s. No other slip was "
                                "booked.") % {"number": f"{slip.number:06d}"})
    return redirect("cage:slip", number=slip.number)


def _post_slip(request, form, service, key):
    """Call a cashier service with a valid form; a redirect to the slip, or None with the
    refusal added to the form."""
    try:
        slip = service(player=form.cleaned_data["player"], amount=form.cleaned_data["amount"],
                       posted_by=request.user, idempotency_key=key)
    except AlreadyPosted as error:
        slip = _slip_booked_with(key) or CashierSlip.objects.filter(transaction_id=error.transaction_id).first()
        if slip is None:
            form.add_error(None, error)
            return None
        return _show_booked(request, slip)
    except (LedgerError, AdmissionRefused) as error:
        form.add_error(error.field if error.field in form.fields else None, error)
        return None
    messages.success(request, _("Slip %(number)s posted.") % {"number": f"{slip.number:06d}"})
    return redirect("cage:slip", number=slip.number)


def _draw(request, kind, name):
    """A fresh slip form: a redirect to the address of its own token (the query, e.g.
    ``?player=luis``, kept)."""
    url = reverse(name, args=[form_tokens.draw_token(kind=kind, user=request.user)])
    query = request.GET.urlencode()
    return redirect(f"{url}?{query}" if query else url)


def _form_key(request, token, kind, name):
    """``(idempotency key, None)`` for a token drawn for this kind and cashier, else
    ``(None, response)``: a response showing the slip it booked, or a fresh form."""
    form_id = form_tokens.form_id(token=token, kind=kind, user=request.user)
    if form_id is None:
        messages.warning(request, _("That form was drawn for another cashier or another kind of slip: "
                                    "here is a new one."))
        return None, redirect(name)
    key = form_tokens.idempotency_key(form_id)
    booked = _slip_booked_with(key)
    if booked is not None:
        return None, _show_booked(request, booked)
    return key, None


def _initial(request):
    return {"player": request.GET.get("player", "")[:64]}


@never_cache
@role_required(CASHIER)
@require_GET
def buy_in(request):
    """Draw a buy-in form: a redirect to its own address (``cage.form_tokens``)."""
    return _draw(request, CashierSlip.Kind.BUY_IN, "cage:buy_in_form")


@never_cache
@role_required(CASHIER)
def buy_in_form(request, token):
    """Buy-in: cash in at the cage, chips to the player; one step. A form books one slip:
    sent again (Back, a resend, a double tap, a second tab), it shows the slip booked."""
    key, response = _form_key(request, token, CashierSlip.Kind.BUY_IN, "cage:buy_in")
    if response is not None:
        return response
    form = CashierForm(request.POST or None, initial=_initial(request))
    if request.method == "POST" and form.is_valid():
        response = _post_slip(request, form, slips.cashier_buy_in, key)
        if response is not None:
            return response
    return render(request, "cage/buy_in.html", {"form": form})


@never_cache
@role_required(CASHIER)
@require_GET
def cash_out(request):
    """Draw a cash-out form: a redirect to its own address."""
    return _draw(request, CashierSlip.Kind.CASH_OUT, "cage:cash_out_form")


@never_cache
@role_required(CASHIER)
def cash_out_form(request, token):
    """Cash-out in two steps: the form, then a confirmation showing the balance before
    and after; only the confirmation posts, once per form."""
    key, response = _form_key(request, token, CashierSlip.Kind.CASH_OUT, "cage:cash_out")
    if response is not None:
        return response
    form = CashOutForm(request.POST or None, initial=_initial(request))
    if request.method == "POST" and form.is_valid():
        if request.POST.get("confirm") == "yes":
            response = _post_slip(request, form, slips.cashier_cash_out, key)
            if response is not None:
                return response
        else:
            player, amount = form.cleaned_data["player"], form.cleaned_data["amount"]
            balance = player_balance(player=player)
            return render(request, "cage/cash_out_confirm.html", {
                "form": form, "player": player, "amount": amount, "balance": balance,
                "after": balance - amount})
    return render(request, "cage/cash_out.html", {"form": form})


@never_cache
@role_required(CASHIER)
@require_GET
def bank_deposit(request):
    """Draw a bank deposit form: a redirect to its own address (``cage.form_tokens``);
    ``?tenure=ID&player=code&amount=X`` preselect it."""
    return _draw(request, CashierSlip.Kind.BANK_DEPOSIT, "cage:bank_deposit_form")


def _awaiting_banks():
    """The open banks awaiting their deposits (their capital, or a rebuild the pit
    ordered), each with the members who still owe
    (``[(BankTenure, [deposits_owed rows owing])]``), by table."""
    return [(tenure, [row for row in members if row["owing"] > 0])
            for tenure, members in slips.banks_awaiting_deposits()]


@never_cache
@role_required(CASHIER)
def bank_deposit_form(request, token):
    """A bank deposit: a syndicate member's cash for his share of a bank's capital, into
    the bank (a numbered slip; cash in at the drawer, as a buy-in). The banks awaiting
    their deposits are listed with who owes what."""
    key, response = _form_key(request, token, CashierSlip.Kind.BANK_DEPOSIT, "cage:bank_deposit")
    if response is not None:
        return response
    initial = {**_initial(request), "tenure": request.GET.get("tenure", "")[:12],
               "amount": request.GET.get("amount", "")[:16]}
    form = BankDepositForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        tenure = form.cleaned_data["tenure"]

        def deposit(**kwargs):
            return slips.cashier_bank_deposit(tenure=tenure, **kwargs)

        response = _post_slip(request, form, deposit, key)
        if response is not None:
            return response
    return render(request, "cage/bank_deposit.html", {"form": form, "awaiting": _awaiting_banks()})


@role_required(CASHIER, read_roles=READERS)
def slip(request, number):
    """One cashier slip as the cage prints it: ``?layout=receipt`` (an 80 mm printer, the
    default) or ``?layout=a4``; the balance after it as it was at issue; VOID and its
    reversal once voided."""
    cashier_slip = get_object_or_404(
        CashierSlip.objects.select_related("player", "transaction", "issued_by", "void__voided_by", "tenure__table",
                                           "tenure__holder"), number=number)
    void = getattr(cashier_slip, "void", None)
    return render(request, "cage/slip.html", {
        "slip": cashier_slip, "void": void, "layout": "a4" if request.GET.get("layout") == "a4" else "receipt",
        "house": settings.CAGE_HOUSE_NAME, "is_cashier": has_role(request.user, CASHIER),
        "can_void": void is None and has_role(request.user, CAGE_SUPERVISOR)
        and cashier_slip.issued_by_id != request.user.pk})


@role_required(CASHIER, read_roles=READERS)
def players(request):
    """Find a player to open his statement."""
    form = PlayerSearchForm(request.GET or None)
    found = Player.objects.none()
    if form.is_valid() and form.cleaned_data["q"].strip():
        found = find_players(form.cleaned_data["q"])
    return render(request, "cage/players.html", {"form": form, "players": found})


@role_required(CASHIER, read_roles=READERS)
def player_statement_page(request, code):
    """A player's chips statement, newest first, with running balance; ``?page=``."""
    player = get_object_or_404(Player, code=code)
    statement = player_statement(player=player, page=request.GET.get("page", 1))
    return render(request, "cage/player_statement.html", {"player": player, "statement": statement})


@role_required(CASHIER, read_roles=READERS)
def tenures(request):
    """Bank tenures, open ones first."""
    rows = list(BankTenure.objects.select_related("table", "holder", "account")
                .order_by("closed_at", "-opened_at")[:200])
    closings = tenure_closings(rows)
    for tenure in rows:
        tenure.closing_balance, tenure.result = closings[tenure.pk]
    return render(request, "cage/tenures.html", {"tenures": rows})


@role_required(CASHIER, read_roles=READERS)
def tenure_statement_page(request, pk):
    """A bank tenure: its syndicate's shares, capital, distribution, and its entries."""
    tenure = get_object_or_404(BankTenure.objects.select_related("table", "holder", "seller", "previous"), pk=pk)
    view = tenure_statement(tenure=tenure, page=request.GET.get("page", 1))
    return render(request, "cage/tenure_statement.html", {
        "tenure": tenure, "view": view, "statement": view.statement,
        "capital_in": Transaction.objects.filter(entries__account_id=tenure.account_id,
                                                 kind=Transaction.Kind.CAPITAL_IN).first()})


def find_players(q, *, limit=50):
    """Players whose name or player id contains ``q``, or whose document or card number
    is ``q`` (spaces and case ignored), with their ``balance``; by player id."""
    q = q.strip()
    number = "".join(q.split()).upper()
    found = Player.objects.filter(Q(code__icontains=q) | Q(name__icontains=q) | Q(document_number=number)
                                  | Q(card_number=number))
    return found.annotate(balance=Coalesce("account__balance", Value(ZERO))).order_by("code")[:limit]


def open_drawer(request):
    """The cashier's open drawer for the cage's home, or None. (The drawer's own code
    replaces this hook: ``templates/cage/_home_drawer.html`` shows what it returns.)"""
    return None


def days_slips(*, day=None):
    """The slips issued on ``day`` (a date in the casino's time zone; today by default),
    newest first, with their player, cashier and void."""
    day = day or timezone.localdate()
    start = timezone.make_aware(datetime.combine(day, time.min))
    end = timezone.make_aware(datetime.combine(day, time.max))
    return (CashierSlip.objects.filter(issued_at__range=(start, end))
            .select_related("player", "issued_by", "void").order_by("-number"))


@role_required(CASHIER, read_roles=READERS)
def home(request):
    """The cage's home: find a player (name, player id, document or card number) and
    act for him; register one; the day's slips; the open drawer."""
    form = CageSearchForm(request.GET or None)
    found = None
    if form.is_valid() and form.cleaned_data["q"].strip():
        found = find_players(form.cleaned_data["q"])
    slips = days_slips()
    return render(request, "cage/home.html", {
        "form": form, "players": found, "slips": slips, "today": timezone.localdate(),
        "drawer": open_drawer(request), "is_cashier": has_role(request.user, CASHIER)})


def _identity(form):
    return {name: form.cleaned_data[name] for name in IDENTITY_FIELDS if name in form.cleaned_data}


@never_cache
@role_required(CASHIER)
def player_register_page(request):
    """Register a player: his player id, name and identity."""
    form = PlayerForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            player = player_register(code=form.cleaned_data["code"], by=request.user, **_identity(form))
        except ValidationError as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("%(player)s is registered.") % {"player": player.code})
            return redirect("cage:player", code=player.code)
    return render(request, "cage/player_form.html", {"form": form, "player": None, "is_cashier": True})


@never_cache
@role_required(CASHIER, read_roles=READERS)
def player_page(request, code):
    """A player's record: his identity, its changes (who, when, what), and a form to
    change it (the cashier)."""
    player = get_object_or_404(Player, code=code)
    form = PlayerForm(request.POST or None, instance=Player.objects.get(pk=player.pk))
    if request.method == "POST" and form.is_valid():
        try:
            change = player_update(player=player, by=request.user, **_identity(form))
        except ValidationError as error:
            add_refusal(form, error)
        else:
            if change is None:
                messages.info(request, _("Nothing was changed."))
            else:
                messages.success(request, _("The record of %(player)s is changed.") % {"player": player.code})
            return redirect("cage:player", code=player.code)
    changes = PlayerChange.objects.filter(player=player).select_related("changed_by")
    labels = {name: Player._meta.get_field(name).verbose_name for name in ("code", *IDENTITY_FIELDS)}
    history = [{"change": change, "fields": [(labels.get(name, name), _recorded(name, before), _recorded(name, after))
                                             for name, (before, after) in change.changes.items()]}
               for change in changes]
    return render(request, "cage/player_form.html", {
        "form": form, "player": player, "history": history, "balance": player_balance(player=player),
        "is_cashier": has_role(request.user, CASHIER)})


def _recorded(name: str, value: str) -> str:
    """A value of a record's change (``PlayerChange.changes``: text) as the reader reads it:
    a document type's and a country's name, a date in his format; the rest as recorded."""
    if not value:
        return value
    if name == "document_type":
        return str(dict(Player.DocumentType.choices).get(value, value))
    if name == "nationality":
        return countries.name(value) or value
    if name == "date_of_birth":
        try:
            return date_format(date.fromisoformat(value), "SHORT_DATE_FORMAT")
        except ValueError:
            return value
    return value


@never_cache
@role_required(CAGE_SUPERVISOR)
def slip_void(request, number):
    """A cage supervisor voids a slip he did not issue, with a reason: the slip's posting
    is reversed (``slips.cashier_slip_void``); asked for confirmation first."""
    cashier_slip = get_object_or_404(CashierSlip.objects.select_related("player", "issued_by"), number=number)
    if hasattr(cashier_slip, "void"):
        messages.warning(request, _("Slip %(number)s is already void.") % {"number": str(cashier_slip)})
        return redirect("cage:slip", number=number)
    form = SlipVoidForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            slips.cashier_slip_void(slip=cashier_slip, reason=form.cleaned_data["reason"],
                                       voided_by=request.user)
        except LedgerError as error:
            form.add_error(error.field if error.field in form.fields else None, error)
        else:
            messages.success(request, _("Slip %(number)s is void: its posting is reversed.")
                             % {"number": str(cashier_slip)})
            return redirect("cage:slip", number=number)
    return render(request, "cage/slip_void.html", {
        "slip": cashier_slip, "form": form, "own": cashier_slip.issued_by_id == request.user.pk})
