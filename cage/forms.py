"""The cage's forms: a count by denomination, the close's supervisor signature, a patron's
identity, an alert's review. They check the shape of what was typed; the services decide."""

from django import forms
from django.contrib.auth import authenticate
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from cage.denominations import COINS, DENOMINATIONS, MAX_PIECES
from casino.roles import CAGE_SUPERVISOR, has_role


def field_name(denomination):
    """``"0.50"`` -> ``"d0_50"``: a denomination's form field."""
    return "d" + denomination.replace(".", "_")


def denomination_label(denomination):
    """``"500 €"``, ``"0,50 €"`` in the reader's language."""
    from decimal import Decimal

    value = Decimal(denomination)
    return f"{number_format(value, 0 if value == value.to_integral() else 2)} €"


class CountForm(forms.Form):
    """Pieces counted per euro note and coin (blank is zero)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for denomination in DENOMINATIONS:
            self.fields[field_name(denomination)] = forms.IntegerField(
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
