"""The cashier's forms: they check the shape of what was typed and name the field at
fault; the services do the posting (and check again under the row locks)."""

import re
from contextlib import contextmanager
from decimal import Decimal

from django import forms
from django.utils.formats import get_format
from django.utils.translation import gettext_lazy as _

from ledger.models import BankTenure
from ledger.money import show
from ledger.selectors import player_balance
from ledger.services.cage import banks_taking_deposits, slip_maximum
from tables.models import Player


class PlayerCodeField(forms.CharField):
    """A player's id as hand records write it (``luis``), cleaned to the ``Player``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Player id"))
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def clean(self, value):
        code = super().clean(value)
        player = Player.objects.filter(code=code).first() or Player.objects.filter(code__iexact=code).first()
        if player is None:
            raise forms.ValidationError(_("No player has the id %(code)s."), code="unknown_player",
                                        params={"code": code})
        return player


def read_grouping(text):
    """``text`` as typed, with its thousands grouping taken out where it is well formed.

    A group separator is the reader's own (a no-break space in Spanish, as the site prints
    ``1 250,00 €``), a space, or the other one of point and comma (``1.250,50`` in Spanish,
    ``1,250.50`` in English).

    Args:
        text: what was typed in an amount field (``str``).
    Returns:
        ``str``: the amount without its grouping (``"1250,50"``, ``"1250.50"``), or ``text``
        stripped when it has none (``"12,50"``; ``"12.50"``, a decimal point, which Django
        accepts in every language).
    Raises:
        ``forms.ValidationError`` (code ``grouping``) when a group separator is there but not
        in groups of three followed by the cents: ``"1.250"`` in Spanish could be 1250 or
        1,25, so it is refused with an example rather than guessed.
    """
    text = text.strip()
    decimal = get_format("DECIMAL_SEPARATOR")
    separators = {get_format("THOUSAND_SEPARATOR"), " ", "\xa0", "\u202f", "," if decimal == "." else "."}
    separators.discard(decimal)
    used = {char for char in text if char in separators}
    if not used or (used == {"."} and re.fullmatch(r"\d+\.\d{1,2}", text)):
        return text
    if len(used) > 1:
        used = {None}  # mixed separators: refused below
    group = re.escape(used.pop() or "?")
    if not re.fullmatch(rf"\d{{1,3}}(?:{group}\d{{3}})+{re.escape(decimal)}\d{{1,2}}", text):
        example = "1.250,50" if decimal == "," else "1,250.50"
        raise forms.ValidationError(
            _("Write the amount as %(example)s or %(plain)s: thousands in groups of three, then the cents."),
            code="grouping", params={"example": example, "plain": example.replace(example[1], "")})
    return re.sub(group, "", text)


class EurosField(forms.DecimalField):
    """An amount of euros above zero with at most two decimals, typed in the reader's format
    (``1250,50`` or ``1.250,50`` in Spanish; see ``read_grouping``), cleaned to a ``Decimal``.
    Below one cent it is refused with the least amount in the reader's format (``0,01 €``;
    Django's own message prints the limit as ``0.01`` in every language). Keyword arguments
    as ``forms.DecimalField``'s; the widget asks phones for the decimal keypad."""

    LEAST = Decimal("0.01")

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Amount (€)"))
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
        super().__init__(max_digits=12, decimal_places=2, localize=True, **kwargs)
        self.error_messages["invalid"] = _("Enter an amount in euros, such as %(example)s.")

    def bound_data(self, data, initial):
        """What was typed, drawn again in the reader's format once it reads as an amount
        (``20.00`` from a link, or ``1.250,50``, shown as ``20,00`` and ``1250,50`` to a
        Spanish reader); anything else as typed, for him to correct."""
        if data in self.empty_values:
            return data
        try:
            value = self.to_python(data)
        except forms.ValidationError:
            return data
        return value if value is not None and value.is_finite() else data

    def to_python(self, value):
        if isinstance(value, str):
            value = read_grouping(value)
        with self._example_on_invalid():
            return super().to_python(value)

    @contextmanager
    def _example_on_invalid(self):
        """Django's "invalid" refusals (words, NaN, infinity) given the example they name."""
        try:
            yield
        except forms.ValidationError as error:
            if getattr(error, "code", None) != "invalid":
                raise
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid",
                                        params={"example": f"1250{get_format('DECIMAL_SEPARATOR')}50"}) from None

    def validate(self, value):
        with self._example_on_invalid():
            super().validate(value)
        if value is not None and value < self.LEAST:
            raise forms.ValidationError(_("Enter an amount of at least %(least)s."), code="min_value",
                                        params={"least": show(self.LEAST)})


class CashierForm(forms.Form):
    """A buy-in or a cash-out: player and amount (Decimal euros, two decimals, above
    zero). Its one-time token is in the form's address (``ledger.slip_forms``), so that
    the same form sent twice books one slip."""

    player = PlayerCodeField(widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off"}))
    amount = EurosField(widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))

    def clean_amount(self):
        """The amount, refused above the cage's maximum per slip (``slip_maximum``)."""
        amount = self.cleaned_data["amount"]
        if amount > slip_maximum():
            raise forms.ValidationError(_("At most %(maximum)s per slip (the cage's limit)."), code="max_value",
                                        params={"maximum": show(slip_maximum())})
        return amount


class TenureChoiceField(forms.ModelChoiceField):
    """A bank awaiting its deposits, shown as ``Mesa 1 · ana · #12``."""

    def label_from_instance(self, obj):
        return f"{obj.table.name} · {obj.holder.code} · #{obj.pk}"


class BankDepositForm(CashierForm):
    """A bank deposit at the cage: the bank (an open tenure opened by the pit, or one whose
    rebuild the pit ordered, awaiting its deposits), the syndicate member depositing and the amount (at most what he owes:
    checked by ``cashier_bank_deposit``)."""

    tenure = TenureChoiceField(label=_("Bank"), queryset=BankTenure.objects.none(),
                               empty_label=_("— choose the bank —"))
    field_order = ["tenure", "player", "amount"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tenure"].queryset = banks_taking_deposits()
        self.fields["player"].widget.attrs.pop("autofocus", None)


class CashOutForm(CashierForm):
    """A cash-out: refused above the player's chips (the message says his balance)."""

    def clean(self):
        cleaned = super().clean()
        player, amount = cleaned.get("player"), cleaned.get("amount")
        if player is not None and amount is not None:
            balance = player_balance(player=player)
            if amount > balance:
                self.add_error("amount", forms.ValidationError(
                    _("The cash-out of %(amount)s is above %(player)s's balance of %(balance)s."),
                    code="insufficient_chips",
                    params={"amount": show(amount), "player": player.code, "balance": show(balance)}))
        return cleaned


class PlayerSearchForm(forms.Form):
    """Find a player by id or name (or, at the cage's home, by document or card number)."""

    q = forms.CharField(label=_("Player id or name"), max_length=200, required=False)


class CageSearchForm(forms.Form):
    """The cage's search: a player by name, player id, document number or card number."""

    q = forms.CharField(label=_("Name, player id, document or card number"), max_length=200, required=False,
                        widget=forms.TextInput(attrs={"autofocus": True, "type": "search", "autocomplete": "off"}))


class PlayerForm(forms.ModelForm):
    """A player's record at the cage: his identity (``ledger.services.patrons``). The
    player id is typed at registration only."""

    class Meta:
        model = Player
        fields = ["code", "name", "document_type", "document_number", "nationality", "date_of_birth", "card_number"]
        widgets = {"date_of_birth": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
                   "code": forms.TextInput(attrs={"autofocus": True, "autocomplete": "off"})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            del self.fields["code"]
            self.fields["name"].widget.attrs["autofocus"] = True
        self.fields["name"].required = True


class SlipVoidForm(forms.Form):
    """A slip's void: its reason, in words."""

    reason = forms.CharField(label=_("Reason for the void"), max_length=500,
                             widget=forms.Textarea(attrs={"rows": 3, "autofocus": True}))
