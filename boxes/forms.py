"""The boxes' forms: a table buy-in at the console, a box's count by denomination, a
variance's explanation. They check the shape of what was typed and name the field at
fault; ``boxes.services`` writes and checks again under the session's row lock. Amounts
are ``Decimal`` euros with two places (a Spanish ``150,50`` is accepted)."""

import uuid

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from boxes.models import BoxCount, TableTip
from boxes.services import denominations
from casino import formatting
from casino.forms import AsciiIntegerField
from casino.roles import ROLES
from ledger.forms import EurosField
from patrons.forms import PlayerCodeField


class TableBuyInForm(forms.Form):
    """Cash for chips at the table: the player, the amount; a one-time token so that the
    form sent twice posts once."""

    player = PlayerCodeField(label=_("Player id"))
    amount = EurosField()
    token = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["token"].initial = uuid.uuid4().hex
        self.fields["player"].widget.attrs.update(autocomplete="off", autocapitalize="none", autofocus=True)
        self.fields["amount"].widget.attrs.update(inputmode="decimal")


class UserChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj):
        full = obj.get_full_name()
        return f"{obj.get_username()} · {full}" if full else obj.get_username()


def _field_name(value):
    return "d_" + str(value).replace(".", "_")


class BoxCountForm(forms.Form):
    """One box counted: which box, the two counters (active staff, not a dealer of the
    session, ``dealers``: the ids of its first dealer and of those who relieved him,
    ``boxes.services.session_dealers``; they are not offered, and the service refuses
    them by name), the pieces of each denomination."""

    box = forms.ChoiceField(label=_("Box"), choices=BoxCount.Box.choices)
    first_counter = UserChoiceField(label=_("First counter"), queryset=get_user_model().objects.none(),
                                    empty_label=_("— who counted —"))
    second_counter = UserChoiceField(label=_("Second counter"), queryset=get_user_model().objects.none(),
                                     empty_label=_("— who counted with him —"))

    def __init__(self, *args, boxes=None, dealers=(), **kwargs):
        super().__init__(*args, **kwargs)
        if boxes is not None:
            self.fields["box"].choices = [(value, label) for value, label in BoxCount.Box.choices if value in boxes]
        staff = (get_user_model().objects.filter(is_active=True, groups__name__in=ROLES)
                 .order_by("username").distinct())
        if dealers:
            staff = staff.exclude(pk__in=list(dealers))
        for name in ("first_counter", "second_counter"):
            self.fields[name].queryset = staff
            self.fields[name].error_messages["invalid_choice"] = _(
                "Choose an active member of staff who did not deal this session.")
        self.values = denominations()
        for value in self.values:
            self.fields[_field_name(value)] = AsciiIntegerField(
                label=formatting.money(value), min_value=0,
                max_value=10**6, required=False, widget=forms.NumberInput(attrs={"inputmode": "numeric"}))

    def denomination_fields(self):
        return [self[_field_name(value)] for value in self.values]

    def pieces(self):
        """``{"50.00": 3}`` from the cleaned form (empty boxes: zero)."""
        return {str(value): self.cleaned_data.get(_field_name(value)) or 0 for value in self.values}


class VarianceNoteForm(forms.Form):
    """Why a count differs from the records."""

    text = forms.CharField(label=_("Explanation"), widget=forms.Textarea(attrs={"rows": 2}), max_length=2000)


class OptionalPlayerCodeField(PlayerCodeField):
    """A player's id, or nothing (None)."""

    def clean(self, value):
        if not (value or "").strip():
            return None
        return super().clean(value)


class TableTipForm(forms.Form):
    """A tip at the table: paid in chips by a player (his id) or in cash put straight
    into the box (no player); the amount; a one-time token so that the form sent twice
    records once."""

    kind = forms.ChoiceField(label=_("Paid in"), choices=TableTip.Kind.choices, initial=TableTip.Kind.CHIPS,
                             widget=forms.RadioSelect)
    player = OptionalPlayerCodeField(label=_("Player id (chips)"), required=False)
    amount = EurosField()
    token = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["token"].initial = uuid.uuid4().hex
        self.fields["player"].widget.attrs.update(autocomplete="off", autocapitalize="none", autofocus=True)
        self.fields["amount"].widget.attrs.update(inputmode="decimal", autocomplete="off")

    def clean(self):
        data = super().clean()
        kind, player = data.get("kind"), data.get("player")
        if kind == TableTip.Kind.CHIPS and player is None and not self.has_error("player"):
            self.add_error("player", _("A tip in chips is a player's: give his id (or choose cash)."))
        if kind == TableTip.Kind.CASH and player is not None:
            self.add_error("player", _("A cash tip is recorded without a player: leave the id empty."))
        return data


class BoxRecountForm(BoxCountForm):
    """A box counted again: the two counters, the pieces, and why it is counted again."""

    reason = forms.CharField(label=_("Why it is counted again"), widget=forms.Textarea(attrs={"rows": 2}),
                             max_length=2000)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["box"]
