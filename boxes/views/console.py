"""The dealer's pages at the console for the boxes: a table buy-in (key K: a player's cash
for chips, into the drop box) and a tip (key U: chips or cash into the tips box). The
dealer of the table's open session records them (a pit supervisor may too)."""


from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from boxes import services
from boxes.forms import TableBuyInForm, TableTipForm
from boxes.models import TableBuyIn, TableTip
from casino import formatting
from casino.forms import add_refusal
from casino.roles import DEALER, PIT_SUPERVISOR, has_role, role_required
from ledger.errors import AlreadyPosted
from tables.models import Table

# ---------------------------------------------------------------------------------------
# The console: a table buy-in

def _console_shift(request, table, refusal):
    """The table's open session, if the user is its dealer or a pit supervisor."""
    shift = table.shifts.filter(closed_at__isnull=True).select_related("current_dealer").first()
    if shift is None:
        raise PermissionDenied(_("This table has no open shift: a pit supervisor opens one before its hands are "
                                 "entered."))
    if shift.current_dealer_id != request.user.pk and not has_role(request.user, PIT_SUPERVISOR):
        raise PermissionDenied(refusal % {"dealer": shift.current_dealer.get_username()})
    return shift


@role_required(DEALER, PIT_SUPERVISOR)
def console_buy_in(request, table_id):
    """A table buy-in at the console (key K): player and amount; the chips go to the
    player, the cash into the table's drop box. Then back to the console, announced."""
    table = get_object_or_404(Table, pk=table_id)
    shift = _console_shift(request, table, _("Only %(dealer)s, the dealer of this table's open shift, records its "
                                             "buy-ins."))
    form = TableBuyInForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        player, amount = form.cleaned_data["player"], form.cleaned_data["amount"]
        try:
            services.table_buy_in(shift=shift, player=player, amount=amount, recorded_by=request.user,
                                  idempotency_key=f"table_buy_in:{form.cleaned_data['token']}")
        except AlreadyPosted:
            pass  # the same form sent twice: the first one stands
        except ValidationError as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("Buy-in at the table: %(amount)s in chips to %(player)s, the cash into the "
                                        "drop box.") % {"amount": formatting.money(amount), "player": player.code})
        if form.is_valid():
            return redirect("tables:console", table_id=table.pk)
    recent = TableBuyIn.objects.filter(shift=shift).select_related("player").order_by("-id")[:5]
    return render(request, "boxes/buy_in.html", {"table": table, "shift": shift, "form": form, "recent": recent})


@role_required(DEALER, PIT_SUPERVISOR)
def console_tip(request, table_id):
    """A tip at the console (key U): a player's chips into the tips box (his id), or
    cash a patron put straight into it (no id); the amount. Then back to the console,
    announced."""
    table = get_object_or_404(Table, pk=table_id)
    shift = _console_shift(request, table, _("Only %(dealer)s, the dealer of this table's open shift, records its "
                                             "tips."))
    form = TableTipForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        player, amount = form.cleaned_data["player"], form.cleaned_data["amount"]
        try:
            services.table_tip(shift=shift, player=player, amount=amount, recorded_by=request.user,
                               idempotency_key=f"console_tip:{form.cleaned_data['token']}")
        except AlreadyPosted:
            pass  # the same form sent twice: the first one stands
        except ValidationError as error:
            add_refusal(form, error)
        else:
            if player is None:
                messages.success(request, _("Cash tip of %(amount)s recorded in the tips box.")
                                 % {"amount": formatting.money(amount)})
            else:
                messages.success(request, _("Tip of %(amount)s in chips from %(player)s into the tips box.")
                                 % {"amount": formatting.money(amount), "player": player.code})
        if form.is_valid():
            return redirect("tables:console", table_id=table.pk)
    recent = TableTip.objects.filter(shift=shift).select_related("player").order_by("-id")[:5]
    return render(request, "boxes/tip.html", {"table": table, "shift": shift, "form": form, "recent": recent,
                                              "total": services.session_tips(shift)})
