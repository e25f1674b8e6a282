"""The cage's forms: the cashier's slips (buy-in, cash-out, bank deposit, void), a
player's record, a count by denomination, the close's supervisor signature, a patron's
identity, an alert's review. They check the shape of what was typed and name the field
at fault; the services decide (and check again under the row locks)."""

from django import forms
from django.contrib.auth import authenticate
from django.utils.translation import gettext_lazy as _

from cage.denominations import COINS, DENOMINATIONS, MAX_PIECES
from cage.services.slips import banks_taking_deposits, slip_maximum
from casino import formatting
from casino.forms import AsciiIntegerField
from casino.roles import CAGE_SUPERVISOR, has_role
from ledger.forms import EurosField
from ledger.selectors import player_balance
from patrons.forms import PlayerCodeField
from patrons.models import ExclusionSource, Player
from tables.models import BankTenure


def field_name(denomination):
    """``"0.50"`` -> ``"d0_50"``: a denomination's form field."""
    return "d" + denomination.replace(".", "_")


def denomination_label(denomination):
    """``"500 €"``, ``"0,50 €"`` in the reader's language (``denomination``: its text,
    ``"0.50"``)."""
    return formatting.money(denomination, places=None)


class CountForm(forms.Form):
    """Pieces counted per euro note and coin (blank is zero)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for denomination in DENOMINATIONS:
            self.fields[field_name(denomination)] = AsciiIntegerField(
                label=denomination_label(denomination), min_value=0, max_value=MAX_PIECES, required=False,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 0, "class": "pieces",
                                                "data-value": denomination}))

    def count_fields(self):
        """``(notes, coins)``: the bound fields of each, largest first."""
        fields = [(denomination, self[field_name(denomination)]) for denomination in DENOMINATIONS]
        return ([f for d, f in fields if d not in COINS], [f for d, f in fields if d in COINS])

    @property
    def count(self):
        """``{denomination: pieces}`` of the valid form."""
        return {d: self.cleaned_data.get(field_name(d)) or 0 for d in DENOMINATIONS}


class CloseForm(CountForm):
    """The closing count, and, on the confirmation, the supervisor's signature (his user
    name and password) and a note."""

    supervisor = forms.CharField(label=_("Cage supervisor (user)"), max_length=150, required=False)
    password = forms.CharField(label=_("Supervisor's password"), required=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "off"}))
    note = forms.CharField(label=_("Note"), required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))

    def signed_by(self, request):
        """The supervisor whose password was given, or None with the error on the form."""
        username, password = self.cleaned_data.get("supervisor"), self.cleaned_data.get("password")
        if not username or not password:
            self.add_error("supervisor", _("A cage supervisor signs the close: his user and password."))
            return None
        user = authenticate(request, username=username, password=password)
        if user is None:
            self.add_error("password", _("Wrong user or password for the supervisor."))
            return None
        if not has_role(user, CAGE_SUPERVISOR):
            self.add_error("supervisor", _("%(user)s is not a cage supervisor.") % {"user": username})
            return None
        return user


class PlayerLookupForm(forms.Form):
    """A player's id, to open his identity page."""

    code = forms.CharField(label=_("Player id"), max_length=64)


DOCUMENT_CHOICES = [("dni", _("DNI (Spanish identity card)")), ("nie", _("NIE (foreigner's number)")),
                    ("passport", _("passport")), ("eu_id", _("EU identity card")), ("other", _("other"))]


class IdentityForm(forms.Form):
    """A patron's identity: full name, document type and number, nationality, date of birth."""

    name = forms.CharField(label=_("Full name"), max_length=200)
    document_type = forms.ChoiceField(label=_("Document type"), choices=DOCUMENT_CHOICES)
    document_number = forms.CharField(label=_("Document number"), max_length=64)
    nationality = forms.CharField(label=_("Nationality (ES, FR…)"), min_length=2, max_length=2)
    date_of_birth = forms.DateField(label=_("Date of birth"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))


class ReviewForm(forms.Form):
    """A compliance officer's note on an alert."""

    note = forms.CharField(label=_("Review note"), max_length=4000, widget=forms.Textarea(attrs={"rows": 2}))


class CashierForm(forms.Form):
    """A buy-in or a cash-out: player and amount (Decimal euros, two decimals, above
    zero). Its one-time token is in the form's address (``cage.form_tokens``), so that
    the same form sent twice books one slip."""

    player = PlayerCodeField(widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off"}))
    amount = EurosField(widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))

    def clean_amount(self):
        """The amount, refused above the cage's maximum per slip (``slip_maximum``)."""
        amount = self.cleaned_data["amount"]
        if amount > slip_maximum():
            raise forms.ValidationError(_("At most %(maximum)s per slip (the cage's limit)."), code="max_value",
                                        params={"maximum": formatting.money(slip_maximum())})
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
                    params={"amount": formatting.money(amount), "player": player.code, "balance": formatting.money(balance)}))
        return cleaned


class PlayerSearchForm(forms.Form):
    """Find a player by id or name (or, at the cage's home, by document or card number)."""

    q = forms.CharField(label=_("Player id or name"), max_length=200, required=False)


class CageSearchForm(forms.Form):
    """The cage's search: a player by name, player id, document number or card number."""

    q = forms.CharField(label=_("Name, player id, document or card number"), max_length=200, required=False,
                        widget=forms.TextInput(attrs={"autofocus": True, "type": "search", "autocomplete": "off"}))


class PlayerForm(forms.ModelForm):
    """A player's record at the cage: his identity (``patrons.services``). The
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


def _date_input():
    return forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class ExclusionUploadForm(forms.Form):
    """A regulator's register file (CSV) and whose register it is
    (``patrons.admission.exclusion_load`` reads and checks it)."""

    source = forms.ChoiceField(label=_("Whose register"), choices=ExclusionSource.choices,
                               initial=ExclusionSource.RGIAJ)
    file = forms.FileField(label=_("File (CSV)"))


class SelfExclusionForm(forms.Form):
    """A patron's self-exclusion entered by hand: his document, or his name with his date
    of birth; from and until when (``patrons.admission.self_exclusion_add``)."""

    document_number = forms.CharField(label=_("Document number"), max_length=64, required=False)
    name = forms.CharField(label=_("Full name"), max_length=200, required=False)
    date_of_birth = forms.DateField(label=_("Date of birth"), required=False, widget=_date_input())
    valid_from = forms.DateField(label=_("Valid from"), required=False, widget=_date_input())
    valid_until = forms.DateField(label=_("Valid until (blank: indefinitely)"), required=False, widget=_date_input())
    note = forms.CharField(label=_("Note"), max_length=500, required=False)
