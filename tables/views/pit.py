"""The pit supervisor's pages, under /tables/pit/: shifts, the bank between hands, voids,
chip transfers between players.

Thin: a form checks what was typed, a service of ``tables.services`` writes (and refuses
with a message naming the field), a redirect shows the result. Every change that cannot
be taken back by the same page (closing a shift, a bank change, a void) is confirmed on a
second page first; only the confirmation posts.

Roles: the pit supervisor changes; an auditor reads every page (GET) and posts nothing
(403); anyone else gets 403. The 7½ takeover of the bank is not here: ``hand_open`` does
it by itself.
"""

from dataclasses import dataclass
from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _

from casino import formatting
from casino.forms import add_refusal
from casino.roles import AUDITOR, PIT_SUPERVISOR, has_role, role_required
from ledger.chips import chips_transfer
from ledger.errors import AlreadyPosted
from ledger.money import cents, euros
from ledger.selectors import player_balance
from ledger.shares import HUNDRED, split_by_shares
from tables import services
from tables.bank.deposits import awaiting_deposit
from tables.bank.life import auction_sessions_played, bank_floor, bank_wiped_out
from tables.forms.pit import (
    BankDrawForm,
    BankSellForm,
    BankTransferForm,
    ChipTransferForm,
    DealerReliefForm,
    HandVoidForm,
    RotationPlanForm,
    ShiftOpenForm,
)
from tables.models import BankTenure, Hand, Pit, RotationPlan, Shift, Table
from tables.rotation import (
    free_dealers,
    pit_rotations,
    rotation_minutes,
    rotation_overview,
    rotation_plan,
)
from tables.rules_words import rules_words

PER_PAGE = 25

pit_page = role_required(PIT_SUPERVISOR, read_roles=(AUDITOR,))


def can_change(request):
    return has_role(request.user, PIT_SUPERVISOR)


def _page(request, queryset, param="page", per_page=PER_PAGE):
    """One page of ``queryset`` from the query parameter ``param`` (a bad value: page 1)."""
    return Paginator(queryset, per_page).get_page(request.GET.get(param))


def _open_tenure(table):
    return (BankTenure.objects.select_related("holder", "account").filter(table=table, closed_at__isnull=True)
            .first())


def _open_hand(table):
    return table.hands.filter(status=Hand.Status.OPEN).first()


# ---------------------------------------------------------------------------------------
# Overview and one table


@dataclass
class TableRow:
    """A table as the pit sees it: its open shift, bank, open hand, and who banks next."""

    table: Table
    shift: Shift | None
    tenure: BankTenure | None
    balance: Decimal | None
    open_hand: Hand | None
    next_holder: object
    dealing: object = None


@pit_page
def pit(request):
    """Every table: its shift, its bank (and a 7½ takeover due), its open hand."""
    tables = list(Table.objects.order_by("name"))
    shifts = {s.table_id: s for s in Shift.objects.filter(closed_at__isnull=True).select_related("dealer", "current_dealer")}
    tenures = {t.table_id: t for t in BankTenure.objects.filter(closed_at__isnull=True).select_related("holder")}
    balances = dict(BankTenure.objects.filter(pk__in=[t.pk for t in tenures.values()])
                    .values_list("id", "account__balance"))
    open_hands = {h.table_id: h for h in Hand.objects.filter(status=Hand.Status.OPEN)}
    pits, plan = rotation_overview(shifts.values())
    rows = []
    for table in tables:
        tenure = tenures.get(table.pk)
        rows.append(TableRow(table, shifts.get(table.pk), tenure, balances.get(tenure.pk) if tenure else None,
                             open_hands.get(table.pk),
                             services.pending_bank_holder(table) if tenure else None, plan.get(table.pk)))
    return render(request, "tables/pit/index.html", {"rows": rows, "can_change": can_change(request),
                                                     "rotation": rotation_minutes(), "pits": pits})


@pit_page
def pit_table(request, table_id):
    """One table for the pit: shift, bank (syndicate, balance, takeover due), the bank's
    and the shifts' history (paginated: ``?shifts=``, ``?tenures=``)."""
    table = get_object_or_404(Table, pk=table_id)
    tenure = _open_tenure(table)
    shifts = (table.shifts.select_related("dealer", "current_dealer", "opened_by", "closed_by").annotate(hand_count=Count("hands"))
              .order_by("-opened_at", "-id"))
    tenures = BankTenure.objects.filter(table=table).select_related("holder", "seller").order_by("-opened_at", "-id")
    wiped_out = bool(tenure) and bank_wiped_out(tenure, tenure.account.balance)
    owing = awaiting_deposit(tenure) if tenure else []
    shift = table.shifts.filter(closed_at__isnull=True).select_related("dealer", "current_dealer", "opened_by").first()
    return render(request, "tables/pit/table.html", {
        "table": table, "rules": rules_words(table.rules), "tenure": tenure, "open_hand": _open_hand(table),
        "shift": shift, "dealing": rotation_plan([shift]).get(table.pk) if shift else None,
        "reliefs": list(shift.reliefs.select_related("relieved", "relieving", "relieved_by")) if shift else [],
        "relief_form": DealerReliefForm() if shift else None,
        "shares": list(tenure.shares.select_related("player")) if tenure else [],
        "next_holder": services.pending_bank_holder(table) if tenure else None,
        "wiped_out": wiped_out, "floor": bank_floor(tenure) if tenure else None,
        "award": auction_sessions_played(tenure) if tenure and tenure.began == "auction" else None,
        # The rebuild is offered only where its form would take it: a limited bank wiped
        # out (``refuse_healthy_bank``'s rule) with no capital or rebuild still awaiting deposits.
        "owing": owing, "can_rebuild": wiped_out and not owing,
        "shifts": _page(request, shifts, "shifts"), "tenures": _page(request, tenures, "tenures", 10),
        "can_change": can_change(request)})


# ---------------------------------------------------------------------------------------
# Shifts


@pit_page
def shift_open(request):
    """Open a dealer's shift at a table without one (``?table=ID`` preselects it)."""
    form = ShiftOpenForm(request.POST or None, initial={"table": request.GET.get("table")})
    if request.method == "POST" and form.is_valid():
        try:
            shift = services.shift_open(table=form.cleaned_data["table"], dealer=form.cleaned_data["dealer"],
                                        opened_by=request.user)
        except ValidationError as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("Shift of %(dealer)s opened at %(table)s.")
                             % {"dealer": shift.dealer.get_username(), "table": shift.table.name})
            return redirect("tables:pit_table", table_id=shift.table_id)
    return render(request, "tables/pit/shift_open.html", {"form": form, "can_change": can_change(request)})


@pit_page
def shift_close(request, shift_id):
    """Close a shift: this page is the confirmation; only its POST (``confirm=yes``) closes.
    Refused while a hand is open at the table."""
    shift = get_object_or_404(Shift.objects.select_related("table", "dealer", "opened_by"), pk=shift_id)
    error = None
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            services.shift_close(shift=shift, closed_by=request.user)
        except ValidationError as refusal:
            error = refusal
        else:
            messages.success(request, _("Shift of %(dealer)s at %(table)s closed.")
                             % {"dealer": shift.dealer.get_username(), "table": shift.table.name})
            return redirect("tables:pit_table", table_id=shift.table_id)
    return render(request, "tables/pit/shift_close.html", {
        "shift": shift, "error": error, "open_hand": _open_hand(shift.table),
        "hand_count": shift.hands.count(), "can_change": can_change(request)})


@pit_page
def dealer_relieve(request, shift_id):
    """Relieve the dealer of an open shift: the table's page posts the relieving dealer
    here, this page confirms; only its POST with ``confirm=yes`` relieves (between hands)."""
    shift = get_object_or_404(Shift.objects.select_related("table", "dealer", "current_dealer"), pk=shift_id)
    form = DealerReliefForm(request.POST or request.GET or None)
    error = None
    if form.is_bound and form.is_valid() and request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            relief = services.dealer_relieve(shift=shift, dealer=form.cleaned_data["dealer"], relieved_by=request.user)
        except ValidationError as refusal:
            error = refusal
        else:
            messages.success(request, _("%(relieving)s relieved %(relieved)s at %(table)s.")
                             % {"relieving": relief.relieving.get_username(),
                                "relieved": relief.relieved.get_username(), "table": shift.table.name})
            return redirect("tables:pit_table", table_id=shift.table_id)
    return render(request, "tables/pit/dealer_relieve.html", {
        "shift": shift, "form": form, "error": error, "open_hand": _open_hand(shift.table),
        "suggested": (free_dealers() or [None])[0], "can_change": can_change(request)})


# ---------------------------------------------------------------------------------------
# The pits' rotation plans


@pit_page
def rotation(request):
    """The pits' rotation plans in force, who is due and who relieves him, and every
    version each pit's plan has had (who set it, when)."""
    shifts = Shift.objects.filter(closed_at__isnull=True).select_related("current_dealer")
    history = (RotationPlan.objects.select_related("pit", "set_by").prefetch_related("tables", "slots__dealer")
               .order_by("pit__name", "-version"))
    return render(request, "tables/pit/rotation.html", {
        "pits": pit_rotations(shifts), "history": history, "default_minutes": rotation_minutes(),
        "can_change": can_change(request)})


@pit_page
def rotation_set(request, pit_id=None):
    """Set a pit's rotation plan (a new version; ``pit_id`` None: a new pit and its first
    plan). GET: the form, filled with the plan in force; POST (pit supervisor): written by
    ``services.rotation_plan_set``, or the form again with the refusal on its field."""
    pit = get_object_or_404(Pit, pk=pit_id) if pit_id is not None else None
    current = pit.plans.order_by("-version").prefetch_related("tables", "slots__dealer").first() if pit else None
    if request.method == "POST":
        form = RotationPlanForm(request.POST, new_pit=pit is None)
        if form.is_valid():
            data = form.cleaned_data
            try:
                plan = services.rotation_plan_set(
                    pit=pit, name=data.get("name", ""), minutes=data["minutes"], tables=list(data["tables"]),
                    dealers=data["dealers"], set_by=request.user, note=data["note"])
            except ValidationError as refusal:
                add_refusal(form, refusal)
            else:
                messages.success(request, _("The rotation plan of %(pit)s is now version %(version)s.")
                                 % {"pit": plan.pit.name, "version": plan.version})
                return redirect("tables:rotation")
    else:
        initial = {"minutes": rotation_minutes()}
        if current is not None:
            initial = {"minutes": current.minutes, "tables": list(current.tables.all()),
                       "dealers": ", ".join(slot.dealer.get_username() for slot in current.slots.all())}
        form = RotationPlanForm(initial=initial, new_pit=pit is None)
    return render(request, "tables/pit/rotation_form.html", {"pit": pit, "current": current, "form": form,
                                                             "can_change": can_change(request)})


# ---------------------------------------------------------------------------------------
# The bank between hands


@dataclass
class MemberLine:
    """What one player pays into a bank change: his share of the capital (and the price
    for a buyer), his chips now and after (``Decimal`` euros). ``at_cage``: his share of
    the capital is deposited at the cage (a draw, a sale), not taken from his chips."""

    player: object
    percent: Decimal | None
    capital: Decimal
    price: Decimal
    chips: Decimal
    at_cage: bool = False

    @property
    def after(self):
        return self.chips - (Decimal("0.00") if self.at_cage else self.capital) - self.price


@dataclass
class BankChange:
    """One kind of bank change: its form, its service, its words."""

    kind: str
    form_class: type
    title: str
    needs_tenure: bool

    def call(self, *, table, cleaned, by):
        """Run the change's service with the form's cleaned data; returns the new tenure."""
        if self.kind == "draw":
            return services.table_bank_draw(table=table, holder=cleaned["holder"], capital=cleaned["capital"],
                                            shares=cleaned["shares"], by=by)
        if self.kind == "sell":
            return services.table_bank_sell(table=table, buyer=cleaned["buyer"], price=cleaned["price"],
                                            capital=cleaned["capital"], shares=cleaned["shares"], by=by)
        return services.table_bank_transfer(table=table, holder=cleaned["holder"], capital=cleaned["capital"],
                                            shares=cleaned["shares"], by=by)


def _bank_changes():
    return {
        "draw": BankChange("draw", BankDrawForm, _("Draw for the bank"), needs_tenure=False),
        "sell": BankChange("sell", BankSellForm, _("Sell the bank"), needs_tenure=True),
        "transfer": BankChange("transfer", BankTransferForm, _("Transfer the bank"), needs_tenure=True),
    }


def _members(cleaned, at_cage=False):
    """The players paying into the change, syndicate order, with their part and chips
    (``at_cage``: the capital is deposited at the cage)."""
    holder = cleaned.get("holder") or cleaned.get("buyer")
    shares = cleaned["shares"] or [(holder, HUNDRED)]
    parts = split_by_shares(cents(cleaned["capital"]), [percent for _player, percent in shares])
    price = cleaned.get("price") or Decimal("0.00")
    lines = [MemberLine(player, percent, euros(part), price if player.pk == holder.pk else Decimal("0.00"),
                        player_balance(player=player), at_cage)
             for (player, percent), part in zip(shares, parts, strict=True)]
    if price and all(line.player.pk != holder.pk for line in lines):
        lines.append(MemberLine(holder, None, Decimal("0.00"), price, player_balance(player=holder)))
    return lines


def _handback(tenure, price):
    """What the open tenure gives back to its syndicate when it closes now (plus a sale's
    price): ``[(SyndicateShare, Decimal euros)]``, and the balance."""
    balance = tenure.account.balance
    shares = list(tenure.shares.select_related("player").order_by("id"))
    parts = split_by_shares(cents(balance + price), [share.percent for share in shares])
    return [(share, euros(part)) for share, part in zip(shares, parts, strict=True)], balance


def _blocked(change, table, tenure):
    """Why this change cannot be made now, in words, or None."""
    hand = _open_hand(table)
    if hand is not None:
        return _("Hand #%(number)s is open: the bank changes between hands.") % {"number": hand.number}
    if change.needs_tenure and tenure is None:
        return _("%(table)s has no bank yet: draw for it first.") % {"table": table.name}
    if not change.needs_tenure and tenure is not None:
        return _("%(table)s already has a bank (%(holder)s): sell or transfer it.") % {
            "table": table.name, "holder": tenure.holder.code}
    return None


def _refused_before_confirmation(form, change, table):
    """Whether the service refuses the change whatever its amounts (a hand open, no bank,
    the bank passed to its holder: ``services.check_bank_change``), its refusal put on
    ``form``: asked before the confirmation page, so that none is shown for a change
    certain to be refused."""
    holder = form.cleaned_data.get("holder") or form.cleaned_data.get("buyer")
    try:
        services.check_bank_change(table=table, kind=change.kind, holder=holder)
    except ValidationError as error:
        add_refusal(form, error, change.form_class.service_fields)
        return True
    return False


def _bank_change(request, table_id, kind):
    """The form, then its confirmation, then the service (see ``BankChange``). A change
    the service refuses whatever its amounts is refused on the form's first post
    (``_refused_before_confirmation``), with what was typed kept."""
    change = _bank_changes()[kind]
    table = get_object_or_404(Table, pk=table_id)
    tenure = _open_tenure(table)
    form = change.form_class(request.POST or None)
    # Once posted, what blocks the change is the service's refusal on the form (below).
    context = {"table": table, "tenure": tenure, "change": change, "form": form, "can_change": can_change(request),
               "blocked": None if form.is_bound else _blocked(change, table, tenure)}
    next_holder = services.pending_bank_holder(table) if tenure else None
    if next_holder is not None and next_holder.pk != tenure.holder_id:
        context["takeover_due"] = next_holder
    if request.method == "POST":
        valid = form.is_valid()
        cleaned = form.cleaned_data
        if valid and request.POST.get("confirm") == "yes":
            try:
                new = change.call(table=table, cleaned=cleaned, by=request.user)
            except ValidationError as error:
                add_refusal(form, error, change.form_class.service_fields)
            else:
                if new.deposit_required and new.capital:
                    messages.success(request, _("%(holder)s now holds the bank at %(table)s with %(capital)s, to be "
                                                "deposited at the cage before its first hand.")
                                     % {"holder": new.holder.code, "table": table.name, "capital": formatting.money(new.capital)})
                else:
                    messages.success(request, _("%(holder)s now holds the bank at %(table)s with %(capital)s.")
                                     % {"holder": new.holder.code, "table": table.name,
                                        "capital": formatting.money(new.capital)})
                return redirect("tables:pit_table", table_id=table.pk)
        elif not _refused_before_confirmation(form, change, table) and valid:
            # The confirmation, unless a payer is short of chips; a refusal shows the form again (below).
            members = _members(cleaned, at_cage=change.kind != "transfer")
            short = [line for line in members if line.after < 0]
            for line in short:
                form.add_error("price" if line.capital == 0 or line.at_cage else "capital", ValidationError(
                    _("%(player)s has %(chips)s of chips and would pay %(due)s."),
                    params={"player": line.player.code, "chips": formatting.money(line.chips),
                            "due": formatting.money(line.chips - line.after)}))
            if not short:
                context["members"] = members
                if tenure is not None:
                    context["handback"], context["balance"] = _handback(tenure, cleaned.get("price") or 0)
                return render(request, "tables/pit/bank_confirm.html", context)
    return render(request, "tables/pit/bank_form.html", context)


@pit_page
def bank_draw(request, table_id):
    """The bank drawn for at the start of a session: holder, capital, optional syndicate."""
    return _bank_change(request, table_id, "draw")


@pit_page
def bank_sell(request, table_id):
    """The bank sold between hands: buyer, price (to the sellers), capital, syndicate."""
    return _bank_change(request, table_id, "sell")


@pit_page
def bank_transfer(request, table_id):
    """The bank handed over between hands without a price: holder, capital, syndicate."""
    return _bank_change(request, table_id, "transfer")


# ---------------------------------------------------------------------------------------
# Voids


@pit_page
def hand_void(request, table_id, number):
    """Void a hand with a reason: the form, then a confirmation showing what the ledger's
    reversal gives back; only the confirmation posts. A settled hand's posting is reversed
    by ``hand_void``; an open hand simply stops."""
    hand = get_object_or_404(Hand.objects.select_related("table", "bank", "transaction"), table_id=table_id,
                             number=number)
    form = HandVoidForm(request.POST or None)
    context = {"hand": hand, "form": form, "can_change": can_change(request),
               "nets": void_nets(hand)}
    if request.method == "POST" and form.is_valid():
        if request.POST.get("confirm") == "yes":
            try:
                services.hand_void(hand=hand, reason=form.cleaned_data["reason"], voided_by=request.user)
            except ValidationError as error:
                add_refusal(form, error)
            else:
                messages.success(request, _("Hand #%(number)s at %(table)s voided.")
                                 % {"number": hand.number, "table": hand.table.name})
                return redirect("tables:hand_detail", table_id=hand.table_id, number=hand.number)
        else:
            return render(request, "tables/pit/void_confirm.html", context)
    return render(request, "tables/pit/void.html", context)


def void_nets(hand):
    """``[(who, Decimal posted, Decimal reversal)]`` of a settled hand's posting (the
    players', the bank's, the house's commission): what the void's reversal takes back.
    Empty for a hand never settled."""
    if not hand.settlement:
        return []
    done = hand.settlement
    nets = [(code, Decimal(net)) for code, net in done["players"].items()]
    nets.append((_("bank of %(holder)s") % {"holder": done["bank"]["player"]}, Decimal(done["bank"]["net"])))
    if Decimal(done["commission"]):
        nets.append((_("house commission"), Decimal(done["commission"])))
    return [(who, net, -net) for who, net in nets]


# ---------------------------------------------------------------------------------------
# Chip transfers


@pit_page
def chip_transfer(request):
    """Record chips handed from one player to another: the form, then a confirmation
    naming both players, the amount and what the giver holds; only the confirmation posts
    (``ledger.chips.chips_transfer``). An amount the giver cannot give is refused on the
    form (``ChipTransferForm.clean``), before any confirmation."""
    form = ChipTransferForm(request.POST or None)
    context = {"form": form, "can_change": can_change(request)}
    if request.method == "POST" and form.is_valid():
        giver = form.cleaned_data["giver"]
        if request.POST.get("confirm") == "yes":
            try:
                txn = chips_transfer(
                    giver=giver, receiver=form.cleaned_data["receiver"], amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"], posted_by=request.user,
                    idempotency_key=form.idempotency_key)
            except AlreadyPosted:
                messages.info(request, _("This transfer was already recorded."))
                return redirect("tables:chip_transfer")
            except ValidationError as error:
                add_refusal(form, error)
            else:
                messages.success(request, _("Transfer #%(id)s recorded: %(amount)s from %(giver)s to %(receiver)s.")
                                 % {"id": txn.pk, "amount": formatting.money(form.cleaned_data["amount"]), "giver": giver.code,
                                    "receiver": form.cleaned_data["receiver"].code})
                return redirect("tables:chip_transfer")
        else:
            context["holding"] = player_balance(player=giver)
            return render(request, "tables/pit/chip_transfer_confirm.html", context)
    return render(request, "tables/pit/chip_transfer.html", context)


urlpatterns = [
    path("pit/", pit, name="pit"),
    path("pit/tables/<int:table_id>/", pit_table, name="pit_table"),
    path("pit/shifts/open/", shift_open, name="shift_open"),
    path("pit/shifts/<int:shift_id>/close/", shift_close, name="shift_close"),
    path("pit/shifts/<int:shift_id>/relieve/", dealer_relieve, name="dealer_relieve"),
    path("pit/rotation/", rotation, name="rotation"),
    path("pit/rotation/new/", rotation_set, name="rotation_new"),
    path("pit/rotation/<int:pit_id>/", rotation_set, name="rotation_set"),
    path("pit/tables/<int:table_id>/bank/draw/", bank_draw, name="bank_draw"),
    path("pit/tables/<int:table_id>/bank/sell/", bank_sell, name="bank_sell"),
    path("pit/tables/<int:table_id>/bank/transfer/", bank_transfer, name="bank_transfer"),
    path("pit/tables/<int:table_id>/hands/<int:number>/void/", hand_void, name="hand_void"),
    path("pit/chips/transfer/", chip_transfer, name="chip_transfer"),
]
