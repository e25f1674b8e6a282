"""The dealer's console: one page per table where the dealer of the open shift enters each
hand as it is played, and the tables he (or a pit supervisor, or an auditor) may open.

Thin views: a form shapes the entry into an engine event, ``tables.services`` checks and
records it (and settles the hand when it is finished); the page is redrawn from the
hand's replayed state, offering only the actions legal now (``HandState.legal()``).
Post/Redirect/Get: a recorded entry redirects to the console (or, sent by the console's
script with the ``X-Console-Fetch`` header, is answered with the console at once); a
refused one redraws it with the rule broken and nothing saved. [issue 4 "The table console"]

Access: the dealer of the table's open shift enters; pit supervisors and auditors read;
anyone else gets 403; anonymous users are sent to log in.
"""

import functools
import json
import os
from decimal import Decimal
from html import escape as html_escape

from django.contrib import messages
from django.contrib.messages import get_messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import engines
from django.template.backends.utils import csrf_input
from django.urls import path
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from casino.jinja_env import Attrs, floatformat_in_language, gettext_in
from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR, has_role, role_required
from ledger.errors import LedgerError
from tables import services
from tables.engine.cards import CARD_NAME, CARD_RANK, CARD_SUIT, DECKS, SUITS
from tables.engine.console import effective_events
from tables.engine.hand import BANK_ID, DEAL, LOCA_ID, PLAY, format_cents
from tables.errors import HandNotOpen, NotTheDealer, StaleHand, TableError
from tables.forms.console import EntryForm, OpenHandForm, UndoForm
from tables.models import Hand, Shift, Table

TABLES_PER_PAGE = 25
#: The console's body (Jinja2), inside the layout of ``tables/console/console.html``.
BODY = "tables/console/body.html"
#: The answer to the console's script: the title and <main> around the body (Jinja2).
FETCHED = "tables/console/fetched.html"
#: How many of the hand's latest events the console lists.
LOG_LENGTH = 8

SUIT_NAMES = {"O": gettext_lazy("oros"), "C": gettext_lazy("copas"), "E": gettext_lazy("espadas"),
              "B": gettext_lazy("bastos")}
RESULT_NAMES = {"win": gettext_lazy("win"), "natural": gettext_lazy("7½"), "lose": gettext_lazy("lose"),
                "bust": gettext_lazy("bust")}


#: Sent by the console's script with an entry: answer with the console, not a redirect.
FETCH_HEADER = "X-Console-Fetch"


# ---------------------------------------------------------------------------------------
# Who may do what

def _table_and_shift(table_id):
    """``(table, its open shift or None)``; one query when the table has an open shift.

    Raises:
        Http404: no such table.
    """
    shift = Shift.objects.select_related("table", "dealer").filter(table_id=table_id, closed_at__isnull=True).first()
    if shift is not None:
        return shift.table, shift
    return get_object_or_404(Table, pk=table_id), None


def _fetched(request):
    """Did the console's own script send this request (``X-Console-Fetch``)? It wants
    the new console in the answer, not a redirect."""
    return request.headers.get(FETCH_HEADER) == "1"


def _may_enter(user, shift):
    """Only the dealer of the table's open shift enters events."""
    return shift is not None and shift.dealer_id == user.pk and has_role(user, DEALER)


def _check_reader(user, shift):
    """Raise PermissionDenied unless the user enters at this table or reads every table."""
    if not _may_enter(user, shift) and not has_role(user, PIT_SUPERVISOR, AUDITOR):
        raise _not_this_tables_dealer(shift)


def _not_this_tables_dealer(shift):
    """The 403 of a dealer at a table whose open shift is not his, saying why."""
    if shift is None:
        return PermissionDenied(_("This table has no open shift: a pit supervisor opens one before its hands are entered."))
    return PermissionDenied(_("Only %(dealer)s, the dealer of this table's open shift, enters its hands; "
                              "the pit supervisors and the auditors read them. Your own table is in the list of "
                              "table consoles.") % {"dealer": shift.dealer.get_username()})


def _dealers_table(user, table_id):
    """``(table, its open shift)`` for the dealer of that shift.

    Raises:
        Http404: no such table. PermissionDenied: the user is not the shift's dealer.
    """
    table, shift = _table_and_shift(table_id)
    if not _may_enter(user, shift):
        raise _not_this_tables_dealer(shift)
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
        tables = tables.filter(shifts__dealer=request.user, shifts__closed_at__isnull=True)
    page = Paginator(tables, TABLES_PER_PAGE).get_page(request.GET.get("page"))
    ids = [table.pk for table in page]
    shifts = {s.table_id: s for s in Shift.objects.select_related("dealer")
              .filter(table_id__in=ids, closed_at__isnull=True)}
    open_hands = dict(Hand.objects.filter(table_id__in=ids, status=Hand.Status.OPEN)
                      .values_list("table_id", "number"))
    rows = [{"table": table, "shift": shifts.get(table.pk), "open_hand": open_hands.get(table.pk),
             "enters": _may_enter(request.user, shifts.get(table.pk))} for table in page]
    return render(request, "tables/console/tables.html", {"page": page, "rows": rows, "reads_all": reads_all})


# ---------------------------------------------------------------------------------------
# The console

@role_required(DEALER, PIT_SUPERVISOR, AUDITOR)
def console(request, table_id):
    """The table's console: the hand at a glance and, for the dealer of the open shift,
    the entries legal now; once the hand is settled, its settlement and the next hand's
    form."""
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
    except StaleHand as error:
        return _render_console(request, *_table_and_shift(table_id), stale=str(error), status=409)
    except HandNotOpen as error:
        table, shift = _dealers_table(request.user, table_id)
        messages.warning(request, str(error))
        return redirect("tables:console", table_id=table.pk)
    except (TableError, LedgerError) as error:
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


@role_required(DEALER)
def console_undo(request, table_id):
    """Undo the latest event of the open hand: GET asks to confirm and why; POST undoes
    it (the undo is recorded as an entry of its own, nothing is deleted)."""
    table, shift = _dealers_table(request.user, table_id)
    hand = Hand.objects.filter(table=table, status=Hand.Status.OPEN).first()
    if hand is None:
        messages.warning(request, _("There is no open hand at this table."))
        return redirect("tables:console", table_id=table.pk)
    events = effective_events(services.hand_entries(hand))
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

def _render_console(request, table, shift, *, refused=None, stale=None, open_form=None, status=200,
                    at_table=None):
    """Render the console of ``table``.

    Args:
        at_table: the table's latest hand as ``console_record_event`` or
            ``console_open_hand`` returned it (``services.AtTable``): drawn without
            reading it again.
        refused: a bound EntryForm whose entry was refused (its errors are shown and what
            was typed kept); stale: the message of a stale entry (the page is drawn fresh).
        open_form: a bound OpenHandForm with errors.
    """
    hand = at_table.hand if at_table is not None else (
        Hand.objects.select_related("bank").filter(table=table).order_by("-number").first())
    enters = _may_enter(request.user, shift)
    language = get_language()
    # One CSRF input for the page's forms (Django's Jinja2 backend would mask it anew in each).
    context = {"_": gettext_in(language), "csrf_input": csrf_input(request), "table": table, "shift": shift,
               "hand": hand, "enters": enters, "stale": stale, "tokens": _Tokens(), "typed": _typed(refused)}
    if refused is not None:
        context["refusals"] = _refusals(refused)
    if hand is not None:
        if at_table is not None:
            entries, state = at_table.entries, at_table.state
        else:
            entries = services.hand_entries(hand)
            state = services.hand_state(hand, entries)
        events = effective_events(entries)
        undos = sum(1 for kind, _event in entries if kind == "undo")
        context.update(_table_view(state, language), log=_log(events, language),
                       status_text=_felt_words(language)[f"hand-{hand.status}"], undos_text=ngettext(
            "%(undos)s entry undone in this hand.", "%(undos)s entries undone in this hand.", undos) % {"undos": undos}
            if undos else None)
        if hand.status == Hand.Status.OPEN:
            legal = state.legal()
            context["legal"] = legal
            context["panel"] = _panel(state, legal)
            context["picker"] = _picker(state, language)
        elif hand.status == Hand.Status.SETTLED:
            context["settlement"] = _settlement_view(hand.settlement)
    if hand is None or hand.status != Hand.Status.OPEN:
        holder = _next_bank(table, hand, settled_now=at_table is not None)
        context["next_bank"] = holder
        if open_form is None:
            seats = [] if hand is None else [code for code in hand.seats if holder is None or code != holder.code]
            open_form = OpenHandForm(initial={"seats": " ".join(seats), "after": table.last_hand_number})
        context["open_form"] = open_form
    # Jinja2 draws the body (it is redrawn after every entry; casino/jinja_env.py). The
    # console's script takes only the title and <main>: Jinja2 draws that whole answer.
    # A full page puts the body inside Django's layout, base.html.
    if _fetched(request):
        context["messages"] = get_messages(request)
        return HttpResponse(engines["jinja2"].get_template(FETCHED).render(context), status=status)
    body = mark_safe(engines["jinja2"].get_template(BODY).render(context))
    return render(request, "tables/console/console.html", {"table": table, "body": body}, status=status)


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
    """A fresh one-time token each time the template asks (one per entry form): 128
    random bits in hex, which ``EntryForm``'s UUID field reads."""

    @property
    def new(self):
        return os.urandom(16).hex()


def _typed(form):
    """What the dealer typed in a refused form, to show it again (an ``Attrs``; empty if
    none)."""
    if form is None:
        return Attrs()
    typed = Attrs((name, form.data.get(name, "")) for name in ("action", "seat", "card", "amount", "player", "hand"))
    action = typed["action"]
    if action.startswith("deal"):
        group = "deal"
    elif action == "bet":
        group = ("loca" if typed["seat"] == LOCA_ID else "side") if typed["player"] else "bet"
    elif action == "identify":
        group = f"identify-{typed['seat']}-{typed['hand']}"
    else:
        group = "card"
    typed["group"] = group
    return typed


def _refusals(form):
    """The refused form's errors as text, each naming its field."""
    lines = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else None
        for error in errors:
            lines.append(f"{label}: {error}" if label and name != "__all__" else error)
    return lines


def _points(text, unknown=0):
    """Points as the table says them: "5.5" -> "5½"; "+ ?" when a card is not named."""
    whole, _dot, half = text.partition(".")
    shown = (whole if whole != "0" else "") + "½" if half else whole
    return f"{shown} + ?" if unknown else shown


# The felt and the card picker are drawn here rather than in the template: they are most
# of the page's nodes, and the console is drawn after every entry. Their words are
# translated and escaped once per process and language (``_felt_words``), the amounts
# formatted once per amount (``floatformat_in_language``).

@functools.lru_cache(maxsize=16)
def _felt_words(language):
    """The words of the felt and of the hand's status in ``language``, which is active (it
    keys the cache), HTML-escaped: a dict of str."""
    words = {"unnamed": _("face down, not named yet"), "face_down": _("face down"), "points": _("points"),
             "to_play": _("to play"), "the_table": _("The table"), "no_stake": _("no stake"),
             "side_bets": _("Side bets"), "bets": _("Bets"), "loca": _("la loca"), "bank": _("bank · %(player)s"),
             "status-playing": _("playing"), "status-stood": _("stood"), "status-bust": _("bust"),
             "kind-fusilado": _("fusilado"), "kind-muerto-seven": _("muerto: the 7"),
             "kind-muerto-card": _("muerto: 7 + card")}
    words.update((f"hand-{status}", label) for status, label in Hand.Status.choices)
    return {key: escape(text) for key, text in words.items()}


def _euros_html(amount):
    """Euros (a Decimal, or its text "10.00") as the felt shows them: "1.250,50 €" in Spanish."""
    return f"{floatformat_in_language(amount, '2g')} €"


def _card_html(card, words):
    name, down = card["card"], card["down"]
    if name is None:
        return f'<span class="card back" data-card="" title="{words["unnamed"]}">?</span>'
    title = f' title="{words["face_down"]}"' if down else ""
    return (f'<span class="card suit-{name[-1]}{" down" if down else ""}" data-card="{name}"{title}>'
            f"{name[:-1]}<small>{name[-1]}</small></span>")


def _hand_html(hand, current, several, staked, words):
    cards = "".join(_card_html(card, words) for card in hand["cards"]) or '<span class="empty">—</span>'
    number = hand["number"]
    parts = [f'<div class="hand status-{hand["status"]}{" current" if current else ""}" data-hand="{number}">']
    if several:
        parts.append(f'<span class="hand-no">{number}</span>')
    parts.append(f'<span class="cards">{cards}</span><span class="points" title="{words["points"]}">'
                 f'{html_escape(_points(hand["points"], hand["unknown"]))}</span>')
    if staked:
        stake = hand["stake"]
        shown = _euros_html(stake) if stake != "0.00" else words["no_stake"]
        parts.append(f'<span class="stake">{shown}</span>')
    status = words.get(f"status-{hand['status']}") or html_escape(hand["status"])
    kind = words.get(f"kind-{hand['kind']}")
    if kind:
        status += f" · {kind}"
    parts.append(f'<span class="status">{status}</span></div>')
    return "".join(parts)


def _place_html(who, label, css, turn, hands, now, words, bets=None, bets_label=None):
    """One place of the felt; ``label`` and ``bets_label`` are HTML already."""
    several = len(hands) > 1
    staked = css == ""
    body = "".join(_hand_html(h, now == (who, h["number"]), several, staked, words) for h in hands)
    badge = f' <span class="badge">{words["to_play"]}</span>' if turn else ""
    side = ""
    if bets:
        side = (f'<div class="side">{bets_label}: '
                + ", ".join(f"{html_escape(p)} {_euros_html(a)}" for p, a in bets.items()) + "</div>")
    return (f'<div class="place{" turn" if turn else ""}{css}" data-who="{html_escape(who)}">'
            f'<div class="who">{label}{badge}</div>{body}{side}</div>')


def _table_view(state, language):
    """The table at a glance, in order of play (seats, la loca, the bank), as HTML
    (``felt``), and the cards left in the stock as the table says it (``stock_text``).

    Args:
        state: the hand's ``HandState``; language: the active language's code.
    """
    words = _felt_words(language)
    table = state.describe()
    actor = table["actor"]
    current = state.current_hand()
    now = (current.owner, current.number) if current is not None else None
    places = [_place_html(seat["player"], html_escape(seat["player"]), "", seat["player"] == actor, seat["hands"],
                          now, words, seat["side_bets"], words["side_bets"]) for seat in table["seats"]]
    if table["loca"] is not None:
        loca = table["loca"]
        places.append(_place_html(LOCA_ID, words["loca"], " loca", actor == LOCA_ID, [loca], now, words,
                                  loca["bets"], words["bets"]))
    bank = table["bank"]
    places.append(_place_html(BANK_ID, words["bank"] % {"player": html_escape(bank["player"])}, " bank",
                              actor == BANK_ID, [bank], now, words))
    felt = (f'<section class="felt" aria-label="{words["the_table"]}">' + "".join(places) + "</section>")
    # Every text in it is escaped above.
    stock = table["stock"]
    stock_text = None if stock is None else ngettext(
        "%(cards)s card in the stock", "%(cards)s cards in the stock", stock) % {"cards": stock}
    return {"felt": mark_safe(felt), "stock_text": stock_text}


def _money(cents):
    return Decimal(format_cents(cents))


def _panel(state, legal):
    """The entries the dealer may make now, from ``legal`` (amounts as Decimal euros)."""
    panel = Attrs(phase=legal.phase, actor=legal.actor, hand=legal.hand)
    if legal.phase == DEAL:
        face_up = state.profile.face_up
        panel["deal"] = [Attrs(who=who, label=_who(who), unknown=who == BANK_ID or not face_up)
                         for who in legal.to_deal]
        return panel
    if legal.phase != PLAY:
        panel["identify"] = [_owed(o, n) for o, n in legal.identities_owed]
        return panel
    hand = state.current_hand()
    panel["actor_label"] = _who(legal.actor)
    panel["bet"] = (_money(legal.bet[0]), _money(legal.bet[1])) if legal.bet else None
    panel["fixed"] = state.profile.fixed_stake
    panel["reveal_named"] = legal.reveal and hand.cards[hand.down] is not None
    panel["muerto"] = (_money(legal.muerto[0]), _money(legal.muerto[1])) if legal.muerto else None
    panel["unknown_ok"] = not state.profile.face_up
    panel["card_form"] = (legal.draw or legal.reveal or legal.exchange or legal.fusilar or bool(legal.muerto)
                          or legal.announce)
    panel["side_bets"] = [(who, _who(who)) for who in legal.side_bet_seats]
    panel["loca_raises"] = [(p, _money(room)) for p, room in sorted(legal.loca_raises.items()) if room]
    seats_done = legal.actor in (LOCA_ID, BANK_ID)
    owed = [(owner, number) for owner, number in legal.identities_owed
            if (owner, number) != (hand.owner, hand.number) or legal.complete]
    panel["identify"] = [_owed(o, n) for o, n in owed] if seats_done else []
    return panel


def _owed(owner, number):
    return Attrs(owner=owner, number=number, label=_who(owner), key=f"identify-{owner}-{number}")


def _who(who, _=_):
    """A place as the table says it: a seat's player id, or the bank or la loca
    translated by ``_`` (Django's ``gettext``, or a view's ``gettext_in``)."""
    if who == BANK_ID:
        return _("the bank")
    if who == LOCA_ID:
        return _("la loca")
    return who


def _picker(state, language):
    """The card picker's data: ``{"deck": JSON of [suit, its name, [[card, rank], …]] in
    ``language`` (the active one), "live": the cards on the table, space-separated}``. The
    console's script draws the buttons (a card on the table disabled): they only work with it."""
    return {"deck": _deck_json(state.profile.deck, language),
            "live": " ".join(CARD_NAME[code] for code in sorted(state.live))}


@functools.lru_cache(maxsize=16)
def _deck_json(deck, language):
    """The picker's rows of ``deck`` (a ``DECKS`` key), the suits named in ``language``,
    which is active (it keys the cache)."""
    cards = DECKS[deck]
    return json.dumps([[suit, str(SUIT_NAMES[suit]), [[CARD_NAME[c], CARD_RANK[c]] for c in sorted(cards)
                                                      if CARD_SUIT[c] == suit]] for suit in SUITS],
                      ensure_ascii=False, separators=(",", ":"))


def _settlement_view(settlement):
    """A settled hand's settlement (``Settlement.as_dict()``) with Decimal euros."""
    return Attrs(bets=[Attrs(bet, stake=Decimal(bet["stake"]), net=Decimal(bet["net"]), points=_points(bet["points"]),
                             result_name=RESULT_NAMES.get(bet["result"], bet["result"])) for bet in settlement["bets"]],
                 players=[(p, Decimal(net)) for p, net in settlement["players"].items()],
                 bank=Attrs(settlement["bank"], net=Decimal(settlement["bank"]["net"]),
                            points=_points(settlement["bank"]["points"])),
                 commission=Decimal(settlement["commission"]), next_bank=settlement["next_bank"])


def _log(events, language):
    """The hand's latest events in force, newest first, numbered from 1, in ``language``
    (the active one)."""
    start = max(0, len(events) - LOG_LENGTH)
    return [(i + 1, describe_event(events[i], language=language)) for i in range(len(events) - 1, start - 1, -1)]


def describe_event(event, *, language=None):
    """One event of a hand as the table says it, in the user's language.

    Args:
        event: an event dict (``hand-record.md``; a card may be None: not yet named);
        language: the active language's code, when the caller has it at hand.
    Returns:
        str.
    """
    _ = gettext_in(language or get_language())  # Django's gettext, each string looked up once
    do = event.get("do")
    seat = _who(event.get("seat", ""), _)
    card = event.get("card")
    card = card if card is not None else "?"
    amount = event.get("amount")
    values = {"seat": seat, "card": card, "player": event.get("player"),
              "amount": floatformat_in_language(amount, "2") if amount is not None else "",
              "hand": event.get("hand")}
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
    if do == "identify":
        if event.get("natural"):
            return _("%(seat)s stands on an announced 7½: the face-down card is %(card)s") % values
        return _("%(seat)s, hand %(hand)s: the face-down card was %(card)s") % values
    return str(event)


