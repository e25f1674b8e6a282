"""The pit supervisor's forms: shifts, the bank between hands, voids.

They check the shape of what was typed and name the field at fault; the services in
``tables.services`` do the writing and check again under the table's row lock.
Amounts are ``Decimal`` euros with two places (a Spanish ``150,50`` is accepted).
"""

import re
import uuid
from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from casino.roles import DEALER
from ledger.chips import check_chips_to_give
from ledger.forms import EurosField
from ledger.shares import HUNDRED
from patrons.forms import PlayerCodeField
from patrons.models import Player
from tables.models import Shift, Table

#: One syndicate member: a player id, then his percentage (``ana 60``, ``luis: 33,33 %``).
_MEMBER = re.compile(r"\s*(?P<code>[\w.\-]+)(?:\s*[:=]\s*|\s+)(?P<percent>[0-9]+(?:[.,][0-9]+)?)\s*%?\s*[,;]?",
                     re.ASCII)


def dealers():
    """Active users holding the dealer role, by username."""
    return (get_user_model().objects.filter(is_active=True, groups__name=DEALER)
            .order_by("username").distinct())


class DealerChoiceField(forms.ModelChoiceField):
    """A dealer, shown by username (and full name when known)."""

    def label_from_instance(self, obj):
        full = obj.get_full_name()
        return f"{obj.get_username()} · {full}" if full else obj.get_username()


class DealerReliefForm(forms.Form):
    """Relieve a table's dealer: the relieving dealer, a user with the dealer role who
    deals at no open shift (``tables.rotation.free_dealers``)."""

    dealer = DealerChoiceField(label=_("Relieving dealer"), queryset=get_user_model().objects.none(),
                               empty_label=_("— choose a dealer —"),
                               error_messages={"required": _("Choose the dealer who takes the table.")})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        busy = Shift.objects.filter(closed_at__isnull=True).values("current_dealer_id")
        self.fields["dealer"].queryset = dealers().exclude(pk__in=busy)
        self.fields["dealer"].error_messages["invalid_choice"] = _(
            "That user is not a free dealer: he deals at an open table or has no dealer role.")


class ShiftOpenForm(forms.Form):
    """Open a dealer's shift: a table without an open shift, a user with the dealer role."""

    table = forms.ModelChoiceField(label=_("Table"), queryset=Table.objects.none(),
                                   empty_label=_("— choose a table —"),
                                   error_messages={"required": _("Choose the table of the shift.")})
    dealer = DealerChoiceField(label=_("Dealer"), queryset=get_user_model().objects.none(),
                               empty_label=_("— choose a dealer —"),
                               error_messages={"required": _("Choose the dealer of the shift.")})

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        on_shift = Shift.objects.filter(closed_at__isnull=True).values("table_id")
        self.fields["table"].queryset = Table.objects.exclude(pk__in=on_shift).order_by("name")
        self.fields["table"].error_messages["invalid_choice"] = _(
            "That table does not exist or already has an open shift: close it first.")
        self.fields["dealer"].queryset = dealers()
        self.fields["dealer"].error_messages["invalid_choice"] = _(
            "That user is not an active dealer: an administrator gives him the dealer role.")


class SharesField(forms.CharField):
    """A bank's syndicate: one member per line (or separated by ``;`` or ``,``), each a
    player id and a percentage: ``ana 60`` / ``luis 40``. Empty: the holder alone.

    Cleans to ``[(Player, Decimal percent)]`` (percentages above 0, at most two decimals,
    summing to 100) or None.
    """

    widget = forms.Textarea(attrs={"rows": 3, "cols": 30, "placeholder": "ana 60\nluis 40"})

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Syndicate shares (optional)"))
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", _("One member per line: player id and percent, e.g. “ana 60”. "
                                         "Empty: the holder puts in all the capital."))
        kwargs.setdefault("max_length", 2000)
        super().__init__(**kwargs)

    def clean(self, value):
        text = super().clean(value)
        if not text.strip():
            return None
        members, position = [], 0
        while position < len(text):
            match = _MEMBER.match(text, position)
            if match is None or match.end() == position:
                rest = text[position:].strip()
                if not rest:
                    break
                raise forms.ValidationError(
                    _("Write each member as a player id and a percent, e.g. “ana 60”; cannot read “%(text)s”."),
                    code="syntax", params={"text": rest[:40]})
            members.append((match["code"], Decimal(match["percent"].replace(",", "."))))
            position = match.end()
        codes = [code for code, _percent in members]
        if len(set(codes)) != len(codes):
            raise forms.ValidationError(_("A player appears twice in the syndicate."), code="duplicate")
        found = {p.code: p for p in Player.objects.filter(code__in=codes)}
        missing = [code for code in codes if code not in found]
        if missing:
            raise forms.ValidationError(_("No player has the id %(codes)s."), code="unknown_player",
                                        params={"codes": ", ".join(missing)})
        for code, percent in members:
            if percent <= 0 or percent != percent.quantize(Decimal("0.01")):
                raise forms.ValidationError(
                    _("%(code)s's share must be above 0 with at most two decimals, not %(percent)s."),
                    code="percent", params={"code": code, "percent": percent})
        total = sum((percent for _code, percent in members), Decimal(0))
        if total != HUNDRED:
            raise forms.ValidationError(_("The shares sum to %(total)s %%, not 100 %%."), code="total",
                                        params={"total": total})
        return [(found[code], percent) for code, percent in members]


def _money(label):
    return EurosField(label=label)


class BankDrawForm(forms.Form):
    """The bank drawn for at the start of a session: holder, capital, optional syndicate."""

    holder = PlayerCodeField(label=_("Bank holder (player id)"))
    capital = _money(_("Capital (€)"))
    shares = SharesField()

    #: The services' ``field`` names mapped to this form's fields.
    service_fields = {"holder": "holder", "capital": "capital", "shares": "shares"}


class BankSellForm(forms.Form):
    """The bank sold between hands: the buyer pays the price and puts in his capital."""

    buyer = PlayerCodeField(label=_("Buyer (player id)"))
    price = _money(_("Price (€)"))
    capital = _money(_("Capital (€)"))
    shares = SharesField()

    service_fields = {"holder": "buyer", "seller": "buyer", "price": "price", "capital": "capital",
                      "shares": "shares"}


class BankTransferForm(BankDrawForm):
    """The bank handed over between hands without a price: a draw's fields, to a new holder."""

    holder = PlayerCodeField(label=_("New holder (player id)"))


class HandVoidForm(forms.Form):
    """Why a hand is voided: kept with the void entry and the ledger's reversal."""

    reason = forms.CharField(label=_("Reason"), max_length=500, strip=True,
                             widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                             error_messages={"required": _("Say why the hand is voided.")})


def shares_text(shares):
    """``[(Player, Decimal)]`` written back as the form reads it (``ana 60\\nluis 40``)."""
    return "\n".join(f"{player.code} {percent}" for player, percent in shares or ())


class ChipTransferForm(forms.Form):
    """Chips handed from one player to another at the pit's sight: both players' ids, the
    amount (Decimal euros, two decimals, above zero), the reason, and a one-time token so
    that the confirmation sent twice posts once."""

    giver = PlayerCodeField(label=_("From (player id)"))
    receiver = PlayerCodeField(label=_("To (player id)"))
    amount = EurosField()
    reason = forms.CharField(label=_("Reason"), max_length=500, strip=True,
                             widget=forms.Textarea(attrs={"rows": 2, "cols": 30}),  # fits a phone
                             error_messages={"required": _("Say why the chips change hands.")})
    token = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("token", uuid.uuid4().hex)
        self.fields["giver"].widget.attrs.update(autofocus=True, autocomplete="off")
        self.fields["receiver"].widget.attrs.update(autocomplete="off")

    def clean(self):
        """The same player twice refused on ``receiver``; an amount the giver cannot give
        refused on ``amount`` with the service's words (``ledger.chips.check_chips_to_give``),
        before the confirmation page."""
        cleaned = super().clean()
        giver, receiver, amount = cleaned.get("giver"), cleaned.get("receiver"), cleaned.get("amount")
        if giver is not None and receiver is not None and giver.pk == receiver.pk:
            self.add_error("receiver", forms.ValidationError(
                _("%(player)s cannot transfer chips to himself: name another player."), code="same_player",
                params={"player": giver.code}))
        if giver is not None and amount is not None:
            try:
                check_chips_to_give(giver=giver, amount=amount)
            except forms.ValidationError as refusal:
                self.add_error("amount", refusal)
        return cleaned

    @property
    def idempotency_key(self):
        return f"form:{self.cleaned_data['token']}"


class ReliefOrderField(forms.CharField):
    """A pit's relief order: dealers' usernames in turn, separated by commas, spaces or
    lines (``dealer2, dealer3``); cleaned to the users, in order. Each must be an active
    dealer, named once."""

    def clean(self, value):
        value = super().clean(value)
        names = [name for name in re.split(r"[\s,;]+", value or "") if name]
        if not names:
            raise forms.ValidationError(_("Name at least one relief dealer (usernames in turn)."), code="required")
        found = {user.get_username().lower(): user for user in dealers()}
        users, seen = [], set()
        for name in names:
            user = found.get(name.lower())
            if user is None:
                raise forms.ValidationError(_("%(name)s is not an active dealer: check the username."),
                                            params={"name": name}, code="unknown")
            if user.pk in seen:
                raise forms.ValidationError(_("%(name)s is named twice: each relief dealer once."),
                                            params={"name": name}, code="twice")
            seen.add(user.pk)
            users.append(user)
        return users


class RotationPlanForm(forms.Form):
    """A pit's rotation plan (a new version of it): its name (a new pit only), a dealer's
    minutes at a table before relief (20 to 40), its tables, the relief order, a note."""

    name = forms.CharField(label=_("Pit"), max_length=64, required=False)
    minutes = forms.IntegerField(
        label=_("Minutes at a table before relief"), min_value=20, max_value=40,
        error_messages={"required": _("Say how many minutes a dealer deals before relief (20 to 40)."),
                        "invalid": _("Minutes: a whole number, 20 to 40."),
                        "min_value": _("Minutes: at least 20."), "max_value": _("Minutes: at most 40.")})
    tables = forms.ModelMultipleChoiceField(
        label=_("Tables of the pit"), queryset=Table.objects.none(), widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one table of the pit."),
                        "invalid_choice": _("That table does not exist.")})
    dealers = ReliefOrderField(
        label=_("Relief order"), max_length=500, widget=forms.TextInput(attrs={"autocomplete": "off"}),
        help_text=_("usernames of the relief dealers in turn, separated by commas: the first free one relieves "
                    "the table due first"),
        error_messages={"required": _("Name at least one relief dealer (usernames in turn).")})
    note = forms.CharField(label=_("Note"), max_length=200, required=False)

    def __init__(self, *args, new_pit=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.new_pit = new_pit
        self.fields["tables"].queryset = Table.objects.order_by("name")
        if new_pit:
            self.fields["name"].required = True
            self.fields["name"].error_messages["required"] = _("Name the pit.")
        else:
            del self.fields["name"]
