"""The dealer console's forms: they check the shape of what the dealer typed or tapped and
turn it into one engine event (``hand-record.md``); the rules are the engine's, checked by
``tables.services.hand_record_event``.

Every entry form carries the hand's ``version`` the screen showed (the service's
``expected_version``) and a one-time ``token`` (its ``form_token``): a double click or a
refresh records the entry once; an entry from a stale screen is refused.
"""

import re
import uuid
from decimal import Decimal, InvalidOperation

from django import forms
from django.utils.translation import gettext_lazy as _

from game.cards import CARD_NAME, DECK_SPELLINGS, FRENCH_SPELLINGS, parse_card
from game.hand import BANK_ID, LOCA_CALLS, LOCA_ID, valid_player_id
from ledger.forms import read_grouping

#: The console's actions: ``action`` -> (event ``do``, card face down, card unknown).
#: A button names its action; "-down" and "-unknown" are the same event with a
#: face-down card, named or not yet named.
ACTIONS = {
    "deal": ("deal", False, False),
    "deal-unknown": ("deal", False, True),
    "bet": ("bet", False, False),
    "card": ("card", False, False),
    "card-down": ("card", True, False),
    "card-unknown": ("card", True, True),
    "reveal": ("reveal", False, False),
    "stand": ("stand", False, False),
    "split": ("split", False, False),
    "exchange": ("exchange", False, False),
    "exchange-unknown": ("exchange", False, True),
    "fusilar": ("fusilar", False, False),
    "fusilar-unknown": ("fusilar", False, True),
    "muerto": ("muerto", False, False),
    "muerto-unknown": ("muerto", False, True),
    "shuffle": ("shuffle", False, False),
    "identify": ("identify", False, False),
    "announce": ("identify", False, False),
    # La loca's calls (``loca_calls``): the action is the call, made by its responsable.
    **{call: ("loca_call", False, False) for call in LOCA_CALLS},
}
#: Events that name a card (``reveal`` may: a face-down card entered unknown).
_CARD_EVENTS = frozenset(("deal", "card", "exchange", "fusilar", "muerto", "identify"))
_AMOUNT_EVENTS = frozenset(("bet", "muerto"))
_AMOUNT = re.compile(r"[0-9]{1,10}(?:[.,][0-9]{1,2})?\Z")
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_stake(text):
    """A stake typed by the dealer as ``Decimal`` euros with two places.

    Args:
        text: ``"10"``, ``"12.50"`` or ``"12,50"`` (the Spanish decimal comma), or grouped in
        the reader's format (``"1.000,50"``).
    Returns:
        Decimal above zero, quantized to cents.
    Raises:
        forms.ValidationError: empty, not an amount of euros with at most two decimals, or zero.
    """
    text = (text or "").strip().replace("€", "").strip()
    if not text:
        raise forms.ValidationError(_("Enter the stake: type it (10, 12,50) or use a chip."),
                                    code="amount")
    if not _AMOUNT.match(text):
        try:  # "1.000,50" or "1 000,50", as the cage's amounts (``ledger.forms.read_grouping``)
            text = read_grouping(text)
        except forms.ValidationError:
            pass
    if not _AMOUNT.match(text):
        raise forms.ValidationError(
            _("%(value)s is not an amount of euros: write it like 10 or 12,50 (at most two decimals)."),
            code="amount", params={"value": text or "–"})
    try:
        amount = Decimal(text.replace(",", ".")).quantize(Decimal("0.01"))
    except InvalidOperation:  # pragma: no cover - the pattern only lets numbers through
        raise forms.ValidationError(_("%(value)s is not an amount of euros."), code="amount",
                                    params={"value": text}) from None
    if amount <= 0:
        raise forms.ValidationError(_("A stake is above zero."), code="amount")
    return amount


def parse_card_text(text, deck=None):
    """A card typed or picked by the dealer, in the record's written form.

    Args:
        text: ``"7O"``, ``"11c"``, ``"rb"``, ``"sO"`` (rank then suit, any case); at a
            French table ``"AS"``, ``"qd"``, ``"7h"``.
        deck: the table's deck option; None reads a card of either family of decks (the
            engine then refuses one not of the table's deck, naming it). A French deck
            reads French cards only.
    Returns:
        str, the written form (``"12B"``, ``"QD"``).
    Raises:
        forms.ValidationError: not a card (of the table's deck, where it is given).
    """
    written = (text or "").strip().replace(" ", "")
    french = deck is not None and DECK_SPELLINGS[deck] is FRENCH_SPELLINGS
    code = parse_card(written, deck) if deck is not None else parse_card(written)
    if code is None and deck is None:
        code = parse_card(written, "french-40")
    if code is None:
        if french:
            raise forms.ValidationError(
                _("%(value)s is not a card of the French deck: write the rank (A, 2–7, J, Q, K) then the "
                  "suit (S, H, D, C), like AS or qd."),
                code="card", params={"value": text.strip() or "–"})
        raise forms.ValidationError(
            _("%(value)s is not a card: write the rank (1–7, 10/s, 11/c, 12/r) then the suit "
              "(O, C, E, B), like 7O or 11c."),
            code="card", params={"value": text.strip() or "–"})
    return CARD_NAME[code]


class EntryForm(forms.Form):
    """One entry at the table: the action of the button pressed and its card, stake,
    bettor or hand. ``event`` is the engine event once the form is valid.

    Fields: ``action`` (a key of ``ACTIONS``), ``seat`` (a seated player id, ``bank`` or
    ``loca``), ``card``, ``amount`` (euros), ``player`` (a side bettor or a loca bettor;
    la loca's responsable, with its calls), ``hand`` (the seat's hand whose card is
    identified); ``number`` (the table's hand the screen showed), ``version`` and ``token``.

    Args (besides Django's): ``deck``, keyword only: the table's deck option, for a card's
    message; None (the console's hot path, which reads no table before the service) reads
    a card of either deck and leaves the deck to the engine.
    """

    action = forms.ChoiceField(label=_("Action"), choices=[(a, a) for a in ACTIONS])
    seat = forms.CharField(label=_("Seat"), max_length=64, required=False)
    card = forms.CharField(label=_("Card"), max_length=8, required=False)
    amount = forms.CharField(label=_("Stake (€)"), max_length=16, required=False)
    player = forms.CharField(label=_("Bettor"), max_length=64, required=False)
    hand = forms.IntegerField(label=_("Hand"), min_value=1, max_value=99, required=False)
    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    token = forms.UUIDField(widget=forms.HiddenInput)

    def __init__(self, *args, deck=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deck = deck

    def clean_seat(self):
        seat = self.cleaned_data["seat"].strip()
        if seat and seat not in (BANK_ID, LOCA_ID) and not valid_player_id(seat):
            raise forms.ValidationError(_("%(value)s is not a seat at this table."), code="seat",
                                        params={"value": seat})
        return seat

    def clean_player(self):
        player = self.cleaned_data["player"].strip()
        if player and not valid_player_id(player):
            raise forms.ValidationError(
                _("%(value)s is not a player id: 1–64 letters, digits, _ - . (not bank or loca)."),
                code="player", params={"value": player})
        return player

    def clean(self):
        cleaned = super().clean()
        action = cleaned.get("action")
        if action is None or self.errors:
            return cleaned
        do, down, unknown = ACTIONS[action]
        event = {"do": do}
        if do != "shuffle":
            if not cleaned.get("seat"):
                self.add_error("seat", forms.ValidationError(_("Say whose entry it is."), code="seat"))
                return cleaned
            event["seat"] = cleaned["seat"]
        card_text = (cleaned.get("card") or "").strip()
        if unknown:
            if card_text:
                self.add_error("card", forms.ValidationError(
                    _("An unknown card is entered without its name: clear the card box, or enter "
                      "the card face down."), code="card"))
                return cleaned
            event["card"] = None
        elif do in _CARD_EVENTS or (do == "reveal" and card_text):
            try:
                event["card"] = parse_card_text(card_text, self.deck) if card_text else _no_card(self.deck)
            except forms.ValidationError as error:
                self.add_error("card", error)
                return cleaned
        if down:
            event["down"] = True
        if do in _AMOUNT_EVENTS:
            try:
                event["amount"] = f"{parse_stake(cleaned.get('amount')):.2f}"
            except forms.ValidationError as error:
                self.add_error("amount", error)
                return cleaned
            if do == "bet" and cleaned.get("player"):
                event["player"] = cleaned["player"]
        if do == "loca_call":
            if not cleaned.get("player"):
                self.add_error("player", forms.ValidationError(
                    _("Say who is la loca's responsable: one of its bettors."), code="player"))
                return cleaned
            event["call"], event["responsable"] = action, cleaned["player"]
        if do == "identify":
            if cleaned.get("hand") is None:
                self.add_error("hand", forms.ValidationError(_("Say which hand the card belongs to."),
                                                             code="hand"))
                return cleaned
            event["hand"] = cleaned["hand"]
            if action == "announce":  # the seat stands on an announced 7½, showing its card
                event["natural"] = True
        self.event = event
        return cleaned


def _no_card(deck=None):
    if deck is not None and DECK_SPELLINGS[deck] is FRENCH_SPELLINGS:
        raise forms.ValidationError(_("Enter the card: type it (AS, 7h, qd) or tap it below."), code="card")
    raise forms.ValidationError(_("Enter the card: type it (7O, 11c, rb) or tap it below."), code="card")


class UndoForm(forms.Form):
    """Undo the latest event of the open hand: the reason is required and recorded;
    ``number``, ``version`` and ``token`` as in ``EntryForm``."""

    reason = forms.CharField(label=_("Reason"), max_length=300,
                             error_messages={"required": _("Say why the event is undone.")},
                             widget=forms.TextInput(attrs={"autocomplete": "off"}))
    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    token = forms.UUIDField(widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("token", uuid.uuid4())


class OpenHandForm(forms.Form):
    """The next hand: its seats in order of play (player ids separated by spaces or
    commas). ``after`` is the number of the table's last hand the screen showed, so that
    the same form sent twice opens one hand."""

    seats = forms.CharField(label=_("Seats in order of play"), max_length=9 * 66,
                            help_text=_("Player ids separated by spaces or commas, the bank's right first."),
                            widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none"}))
    after = forms.IntegerField(widget=forms.HiddenInput, min_value=0)

    def clean_seats(self):
        codes = [code for code in _SEPARATORS.split(self.cleaned_data["seats"]) if code]
        if not codes:
            raise forms.ValidationError(_("Seat at least one player."), code="seats")
        bad = [code for code in codes if not valid_player_id(code)]
        if bad:
            raise forms.ValidationError(_("Not player ids: %(codes)s."), code="seats",
                                        params={"codes": ", ".join(bad)})
        return codes
