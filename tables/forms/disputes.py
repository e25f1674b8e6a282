"""The dispute desk's forms: a dispute opened, its decision, an incident recorded, and
the list's filters. They check what was typed; ``tables.services.disputes`` writes."""

from django import forms
from django.utils.translation import gettext_lazy as _

from patrons.forms import PlayerCodeField
from tables.models import Dispute, Incident, Table


class OptionalPlayerField(PlayerCodeField):
    """A player's id, optional: empty is None, an unknown id is refused naming it."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def clean(self, value):
        if not (value or "").strip():
            return None
        return super().clean(value.strip())


class DisputeOpenForm(forms.Form):
    """What the patron claims about the hand, and who he is (his id, optional)."""

    player = OptionalPlayerField(label=_("Patron (player id, optional)"))
    claim = forms.CharField(label=_("What is claimed"), max_length=4000, strip=True,
                            widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
                            error_messages={"required": _("Say what the patron claims.")})


#: The decision's choices: the claim rejected, upheld, or upheld with the hand voided.
VOID = "void"


class DisputeDecideForm(forms.Form):
    """The decision: rejected, upheld, or upheld with the hand voided (confirmed on a
    second page first), and the reasons."""

    outcome = forms.ChoiceField(label=_("Decision"), widget=forms.RadioSelect, choices=[
        (Dispute.Outcome.REJECTED, _("Rejected: the hand stands")),
        (Dispute.Outcome.UPHELD, _("Upheld, the hand stands")),
        (VOID, _("Upheld, void the hand (it is re-entered at the console)"))],
        error_messages={"required": _("Choose the decision.")})
    decision = forms.CharField(label=_("Reasons"), max_length=4000, strip=True,
                               widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                               error_messages={"required": _("Say why.")})

    def __init__(self, *args, voidable=True, **kwargs):
        super().__init__(*args, **kwargs)
        if not voidable:  # a hand voided already
            self.fields["outcome"].choices = self.fields["outcome"].choices[:2]


class IncidentForm(forms.Form):
    """An incident at a table: its kind, the hand's number and the patron when there are,
    what happened."""

    table = forms.ModelChoiceField(label=_("Table"), queryset=Table.objects.order_by("name"),
                                   empty_label=None)
    kind = forms.ChoiceField(label=_("Kind"), choices=Incident.Kind.choices)
    number = forms.IntegerField(label=_("Hand # (optional)"), required=False, min_value=1,
                                max_value=2_147_483_647, widget=forms.NumberInput(attrs={"size": 7}))
    player = OptionalPlayerField(label=_("Patron (player id, optional)"))
    text = forms.CharField(label=_("What happened"), max_length=4000, strip=True,
                           widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
                           error_messages={"required": _("Say what happened.")})

    def clean(self):
        data = super().clean()
        table, number = data.get("table"), data.get("number")
        data["hand"] = None
        if table is not None and number:
            data["hand"] = table.hands.filter(number=number).first()
            if data["hand"] is None:
                self.add_error("number", _("%(table)s has no hand #%(number)s.") % {"table": table.name,
                                                                                    "number": number})
        return data


class DeskFilterForm(forms.Form):
    """The list's filters (GET, each optional): a table, one of the casino's days, a
    patron (the disputes he opened or the incidents naming him)."""

    table = forms.ModelChoiceField(label=_("Table"), queryset=Table.objects.order_by("name"), required=False,
                                   empty_label=_("every table"))
    day = forms.DateField(label=_("Day"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    player = OptionalPlayerField(label=_("Patron"))
