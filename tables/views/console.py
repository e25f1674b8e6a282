"""The dealer's console: one page per table where the dealer of the open shift enters each
hand as it is played, and the tables he (or a pit supervisor, or an auditor) may open.

Thin views: a form shapes the entry into an engine event, ``tables.services`` checks and
records it (and settles the hand when it is finished); the page is redrawn from the
hand's replayed state, offering only the actions legal now (``HandState.legal()``).
Post/Redirect/Get: a recorded entry redirects to the console (or, sent by the console's
script with the ``X-Console-Fetch`` header, is answered with the console at once); a
refused one redraws it with the rule broken and nothing saved.

Access: the dealer of the table's open shift enters; pit supervisors and auditors read;
anyone else gets 403; anonymous users are sent to log in.
"""

import functools
import os
from decimal import Decimal
from types import SimpleNamespace as Shown

from django.contrib import messages
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import engines
from django.template.backends.utils import csrf_input
from django.urls import path
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from markupsafe import Markup

from casino import formatting
from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR, has_role, role_required
from game.cards import (
    CARD_NAME,
    CARD_POINTS,
    CARD_SUIT,
    DECK_SPELLINGS,
    DECK_SUITS,
    DECKS,
    FRENCH_SPELLINGS,
    is_media,
)
from game.entries import effective_events
from game.hand import (
    BANK_ID,
    DEAL,
    DOBLA,
    DOBLA_QUIEN_QUIERA,
    LOCA_CALLS,
    LOCA_ID,
    PLAY,
    SE_PLANTA,
    format_cents,
)
from ledger.errors import LedgerError
from patrons.errors import AdmissionRefused
from tables import services
from tables.errors import HandNotOpen, NotTheDealer, StaleHand, TableError
from tables.forms.console import EntryForm, OpenHandForm, UndoForm
from tables.locking import hand_entries
from tables.models import Hand, HandEvent, Shift, Table

TABLES_PER_PAGE = 25

#: Sent by the console's script with an entry: answer with the console, not a redirect.
FETCH_HEADER = "X-Console-Fetch"


# ---------------------------------------------------------------------------------------
# Who may do what

def _table_and_shift(table_id):
    """``(table, its open shift or None)``; one query when the table has an open shift.

    Raises:
        Http404: no such table.
    """
    shift = Shift.objects.select_related("table", "dealer", "current_dealer").filter(table_id=table_id, closed_at__isnull=True).first()
    if shift is not None:
        return shift.table, shift
    return get_object_or_404(Table, pk=table_id), None


def _fetched(request):
    """Did the console's own script send this request (``X-Console-Fetch``)? It wants
    the new console in the answer, not a redirect."""
    return request.headers.get(FETCH_HEADER) == "1"


def _may_enter(user, shift):
    """Only the dealer of the table's open shift enters events."""
    return shift is not None and shift.current_dealer_id == user.pk and has_role(user, DEALER)


def _check_reader(user, shift):
    """Raise PermissionDenied unless the user enters at this table or reads every table."""
    if not _may_enter(user, shift) and not has_role(user, PIT_SUPERVISOR, AUDITOR):
        raise _not_this_tables_dealer(shift, user)


def _not_this_tables_dealer(shift, user):
    """The 403 of a dealer at a table whose open shift is not his, saying why: a dealer
    relieved there reads by whom and when (his console is gone at once)."""
    if shift is None:
        return PermissionDenied(_("This table has no open shift: a pit supervisor opens one before its hands are entered."))
    relief = services.relieved_from(table=shift.table, user=user)
    if relief is not None:
        return PermissionDenied(_("You were relieved at %(table)s by %(dealer)s at %(time)s: the table's console "
                                  "is his now.") % {"table": shift.table.name,
                                                    "dealer": relief.relieving.get_username(),
                                                    "time": timezone.localtime(relief.at).strftime("%H:%M")})
    return PermissionDenied(_("Only %(dealer)s, the dealer of this table's open shift, enters its hands; "
                              "the pit supervisors and the auditors read them. Your own table is in the list of "
                              "table consoles.") % {"dealer": shift.current_dealer.get_username()})


def _dealers_table(user, table_id):
    """``(table, its open shift)`` for the dealer of that shift.

    Raises:
        Http404: no such table. PermissionDenied: the user is not the shift's dealer.
    """
    table, shift = _table_and_shift(table_id)
    if not _may_enter(user, shift):
        raise _not_this_tables_dealer(shift, user)
    return table, shift


# ---------------------------------------------------------------------------------------
# The tables a user may open

@role_required(DEALER, PIT_SUPERVISOR, AUDITOR)
def console_tables(request):
    """The tables the user may open: a dealer's, those of his open shifts; a pit
    supervisor's or an auditor's, every table (25 a page, ``?page=``), each with its open
    shift's dealer and its open hand."""
    reads_all = has_role(request.user, PIT_SUPERVISOR, AUDITOR)
    tables = Table.objects.order_by("name")
    if not reads_all:
        tables = tables.filter(shifts__current_dealer=request.user, shifts__closed_at__isnull=True)
    page = Paginator(tables, TABLES_PER_PAGE).get_page(request.GET.get("page"))
    ids = [table.pk for table in page]
    shifts = {s.table_id: s for s in Shift.objects.select_related("current_dealer")
              .filter(table_id__in=ids, closed_at__isnull=True)}
    open_hands = dict(Hand.objects.filter(table_id__in=ids, status=Hand.Status.OPEN)
                      .values_list("table_id", "number"))
    rows = [{"table": table, "shift": shifts.get(table.pk), "open_hand": open_hands.get(table.pk),
             "enters": _may_enter(request.user, shifts.get(table.pk))} for table in page]
    return render(request, "tables/console/tables.html", {"page": page, "rows": rows, "reads_all": reads_all})


# ---------------------------------------------------------------------------------------
# The console

@never_cache
@role_required(DEALER, PIT_SUPERVISOR, AUDITOR)
def console(request, table_id):
    """The table's console: the hand at a glance and, for the dealer of the open shift,
    the entries legal now; once the hand is settled, its settlement and the next hand's
    form. Never cached: the console's script changes the page without changing its
    address, so Back to it must ask for it again (the browser's copy is of its first draw)."""
    table, shift = _table_and_shift(table_id)
    _check_reader(request.user, shift)
    return _render_console(request, table, shift)


@role_required(DEALER)
def console_entry(request, table_id):
    """POST one entry of the open hand (``EntryForm``); redirects to the console once it
    is recorded. A refused entry redraws the console with the reason (nothing saved); an
    entry from a stale screen redraws it fresh, asking to check and enter again."""
    if request.method != "POST":
        return redirect("tables:console", table_id=table_id)
    form = EntryForm(request.POST)
    if not form.is_valid():
        table, shift = _dealers_table(request.user, table_id)
        form = EntryForm(request.POST, deck=_deck(table))  # its card's message in the table's deck
        form.is_valid()
        return _render_console(request, table, shift, refused=form)
    # The hot path: the service reads the table's open hand under the table's lock and
    # checks there that this is the screen's hand and the user its shift's dealer.
    try:
        at_table = services.console_record_event(table_id=table_id, number=form.cleaned_data["number"],
                                                 event=form.event, dealer=request.user,
                                                 expected_version=form.cleaned_data["version"],
                                                 form_token=form.cleaned_data["token"])
    except Table.DoesNotExist:
        raise Http404 from None
    except NotTheDealer as error:
        raise PermissionDenied(str(error)) from None
    except (StaleHand, HandNotOpen) as error:
        if _recorded(form.cleaned_data["token"]):
            # Sent again after its answer was lost (console.js), and the hand has moved on
            # since: this very entry settled it, or another hand is open. It is recorded
            # once; the console as it is now.
            table, shift = _dealers_table(request.user, table_id)
            if _fetched(request):
                return _render_console(request, table, shift)
            return redirect("tables:console", table_id=table.pk)
        if isinstance(error, StaleHand):
            return _render_console(request, *_table_and_shift(table_id), stale=True, status=409)
        table, shift = _dealers_table(request.user, table_id)
        messages.warning(request, str(error))
        return redirect("tables:console", table_id=table.pk)
    except (TableError, LedgerError, AdmissionRefused) as error:
        form.add_error(error.field if error.field in form.fields else None, error)
        return _render_console(request, *_table_and_shift(table_id), refused=form)
    if _fetched(request):
        # The console's own script asked: the new console at once, without the redirect's
        # second request (a resent form is harmless: its one-time token records it once),
        # drawn from what the service read under the table's lock.
        hand = at_table.hand
        if hand.shift is not None:
            return _render_console(request, hand.table, hand.shift, at_table=at_table)
        return _render_console(request, *_table_and_shift(table_id))
    return redirect("tables:console", table_id=table_id)


def _recorded(token):
    """Was the entry of this one-time token recorded (by a send whose answer was lost)?"""
    return HandEvent.objects.filter(form_token=token).exists()


@role_required(DEALER)
def console_undo(request, table_id):
    """Undo the latest event of the open hand: GET asks to confirm and why; POST undoes
    it (the undo is recorded as an entry of its own, nothing is deleted)."""
    table, shift = _dealers_table(request.user, table_id)
    hand = Hand.objects.filter(table=table, status=Hand.Status.OPEN).first()
    if hand is None:
        messages.warning(request, _("There is no open hand at this table."))
        return redirect("tables:console", table_id=table.pk)
    events = effective_events(hand_entries(hand))
    if request.method == "POST":
        form = UndoForm(request.POST)
        if form.is_valid() and form.cleaned_data["number"] != hand.number:
            messages.error(request, str(StaleHand()))  # confirmed on a screen of an earlier hand
            return redirect("tables:console", table_id=table.pk)
        if form.is_valid():
            try:
                services.hand_undo(hand=hand, reason=form.cleaned_data["reason"], entered_by=request.user,
                                   expected_version=form.cleaned_data["version"],
                                   form_token=form.cleaned_data["token"])
            except StaleHand as error:
                messages.error(request, str(error))
                return redirect("tables:console", table_id=table.pk)
            except TableError as error:
                form.add_error("reason" if error.field == "reason" else None, error)
            else:
                messages.success(request, _("Event undone: %(event)s") % {
                    "event": describe_event(events[-1]) if events else ""})
                return redirect("tables:console", table_id=table.pk)
    else:
        form = UndoForm(initial={"number": hand.number, "version": hand.version})
    last = describe_event(events[-1]) if events else None
    return render(request, "tables/console/undo.html", {
        "table": table, "hand": hand, "form": form, "last": last, "number": len(events)})


@role_required(DEALER)
def console_open(request, table_id):
    """POST the next hand's seats; opens it with the bank's pending holder and redirects
    to the console (sent by the console's script, answers with the console at once).
    Errors of ``hand_open`` show on the seats field."""
    if request.method != "POST":
        return redirect("tables:console", table_id=table_id)
    form = OpenHandForm(request.POST)
    if form.is_valid():
        # The service checks, under the table's lock, that the user is the open shift's
        # dealer and that no hand was opened since his screen was drawn.
        try:
            at_table = services.console_open_hand(table_id=table_id, seats=form.cleaned_data["seats"],
                                                  dealer=request.user, after=form.cleaned_data["after"])
        except Table.DoesNotExist:
            raise Http404 from None
        except NotTheDealer as error:
            raise PermissionDenied(str(error)) from None
        except (StaleHand, HandNotOpen):
            # This form was sent already (a double click, a refresh) or another screen
            # opened a hand first: nothing to do but show it.
            return redirect("tables:console", table_id=table_id)
        except (TableError, LedgerError) as error:
            form.add_error("seats", error)
        else:
            hand = at_table.hand
            messages.success(request, _("Hand #%(number)s is open; %(bank)s holds the bank.") % {
                "number": hand.number, "bank": hand.bank.code})
            if _fetched(request):  # the console's script: the console at once
                return _render_console(request, hand.table, hand.shift, at_table=at_table)
            return redirect("tables:console", table_id=table_id)
    table, shift = _dealers_table(request.user, table_id)
    return _render_console(request, table, shift, open_form=form, status=200)


urlpatterns = [
    path("console/", console_tables, name="console_tables"),
    path("console/<int:table_id>/", console, name="console"),
    path("console/<int:table_id>/entry/", console_entry, name="console_entry"),
    path("console/<int:table_id>/undo/", console_undo, name="console_undo"),
    path("console/<int:table_id>/open/", console_open, name="console_open"),
]


# ---------------------------------------------------------------------------------------
# Drawing the console
#
# One template draws the console's body (templates/jinja2/tables/console/body.html): the
# page puts it in the layout (tables/console/console.html, Django's), and the console's
# script gets it alone, in the answer to an entry. It is drawn after every entry, and
# Jinja2 draws it several times faster than Django's template engine, and it is drawn after
# every entry (benchmarks/RESULTS.md, "Measurements behind the code's choices"). The view only gathers what the body shows, as
# SimpleNamespaces (``Shown``): Jinja2 reads their attributes at once, where each dotted
# read of a dict's key first fails a getattr.

#: The console's page: the layout around the body (Django).
PAGE = "tables/console/console.html"
#: The console's body: the felt, the entries legal now, the settlement, the next hand (Jinja2).
BODY = "tables/console/body.html"
#: The card picker's buttons, in the body (Jinja2).
PICKER = "tables/console/picker.html"
#: How many of the hand's latest events the console lists.
LOG_LENGTH = 8
#: The usual chip denominations (euros); a table's chips are those between its limits
#: (``_chips``), derived, not configured.
CHIP_VALUES = tuple(Decimal(v) for v in ("0.50", "1", "2", "5", "10", "20", "25", "50", "100", "200", "500",
                                         "1000", "2000", "5000", "10000", "25000", "50000", "100000"))
#: The keys of the chips, in the stake boxes: the keyboard's top row, left to right.
CHIP_KEYS = "qwerty"

SUIT_NAMES = {"O": gettext_lazy("oros"), "C": gettext_lazy("copas"), "E": gettext_lazy("espadas"),
              "B": gettext_lazy("bastos")}
#: The French deck's suits by name, and as the table shows them. [issue: ♠ ♥ ♦ ♣]
FRENCH_SUIT_NAMES = {"S": gettext_lazy("spades"), "H": gettext_lazy("hearts"), "D": gettext_lazy("diamonds"),
                     "C": gettext_lazy("clubs")}
FRENCH_SUIT_MARKS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def _french(deck):
    """Is ``deck`` (a deck option) French? Its cards are written and typed otherwise
    (``AS``, ``qd``), and some keys are its cards' letters (``FRENCH_KEYS``)."""
    return DECK_SPELLINGS[deck] is FRENCH_SPELLINGS


def _deck(table, state=None):
    """The deck the console shows: the open hand's (``state``), else the table's."""
    return state.profile.deck if state is not None else table.profile.deck


def _deck_words(deck):
    """What the console says of a deck's cards: a card to show as an example in the card
    boxes, and how a card is typed, for the keys' help."""
    if _french(deck):
        return Shown(french=True, example="7H", typed="AS, 7h, qd", buy_in=FRENCH_KEYS["buy-in"])
    return Shown(french=False, example="7O", typed="7O, 11c, rb, sE", buy_in="k")


def _render_console(request, table, shift, *, refused=None, stale=False, open_form=None, status=200,
                    at_table=None):
    """Render the console of ``table``: the whole page, or its body alone for the
    console's script (``X-Console-Fetch``).

    Args:
        at_table: the table's latest hand as ``console_record_event`` or
            ``console_open_hand`` returned it (``services.AtTable``: the hand, its entries
            and state read under the table's lock): drawn without reading it again.
            Otherwise the latest hand is read here.
        refused: a bound EntryForm whose entry was refused (its errors are shown, what was
            typed kept and selected); stale: the entry came from a stale screen (the
            console is drawn fresh and says so).
        open_form: a bound OpenHandForm with errors.
    Returns:
        HttpResponse with ``status``.
    """
    hand = at_table.hand if at_table is not None else (
        Hand.objects.select_related("bank").filter(table=table).order_by("-number").first())
    enters = _may_enter(request.user, shift)
    state = None
    typed = _typed(refused)
    # One CSRF input for the body's forms (Django's Jinja2 backend would mask it anew in each).
    context = {"table": table, "shift": shift, "hand": hand, "enters": enters, "stale": stale, "typed": typed,
               "tokens": _Tokens(), "csrf_input": csrf_input(request), "messages": get_messages(request)}
    if refused is not None:
        context["refusals"] = _refusals(refused)
    panel = None
    if hand is not None:
        if at_table is not None:
            entries, state = at_table.entries, at_table.state
        else:
            entries = hand_entries(hand)
            state = services.hand_state(hand, entries)
        events = effective_events(entries)
        undos = sum(1 for kind, _event in entries if kind == "undo")
        settled = hand.settlement if hand.status == Hand.Status.SETTLED else None
        table_now = state.describe()
        stock = table_now["stock"]
        context.update(places=_places(state, table_now, settled), log=_log(events), stock_text=ngettext(
            "%(cards)s card in the stock", "%(cards)s cards in the stock", stock) % {"cards": stock},
            undos_text=ngettext("%(undos)s entry undone in this hand.", "%(undos)s entries undone in this hand.",
                                undos) % {"undos": undos} if undos else None)
        if hand.status == Hand.Status.OPEN:
            legal = state.legal()
            panel = _panel(state, legal, hand, typed)
            context.update(legal=legal, panel=panel, picker=_picker(state.profile.deck, get_language()),
                           live=" ".join(CARD_NAME[code] for code in sorted(state.live)))
        elif settled is not None:
            context["settlement"] = _settlement_view(settled)
    if hand is None or hand.status != Hand.Status.OPEN:
        holder = _next_bank(table, hand, settled_now=at_table is not None)
        context["next_bank"] = holder
        if holder is not None:
            context["bank_news"] = _bank_news(table, hand)
        if open_form is None:
            seats = [] if hand is None else _next_seats(hand, holder)
            open_form = OpenHandForm(initial={"seats": " ".join(seats), "after": table.last_hand_number})
        context["open_form"] = open_form
    deck = _deck(table, state)
    context.update(deck=deck, cards=_deck_words(deck))
    context["focus"] = _focus(panel, typed, refused, enters and open_form is not None)
    body = engines["jinja2"].get_template(BODY).render(context)
    if _fetched(request):
        return HttpResponse(body, status=status)
    return render(request, PAGE, {"table": table, "body": mark_safe(body)}, status=status)


def _bank_news(table, hand):
    """What the console announces about the bank between hands: its latest withdrawal or
    rebuild since the last hand (``kind``, ``amount`` Decimal euros, ``at``), and whether
    a limited bank is wiped out (the next hand is refused until it is rebuilt or given
    up), and what a bank opened by the pit still awaits at the cage (``owing``: each
    member who owes, ``player``, ``owing``, ``due``; ``rebuild``: the BankRebuild they
    owe for, else None: the capital). [withdrawals recorded and announced on the console; the capital deposited at the cage
    before the first hand]"""
    from tables.bank.deposits import awaiting_deposit
    from tables.bank.life import bank_floor, bank_wiped_out, last_bank_movement
    from tables.models import BankTenure

    tenure = (BankTenure.objects.select_related("holder", "account").filter(table=table, closed_at__isnull=True)
              .first())
    if tenure is None:
        return None
    tenure.table = table
    movement = last_bank_movement(tenure)
    since = (hand.settled_at or hand.voided_at or hand.opened_at) if hand is not None else None
    if movement is not None and since is not None and movement.posted_at < since:
        movement = None
    balance = tenure.account.balance
    owing = awaiting_deposit(tenure)
    return Shown(holder=tenure.holder.code, balance=balance,
                 rebuild=owing[0]["rebuild"] if owing else None,
                 kind=movement.kind if movement else None,
                 at=timezone.localtime(movement.posted_at).strftime("%H:%M") if movement else None,
                 amount=movement.entries.filter(account__tenure=tenure).values_list("amount", flat=True).first()
                 if movement else None,
                 wiped_out=bank_wiped_out(tenure, balance), floor=bank_floor(tenure), capital=tenure.capital,
                 owing=[Shown(player=row["player"].code, owing=row["owing"], due=row["due"])
                        for row in owing])


def _next_seats(hand, holder) -> list[str]:
    """The seats the next hand's form proposes: ``hand``'s, in its order of play; when the
    bank passes to a seated player (``holder``, a ``Player`` or None), the two change places:
    the holder he takes it from sits where he sat (a bank passes between the table's
    players: ``rules.md``, "The bank passes"; seeds 001 and 002), unless already seated. The
    dealer edits the proposal before the hand opens."""
    if holder is None or holder.code not in hand.seats:
        return list(hand.seats)
    former = hand.bank.code if hand.bank_id else None
    seats, placed = [], former is None or former == holder.code or former in hand.seats
    for code in hand.seats:
        if code != holder.code:
            seats.append(code)
        elif not placed:
            seats.append(former)
            placed = True
    return seats


def _next_bank(table, hand, settled_now):
    """The next hand's bank holder (``services.pending_bank_holder``). A hand this request
    just settled (``settled_now``: read under the table's lock with its tenure and bank)
    is the table's latest: asked of them, unless its tenure has closed since."""
    settled_now = settled_now and hand.status == Hand.Status.SETTLED
    tenure = hand.tenure if settled_now else None
    if tenure is not None and tenure.closed_at is None and tenure.holder_id == hand.bank_id:
        tenure.holder = hand.bank
        return services.pending_bank_holder(table, tenure, last=hand)
    return services.pending_bank_holder(table)


class _Tokens:
    """A fresh one-time token each time the template asks (``{{ tokens.new }}``, one per
    entry form): 128 random bits in hex, which ``EntryForm``'s UUID field reads."""

    @property
    def new(self):
        return os.urandom(16).hex()


_FIELDS = ("action", "seat", "card", "amount", "player", "hand")


def _typed(form):
    """What the dealer typed in a refused form, to show it again: the posted fields as
    attributes, with ``group`` (the form it came from: ``deal``, ``bet``, ``card``,
    ``side``, ``loca`` or ``identify-<seat>-<hand>``) and ``field`` (the input the refusal
    names, or the form's main one); all None without a refused form."""
    if form is None:
        return Shown(group=None, field=None, **dict.fromkeys(_FIELDS))
    typed = Shown(**{name: form.data.get(name, "") for name in _FIELDS})
    if typed.action.startswith("deal"):
        group, main = "deal", "card"
    elif typed.action == "bet":
        group = ("loca" if typed.seat == LOCA_ID else "side") if typed.player else "bet"
        main = "amount" if group == "bet" or typed.player else "player"
    elif typed.action == "identify":
        group, main = f"identify-{typed.seat}-{typed.hand}", "card"
    elif typed.action in LOCA_CALLS:
        group, main = "calls", "player"
    else:
        group, main = "card", "card"
    named = [name for name in form.errors if name in ("card", "amount", "player")]
    typed.group, typed.field = group, named[0] if named else main
    return typed


def _refusals(form):
    """The refused form's errors as text, each naming its field."""
    lines = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        for error in errors:
            lines.append(f"{label}: {error}" if label and name != "__all__" else error)
    return lines


def _focus(panel, typed, refused, opening):
    """Where the next entry is most likely typed: ``"<form id>:<field name>"`` (the
    template puts ``autofocus`` there, the script focuses it and selects its text).

    A refused entry: the field its refusal names, in its form. Otherwise the deal's card
    box; the stake of a seat that must bet; the card box of the hand to play (the bank's
    too, while the seats' face-down cards may already be named); its stand when it may
    only stand; the first face-down card to name; the next hand's seats.
    """
    if refused is not None:
        return f"form-{typed.group}:{typed.field}"
    if panel is None:
        return "form-open:seats" if opening else None
    if panel.phase == DEAL:
        return "form-deal:card"
    if panel.phase == PLAY:
        if panel.bet and panel.must_bet:
            return "form-bet:amount"
        if panel.card_box:
            return "form-card:card"
        if panel.play_actions:
            return "form-play:" + panel.play_actions[0].action
        if panel.calls:
            return "form-calls:" + panel.calls.buttons[0].action
    if panel.identify:  # the showdown (offered while the bank plays, named mostly after)
        return f"form-{panel.identify[0].key}:card"
    return None


def _points(text, unknown=0):
    """Points as the table says them: "5.5" -> "5½"; "+ ?" when a card is not named."""
    whole, _dot, half = text.partition(".")
    shown = (whole if whole != "0" else "") + "½" if half else whole
    return f"{shown} + ?" if unknown else shown


def _money(cents):
    return Decimal(format_cents(cents))


# --------------------------------------------------------------------------- the felt

_STATUS_WORDS = {"playing": gettext_lazy("playing"), "stood": gettext_lazy("stood"), "bust": gettext_lazy("bust")}
_KIND_WORDS = {"fusilado": gettext_lazy("fusilado"), "muerto-seven": gettext_lazy("muerto: the 7"),
               "muerto-card": gettext_lazy("muerto: 7 + card")}


def felt_places(state, settlement=None):
    """The felt of a hand's ``state`` as the console draws it (``_places``; the template
    ``tables/console/felt.html``), with the hand's stored settlement's results when given
    (``Settlement.as_dict()``)."""
    return _places(state, state.describe(), settlement)


def _places(state, table, settlement):
    """The felt: every place in order of play (the seats, la loca, the bank), each with
    ``who, label, css, turn, deal_next, hands, several, bets``; a hand with ``number,
    cards, points, stake, status, status_text, current, result``; a card with ``name,
    rank, suit, down`` (``name`` None: face down, not named yet); ``result`` (a settled
    hand or bet) with ``text, css, net, amount, bank``: ``net`` the Decimal euros the
    bank pays (above zero) or collects, ``amount`` its size.

    Args:
        state: the hand's ``HandState``; table: its ``describe()``; settlement: the
            hand's ``Settlement.as_dict()`` once settled, else None.
    """
    actor = table["actor"]
    french = _french(state.profile.deck)
    current = state.current_hand()
    now = (current.owner, current.number) if current is not None else None
    to_deal = state.legal().to_deal if state.phase == DEAL else ()
    results, bets = {}, {}
    if settlement is not None:
        for bet in settlement["bets"]:
            result = _result(bet["result"], bet["multiplier"], Decimal(bet["net"]))
            if bet["player"] == bet["seat"]:
                results[(bet["seat"], bet["hand"])] = result
            else:
                bets.setdefault(bet["seat"], {})[bet["player"]] = result

    def place(who, label, css, hands, staked, on=None):
        return Shown(who=who, label=label, css=css, turn=who == actor, deal_next=bool(to_deal) and to_deal[0] == who,
                     hands=[_felt_hand(who, h, now, staked, results.get((who, h["number"])), french) for h in hands],
                     several=len(hands) > 1,
                     bets=[Shown(player=p, amount=Decimal(a), result=bets.get(who, {}).get(p))
                           for p, a in (on or {}).items()])

    places = [place(seat["player"], seat["player"], "", seat["hands"], True, seat["side_bets"])
              for seat in table["seats"]]
    if table["loca"] is not None:
        places.append(place(LOCA_ID, _("la loca"), "loca", [table["loca"]], False, table["loca"]["bets"]))
    bank = table["bank"]
    bank_place = place(BANK_ID, _("bank · %(player)s") % {"player": bank["player"]}, "bank", [bank], False)
    if settlement is not None:
        net = Decimal(settlement["bank"]["net"])
        # The amount and its € joined by a no-break space: on a phone the sentence wrapped between them.
        amount = {"amount": formatting.money(abs(net), joined=True)}
        bank_place.hands[0].result = Shown(
            text=(_("the bank wins %(amount)s") % amount if net > 0 else _("the bank loses %(amount)s") % amount
                  if net < 0 else _("the bank is even")),
            css="win" if net > 0 else "lose" if net < 0 else "even", net=net, amount=abs(net), bank=True)
    places.append(bank_place)
    return places


def _felt_hand(who, hand, now, staked, result, french=False):
    status = _STATUS_WORDS.get(hand["status"], hand["status"])
    kind = _KIND_WORDS.get(hand["kind"])
    return Shown(number=hand["number"], current=now == (who, hand["number"]),
                 cards=[_felt_card(card, french) for card in hand["cards"]],
                 points=_points(hand["points"], hand["unknown"]),
                 status=hand["status"], status_text=f"{status} · {kind}" if kind else status,
                 stake=Decimal(hand["stake"]) if staked else None, result=result)


def _felt_card(card, french=False):
    """A card on the felt: ``name`` as written (None: face down, not named yet), ``rank``
    and ``mark`` as shown (a French suit as ♠ ♥ ♦ ♣), ``css`` its suit's class."""
    name = card["card"]
    if name is None:
        return Shown(name=None, rank=None, mark=None, css=None, down=True)
    suit = name[-1]
    if french:
        return Shown(name=name, rank=name[:-1], mark=FRENCH_SUIT_MARKS[suit], css="fr-" + suit, down=card["down"])
    return Shown(name=name, rank=name[:-1], mark=suit, css=suit, down=card["down"])


def _result(result, multiplier, net):
    """A settled bet's result as the felt says it (``_places``)."""
    if result == "bust":
        text = _("bust")
    elif result == "natural":
        text = _("7½, wins ×%(k)s") % {"k": multiplier}
    elif result == "win":
        text = _("wins ×%(k)s") % {"k": multiplier} if multiplier > 1 else _("wins")
    else:
        text = _("loses ×%(k)s") % {"k": multiplier} if multiplier > 1 else _("loses")
    return Shown(text=text, css="win" if net > 0 else "lose", net=net, amount=abs(net), bank=False)


# --------------------------------------------------------------------------- the entries

#: Each entry button: ``action`` -> (label, key, needs a card). The key is
#: ``KeyboardEvent.key`` in lower case, ``shift+`` before it for Shift; "enter": sent by
#: Enter. Enter in a card box sends the form's first button needing a card, whatever its
#: key (``_button``). A button needing a card sends the card in the box (typed complete,
#: the armed one is sent at once); without one its key arms it.
BUTTONS = {
    "deal": (gettext_lazy("Deal"), "enter", True),
    "deal-unknown": (gettext_lazy("Deal unknown (face down)"), "x", False),
    "card": (gettext_lazy("Card face up"), "enter", True),
    "card-down": (gettext_lazy("Card face down"), "d", True),
    "card-unknown": (gettext_lazy("Unknown card, face down"), "x", False),
    "announce": (gettext_lazy("Stands on an announced 7½: the face-down card is this one"), "n", True),
    "reveal": (gettext_lazy("Turn up: it is this card"), "v", True),
    "reveal-named": (gettext_lazy("Turn up the face-down card"), "v", False),
    "exchange": (gettext_lazy("Exchange the 4 for this card"), "i", True),
    "exchange-unknown": (gettext_lazy("Exchange the 4: unknown card"), "shift+i", False),
    "fusilar": (gettext_lazy("Fusilar with this card"), "f", True),
    "fusilar-unknown": (gettext_lazy("Fusilar: unknown card"), "shift+f", False),
    "muerto": (gettext_lazy("Muerto with this card"), "m", True),
    "muerto-unknown": (gettext_lazy("Muerto: unknown card"), "shift+m", False),
    "stand": (None, "p", False),  # labelled with the seat: "luis stands"
    "split": (gettext_lazy("Split: the half opens a new hand"), "a", False),
    "split-pair": (gettext_lazy("Split: the second card of the same points opens a new hand"), "a", False),
    "shuffle": (gettext_lazy("Shuffle the bust hands' cards back into the stock"), "j", False),
    "identify": (gettext_lazy("Name the card"), "enter", True),
    # La loca's calls (loca_calls), made by its responsable.
    DOBLA_QUIEN_QUIERA: (gettext_lazy("La loca: dobla quien quiera (its bettors may raise)"), "w", False),
    DOBLA: (gettext_lazy("La loca dobla (every stake doubled; then it stands)"), "shift+d", False),
    SE_PLANTA: (gettext_lazy("La loca se planta"), "p", False),
}

#: At a French table the letters of its ranks (A, J, Q, K) are typed into the card box:
#: the entries whose keys they are elsewhere take these keys instead (``_button``), the
#: buy-in at the table too (body.html). D (a card face down) and H keep working as keys
#: while the card box is empty or fully selected: a suit is typed only after a rank
#: (console.js).
FRENCH_KEYS = {"split": "o", "split-pair": "o", "shuffle": "b", "buy-in": "h"}


def _button(action, label=None, primary=False, french=False):
    """An entry button. ``primary``: the form's first button needing a card, which Enter
    in the card box (or a card typed whole) sends; ``enter`` says so when it keeps a key of
    its own, for where the focus is elsewhere (exchanging a 4 from the stake box).
    ``french``: the table's deck is French, whose ranks take some keys (``FRENCH_KEYS``)."""
    text, key, needs_card = BUTTONS[action]
    if french:
        key = FRENCH_KEYS.get(action, key)
    action = {"reveal-named": "reveal", "split-pair": "split"}.get(action, action)
    return Shown(action=action, label=label or text, key=key,
                 shown=key_label(key), aria=key_aria(key), needs_card=needs_card, enter=primary and key != "enter")


def key_label(key):
    """A key as its button shows it: "enter" -> "⏎", "shift+f" -> "⇧F", "p" -> "P"."""
    if key == "enter":
        return "⏎"
    return key.replace("shift+", "⇧").upper()


def key_aria(key):
    """A key as ``aria-keyshortcuts`` names it: "enter" -> "Enter", "shift+f" -> "Shift+F"."""
    return "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in key.split("+"))


def _panel(state, legal, hand, typed):
    """The entries the dealer may make now, from ``legal`` (amounts as Decimal euros): the
    phase, whose turn, and each form's buttons (``_button``) in the order drawn, its first
    the one Enter sends; the stake ready and the chips; the face-down cards to name."""
    french = _french(state.profile.deck)
    panel = Shown(phase=legal.phase, actor=legal.actor, hand=legal.hand, actor_label=None, deal=None,
                  proposed=None, deal_actions=(), bet=None, must_bet=False, fixed=False, stake=None, chips=(),
                  card_actions=(), card_box=False, announce_hand=None, muerto=None, play_actions=(),
                  shuffle=None, side_bets=(), loca_raises=(), identify=(), one_card_cap=None, capped=None,
                  pair_split=None, calls=None)
    if legal.phase == DEAL:
        face_up = state.profile.face_up
        panel.deal = [Shown(who=who, label=_who(who), unknown=who == BANK_ID or not face_up,
                            checked=typed.seat == who if typed.group == "deal" else i == 0)
                      for i, who in enumerate(legal.to_deal)]
        panel.proposed = _who(legal.to_deal[0])
        panel.deal_actions = [_button("deal"), _button("deal-unknown")]
        return panel
    if legal.phase != PLAY:
        panel.identify = [_owed(o, n) for o, n in legal.identities_owed]
        return panel
    current = state.current_hand()
    seat = state.seat(legal.actor)
    panel.actor_label = _who(legal.actor)
    if legal.one_card_cap is not None:
        panel.one_card_cap = _money(legal.one_card_cap)
    if legal.pair_split is not None:
        # The pair over 7½ just drawn: bust, the turn past it, unless its split comes next.
        player, number = legal.pair_split
        panel.pair_split = Shown(seat=player, button=_button("split-pair", _(
            "%(who)s splits the pair (hand %(number)s is bust otherwise)") % {"who": player, "number": number},
            french=french))
    if legal.bet:
        panel.bet = (_money(legal.bet[0]), _money(legal.bet[1]))
        panel.must_bet = current.stake == 0
        panel.fixed = state.profile.fixed_stake
        if state.profile.fixed_stake:
            panel.stake = panel.bet[0]
        elif panel.must_bet:
            panel.stake = _last_stake(seat, current, hand)
        # Only the chips that fit what may still be staked (a raise's room is less than the
        # table's maximum); their keys stay those of the table's chips.
        panel.chips = () if state.profile.fixed_stake else [
            chip for chip in _chips(hand.min_bet, hand.max_bet) if chip.amount <= panel.bet[1]]
    unknown_ok = not state.profile.face_up
    actions = []
    if legal.draw:
        actions.append("card")
    if legal.draw_down:
        actions.append("card-down")
        if unknown_ok:
            actions.append("card-unknown")
    if legal.announce:
        actions.append("announce")
    if legal.reveal:
        actions.append("reveal-named" if current.cards[current.down] is not None else "reveal")
    if legal.exchange:
        actions += ["exchange", "exchange-unknown"] if unknown_ok else ["exchange"]
    if legal.fusilar:
        actions += ["fusilar", "fusilar-unknown"]
    if legal.muerto:
        actions += ["muerto", "muerto-unknown"]
        panel.muerto = (_money(legal.muerto[0]), _money(legal.muerto[1]))
    # The first action needing a card is the one Enter (or a card typed whole) sends.
    first = next((a for a in actions if BUTTONS[a][2]), None)
    panel.card_actions = [_button(a, primary=a == first) for a in actions]
    panel.card_box = first is not None
    panel.announce_hand = legal.hand if legal.announce else None
    play = []
    calls = legal.loca_calls or ()
    if legal.stand and SE_PLANTA not in calls:
        play.append(_button("stand", _("%(who)s stands") % {"who": panel.actor_label}))
    elif (not legal.stand and legal.one_card_cap is not None and current.stake > legal.one_card_cap
          and (state.profile.raise_on_stand or not current.raise_pending)):
        # A stand the one-card cap forbids: shown greyed, with the cap; sent anyway, the
        # engine refuses it naming the rule. [rules.md "One-card stand"]
        play.append(_button("stand", _("%(who)s stands") % {"who": panel.actor_label}))
        panel.capped = _("A stand on one card carries at most %(cap)s € (%(times)s × the minimum bet): "
                         "%(who)s has %(stake)s € on it, a card first.") % {
            "cap": formatting.number(panel.one_card_cap, 2), "times": state.profile.one_card_stand_max,
            "who": panel.actor_label, "stake": formatting.number(_money(current.stake), 2)}
    if legal.split:
        play.append(_button("split-pair" if _pair_in(current) else "split", french=french))
    panel.play_actions = play
    if calls:
        panel.calls = Shown(buttons=[_button(call) for call in LOCA_CALLS if call in calls],
                            responsables=list(legal.loca_responsables), proposed=legal.loca_responsable,
                            named=state.loca_responsable is not None)
    panel.shuffle = _button("shuffle", french=french) if legal.shuffle else None
    panel.side_bets = [(who, _who(who)) for who in legal.side_bet_seats]
    panel.loca_raises = [(p, _money(room)) for p, room in sorted(legal.loca_raises.items()) if room]
    seats_done = legal.actor in (LOCA_ID, BANK_ID)
    owed = [(owner, number) for owner, number in legal.identities_owed
            if (owner, number) != (current.owner, current.number) or legal.complete]
    panel.identify = [_owed(o, n) for o, n in owed] if seats_done else []
    return panel


def _pair_in(hand):
    """Does ``hand``, ready to split, hold two cards of equal points that are not halves
    (a split of equal cards, ``split_pairs``)?"""
    cards = hand.cards
    return (len(cards) == 2 and None not in cards and CARD_POINTS[cards[0]] == CARD_POINTS[cards[1]]
            and not is_media(cards[1]))


def _last_stake(seat, current, hand):
    """The stake the seat is most likely to bet now: its last hand's in this hand (a
    split), else its first hand's in the table's previous hand; None if neither.

    Args:
        seat: the engine's ``Seat`` to bet; current: its hand to bet on; hand: the Hand.
    Returns:
        Decimal euros, or None.
    """
    if seat is None:
        return None
    earlier = [h.stake for h in seat.hands if h is not current and h.stake]
    if earlier:
        return _money(earlier[-1])
    return _stakes_of(hand.table_id, hand.number - 1).get(seat.player) if hand.number > 1 else None


@functools.lru_cache(maxsize=1024)
def _stakes_of(table_id, number):
    """``{seat: its first hand's stake (Decimal euros)}`` in a table's hand before the open
    one, ``{}`` if it has none: it is settled or voided, and never changes (read once per
    process: each seat's bet in a hand would read it again)."""
    settlement = next(iter(Hand.objects.filter(table_id=table_id, number=number).order_by()
                           .values_list("settlement", flat=True)[:1]), None)
    return {bet["seat"]: Decimal(bet["stake"]) for bet in (settlement or {}).get("bets", ())
            if bet["player"] == bet["seat"] and bet["hand"] == 1}


def _chips(low, high):
    """The chips a table's stakes are made of, with their keys: the usual denominations
    (``CHIP_VALUES``: 0.50 to 100,000 €) between the table's limits (the lowest above
    zero), at most six, spread from the lowest to the highest: 5, 10, 20, 25, 50, 100 at
    a 5–100 € table. A list, each with ``amount`` and ``key``.

    Args:
        low, high: the hand's limits, Decimal euros.
    """
    values = [v for v in CHIP_VALUES if max(low, Decimal("0.01")) <= v <= high]
    if len(values) > len(CHIP_KEYS):
        step = (len(values) - 1) / (len(CHIP_KEYS) - 1)
        values = [values[round(i * step)] for i in range(len(CHIP_KEYS))]
    return [Shown(amount=v, key=key) for v, key in zip(values, CHIP_KEYS, strict=False)]


def _owed(owner, number):
    return Shown(owner=owner, number=number, label=_who(owner), key=f"identify-{owner}-{number}")


def _who(who):
    """A place as the table says it: a seat's player id, or the bank or la loca."""
    if who == BANK_ID:
        return _("the bank")
    if who == LOCA_ID:
        return _("la loca")
    return who


@functools.lru_cache(maxsize=16)
def _picker(deck, language):
    """The card picker's buttons for a deck in a language, which is active (it keys the
    cache): picker.html drawn once per process, since they depend on nothing else (the
    console's script greys out the cards on the table, from the body's ``data-live``).

    Args:
        deck: a ``DECKS`` key; language: the active language's code.
    Returns:
        Markup (HTML, safe).
    """
    cards = DECKS[deck]
    french = _french(deck)
    names, marks = (FRENCH_SUIT_NAMES, FRENCH_SUIT_MARKS) if french else (SUIT_NAMES, {})
    suits = [{"suit": suit, "css": ("fr-" if french else "") + suit, "name": names[suit],
              "mark": marks.get(suit, suit),
              "cards": [{"card": CARD_NAME[c], "rank": CARD_NAME[c][:-1]} for c in sorted(cards) if CARD_SUIT[c] == suit]}
             for suit in DECK_SUITS[deck]]
    return Markup(engines["jinja2"].get_template(PICKER).render({"suits": suits}))


def _settlement_view(settlement):
    """What the settlement says beyond the felt: each player's total (Decimal euros the
    bank pays him, above zero, or collects), the bank's net and points, the commission,
    the next bank. The players in the order of play (of their first bet: the settlement's
    ``bets`` are in that order): the stored ``players`` object comes back from ``jsonb``
    with its keys in jsonb's order (shortest first), not the table's."""
    first = {}
    for bet in settlement.get("bets", ()):
        first.setdefault(bet.get("player"), len(first))
    players = sorted(settlement["players"].items(), key=lambda item: first.get(item[0], len(first)))
    return Shown(players=[Shown(player=p, net=Decimal(net), amount=abs(Decimal(net))) for p, net in players],
                 bank=Shown(player=settlement["bank"]["player"], net=Decimal(settlement["bank"]["net"]),
                            points=_points(settlement["bank"]["points"])),
                 commission=Decimal(settlement["commission"]), next_bank=settlement["next_bank"])


def _log(events):
    """The hand's latest events in force, newest first, numbered from 1."""
    start = max(0, len(events) - LOG_LENGTH)
    return [(i + 1, describe_event(events[i])) for i in range(len(events) - 1, start - 1, -1)]


def describe_event(event):
    """One event of a hand as the table says it, in the user's language.

    Args:
        event: an event dict (``hand-record.md``; a card may be None: not yet named).
    Returns:
        str.
    """
    do = event.get("do")
    seat = _who(event.get("seat", ""))
    card = event.get("card")
    card = card if card is not None else "?"
    amount = event.get("amount")
    values = {"seat": seat, "card": card, "player": event.get("player"),
              "amount": formatting.number(amount, 2, grouping=False), "hand": event.get("hand")}
    if do == "deal":
        return _("%(seat)s: initial card %(card)s") % values
    if do == "bet":
        if event.get("player"):
            return _("%(player)s bets %(amount)s € on %(seat)s") % values
        return _("%(seat)s bets %(amount)s €") % values
    if do == "card":
        if event.get("down"):
            return _("%(seat)s: card %(card)s, face down") % values
        return _("%(seat)s: card %(card)s") % values
    if do == "reveal":
        if event.get("card"):
            return _("%(seat)s turns up %(card)s") % values
        return _("%(seat)s turns up the face-down card") % values
    if do == "stand":
        return _("%(seat)s stands") % values
    if do == "split":
        return _("%(seat)s splits") % values
    if do == "exchange":
        return _("%(seat)s exchanges the 4 for %(card)s") % values
    if do == "fusilar":
        return _("%(seat)s fusila: %(card)s under the 7") % values
    if do == "muerto":
        return _("%(seat)s plays muerto for %(amount)s €: %(card)s under the 7") % values
    if do == "shuffle":
        return _("the bust hands' cards are shuffled back into the stock")
    if do == "loca_call":
        values["player"] = event.get("responsable")
        call = event.get("call")
        if call == DOBLA_QUIEN_QUIERA:
            return _("%(player)s, for la loca: dobla quien quiera") % values
        if call == DOBLA:
            return _("%(player)s, for la loca: la loca dobla") % values
        return _("%(player)s, for la loca: la loca se planta") % values
    if do == "identify":
        if event.get("natural"):
            return _("%(seat)s stands on an announced 7½: the face-down card is %(card)s") % values
        return _("%(seat)s, hand %(hand)s: the face-down card was %(card)s") % values
    return str(event)
