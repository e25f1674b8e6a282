"""The pit's pages for the bank's life, under /tables/pit/tables/<table>/bank/: the
auction (bids, award with a draw of lots on a tie), a withdrawal by the banker (never the
stakes in play), a rebuild of a wiped-out bank, the bank given up. Each change is
confirmed on a second page first; only the confirmation posts (the bids excepted: one
line each, kept on record). Pit supervisors change; auditors read."""

from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _

from casino import formatting
from casino.forms import add_refusal
from ledger.money import euros
from tables import services
from tables.bank.deposits import awaiting_deposit
from tables.bank.life import (
    auction_award,
    auction_bid,
    auction_open,
    auction_standing,
    bank_floor,
    refuse_healthy_bank,
)
from tables.forms.bank import AuctionOpenForm, BankAmountForm, BidForm
from tables.models import BankAuction, BankTenure, Hand, Table
from tables.views.pit import can_change, pit_page


def _tenure(table):
    return (BankTenure.objects.select_related("holder", "account").filter(table=table, closed_at__isnull=True)
            .first())


def _in_play(table):
    hand = table.hands.filter(status=Hand.Status.OPEN).first()
    return euros(services.stakes(services.hand_state(hand))) if hand is not None else Decimal("0.00")


@pit_page
def auction(request, table_id):
    """The bank's auction at a table without a bank: open it (for how many sessions),
    record the bids, award it (confirmed; a tie is drawn by lot and the draw recorded)."""
    table = get_object_or_404(Table, pk=table_id)
    current = BankAuction.objects.filter(table=table, awarded_at__isnull=True).first()
    last = BankAuction.objects.filter(table=table, awarded_at__isnull=False).select_related("winner").first()
    open_form = AuctionOpenForm(request.POST if "open" in request.POST else None)
    bid_form = BidForm(request.POST if "bid" in request.POST else None)
    confirming = False
    if request.method == "POST":
        if not can_change(request):
            raise PermissionDenied
        try:
            if "open" in request.POST and current is None and open_form.is_valid():
                auction_open(table=table, sessions=open_form.cleaned_data["sessions"], opened_by=request.user)
                return redirect("tables:bank_auction", table_id=table.pk)
            if "bid" in request.POST and current is not None and bid_form.is_valid():
                auction_bid(auction=current, player=bid_form.cleaned_data["player"],
                            amount=bid_form.cleaned_data["amount"], recorded_by=request.user)
                messages.success(request, _("Bid of %(player)s recorded: %(amount)s.")
                                 % {"player": bid_form.cleaned_data["player"].code,
                                    "amount": formatting.money(bid_form.cleaned_data["amount"])})
                return redirect("tables:bank_auction", table_id=table.pk)
            if "award" in request.POST and current is not None:
                if request.POST.get("confirm") != "yes":
                    confirming = True
                else:
                    done = auction_award(auction=current, awarded_by=request.user)
                    if done.draw:
                        messages.success(request, _("The bids tied between %(tied)s: the draw of lots gave the bank "
                                                    "to %(player)s, with %(amount)s.")
                                         % {"tied": ", ".join(done.draw["tied"]), "player": done.winner.code,
                                            "amount": formatting.money(done.amount)})
                    else:
                        messages.success(request, _("The bank goes to %(player)s, the highest bid: %(amount)s.")
                                         % {"player": done.winner.code, "amount": formatting.money(done.amount)})
                    messages.info(request, _("Its capital is deposited at the cage before its first hand: the "
                                             "console opens no hand until then."))
                    return redirect("tables:pit_table", table_id=table.pk)
        except ValidationError as error:
            add_refusal(bid_form if "bid" in request.POST else open_form, error)
            if "award" in request.POST:
                messages.error(request, str(error))
    bids = list(current.bids.select_related("player", "recorded_by").order_by("-amount", "id")) if current else []
    top, tied = auction_standing(current) if current else (None, [])
    return render(request, "tables/pit/auction.html", {
        "table": table, "auction": current, "last": last, "tenure": _tenure(table), "bids": bids, "top": top,
        "tied": [p.code for p in tied], "open_form": open_form, "bid_form": bid_form, "confirming": confirming,
        "can_change": can_change(request)})


def _healthy_bank(tenure):
    """The refusal of a rebuild on ``tenure`` (not a limited bank wiped out), or None."""
    try:
        refuse_healthy_bank(tenure, tenure.account.balance)
    except ValidationError as error:
        return error
    return None


def _money_change(request, table_id, kind):
    table = get_object_or_404(Table, pk=table_id)
    tenure = _tenure(table)
    if tenure is None:
        messages.error(request, _("%(table)s has no bank.") % {"table": table.name})
        return redirect("tables:pit_table", table_id=table.pk)
    tenure.table = table
    form = BankAmountForm(request.POST or None)
    in_play = _in_play(table)
    context = {"table": table, "tenure": tenure, "kind": kind, "form": form, "in_play": in_play,
               "free": max(tenure.account.balance - in_play, Decimal("0.00")),
               "least": max(bank_floor(tenure) - tenure.account.balance, Decimal("0.01")),
               "floor": bank_floor(tenure), "can_change": can_change(request), "confirming": False,
               "owing": awaiting_deposit(tenure) if kind == "rebuild" else []}
    if request.method == "POST" and form.is_valid():
        if not can_change(request):
            raise PermissionDenied
        healthy = _healthy_bank(tenure) if kind == "rebuild" else None
        if healthy is not None:  # refused before its confirmation too: only a wiped-out bank is rebuilt
            add_refusal(form, healthy)
        elif request.POST.get("confirm") != "yes":
            context["confirming"] = True
        else:
            amount = form.cleaned_data["amount"]
            try:
                if kind == "withdraw":
                    services.table_bank_withdraw(table=table, amount=amount, by=request.user)
                else:
                    services.table_bank_rebuild(table=table, amount=amount, by=request.user)
            except ValidationError as error:
                add_refusal(form, error)
            else:
                messages.success(request, (_("%(player)s withdrew %(amount)s from the bank; the console announces it.")
                                           if kind == "withdraw" else
                                           _("The rebuild of the bank of %(player)s with %(amount)s is ordered: its syndicate deposits it "
                                             "at the cage, each member his share, before the next hand."))
                                 % {"player": tenure.holder.code, "amount": formatting.money(amount)})
                return redirect("tables:pit_table", table_id=table.pk)
    return render(request, "tables/pit/bank_money.html", context)


@pit_page
def bank_withdraw(request, table_id):
    """The banker withdraws part of the bank: at most its balance less the stakes in play."""
    return _money_change(request, table_id, "withdraw")


@pit_page
def bank_rebuild(request, table_id):
    """A wiped-out bank ordered rebuilt to at least its first amount, between hands; its
    syndicate deposits the rebuild at the cage (``table_bank_rebuild``)."""
    return _money_change(request, table_id, "rebuild")


@pit_page
def bank_give_up(request, table_id):
    """The banker gives the bank up (confirmed): it closes, its balance back to its
    syndicate; the table has no bank until it is drawn for or auctioned. While the service
    would refuse it (a hand open: ``services.check_bank_change``), the page says why and
    offers no confirmation."""
    table = get_object_or_404(Table, pk=table_id)
    tenure = _tenure(table)
    error = None
    if request.method == "POST" and request.POST.get("confirm") == "yes" and tenure is not None:
        if not can_change(request):
            raise PermissionDenied
        try:
            services.table_bank_give_up(table=table, by=request.user)
        except ValidationError as refusal:
            error = refusal
        else:
            messages.success(request, _("%(player)s gave the bank up.") % {"player": tenure.holder.code})
            return redirect("tables:pit_table", table_id=table.pk)
    elif tenure is not None:
        try:
            services.check_bank_change(table=table, kind="give_up")
        except ValidationError as refusal:
            error = refusal
    return render(request, "tables/pit/bank_give_up.html", {"table": table, "tenure": tenure, "error": error,
                                                             "can_change": can_change(request)})


urlpatterns = [
    path("pit/tables/<int:table_id>/bank/auction/", auction, name="bank_auction"),
    path("pit/tables/<int:table_id>/bank/withdraw/", bank_withdraw, name="bank_withdraw"),
    path("pit/tables/<int:table_id>/bank/rebuild/", bank_rebuild, name="bank_rebuild"),
    path("pit/tables/<int:table_id>/bank/give-up/", bank_give_up, name="bank_give_up"),
]
