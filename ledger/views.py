"""The cashier's pages. Thin: a form checks the input, a service posts, a selector reads.
Cashier role only (a superuser has every role)."""

from django.contrib import messages
from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from casino.roles import CASHIER, role_required
from ledger import services
from ledger.errors import AlreadyPosted, LedgerError
from ledger.forms import CashierForm, CashOutForm, PlayerSearchForm
from ledger.models import BankTenure, CashierSlip, Transaction
from ledger.selectors import (
    ZERO,
    player_balance,
    player_statement,
    tenure_closings,
    tenure_statement,
)
from tables.models import Player


def _slip_of_repeat(error):
    """The slip a repeated form already produced, if any."""
    return CashierSlip.objects.filter(transaction_id=error.transaction_id).first()


def _post_slip(request, form, service):
    """Call a cashier service with a valid form; a redirect to the slip, or None with the
    refusal added to the form."""
    try:
        slip = service(player=form.cleaned_data["player"], amount=form.cleaned_data["amount"],
                       posted_by=request.user, idempotency_key=form.idempotency_key)
    except AlreadyPosted as error:
        slip = _slip_of_repeat(error)
        if slip is None:
            form.add_error(None, error)
            return None
        messages.warning(request, _("This form was already sent: here is its slip."))
        return redirect("ledger:slip", number=slip.number)
    except LedgerError as error:
        form.add_error(error.field if error.field in form.fields else None, error)
        return None
    messages.success(request, _("Slip %(number)s posted.") % {"number": f"{slip.number:06d}"})
    return redirect("ledger:slip", number=slip.number)


@role_required(CASHIER)
def buy_in(request):
    """Buy-in: cash in at the cage, chips to the player; one step."""
    form = CashierForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        response = _post_slip(request, form, services.cashier_buy_in)
        if response is not None:
            return response
    return render(request, "ledger/buy_in.html", {"form": form})


@role_required(CASHIER)
def cash_out(request):
    """Cash-out in two steps: the form, then a confirmation showing the balance before
    and after; only the confirmation posts."""
    form = CashOutForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if request.POST.get("confirm") == "yes":
            response = _post_slip(request, form, services.cashier_cash_out)
            if response is not None:
                return response
        else:
            player, amount = form.cleaned_data["player"], form.cleaned_data["amount"]
            balance = player_balance(player=player)
            return render(request, "ledger/cash_out_confirm.html", {
                "form": form, "player": player, "amount": amount, "balance": balance,
                "after": balance - amount})
    return render(request, "ledger/cash_out.html", {"form": form})


@role_required(CASHIER)
def slip(request, number):
    """One cashier slip, printable."""
    cashier_slip = get_object_or_404(CashierSlip.objects.select_related("player", "transaction", "issued_by"),
                                     number=number)
    return render(request, "ledger/slip.html", {"slip": cashier_slip,
                                                "balance": player_balance(player=cashier_slip.player)})


@role_required(CASHIER)
def players(request):
    """Find a player to open his statement."""
    form = PlayerSearchForm(request.GET or None)
    found = Player.objects.none()
    if form.is_valid() and form.cleaned_data["q"]:
        q = form.cleaned_data["q"]
        found = (Player.objects.filter(Q(code__icontains=q) | Q(name__icontains=q))
                 .annotate(balance=Coalesce("account__balance", Value(ZERO)))[:50])
    return render(request, "ledger/players.html", {"form": form, "players": found})


@role_required(CASHIER)
def player_statement_page(request, code):
    """A player's chips statement, newest first, with running balance; ``?page=``."""
    player = get_object_or_404(Player, code=code)
    statement = player_statement(player=player, page=request.GET.get("page", 1))
    return render(request, "ledger/player_statement.html", {"player": player, "statement": statement})


@role_required(CASHIER)
def tenures(request):
    """Bank tenures, open ones first."""
    rows = list(BankTenure.objects.select_related("table", "holder", "account")
                .order_by("closed_at", "-opened_at")[:200])
    closings = tenure_closings(rows)
    for tenure in rows:
        tenure.closing_balance, tenure.result = closings[tenure.pk]
    return render(request, "ledger/tenures.html", {"tenures": rows})


@role_required(CASHIER)
def tenure_statement_page(request, pk):
    """A bank tenure: its syndicate's shares, capital, distribution, and its entries."""
    tenure = get_object_or_404(BankTenure.objects.select_related("table", "holder", "seller", "previous"), pk=pk)
    view = tenure_statement(tenure=tenure, page=request.GET.get("page", 1))
    return render(request, "ledger/tenure_statement.html", {
        "tenure": tenure, "view": view, "statement": view.statement,
        "capital_in": Transaction.objects.filter(tenure=tenure, kind=Transaction.Kind.CAPITAL_IN).first()})
