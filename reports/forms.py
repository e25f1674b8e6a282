"""The auditors' forms: which report to compute. They check the shape; the service
(``reports.services.report_request``) checks the subject again and queues it."""

from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from reports.services import MAX_PERIOD_DAYS
from tables.models import Shift, Table


def check_period(form, cleaned: dict, max_days: int) -> dict:
    """A form's ``date_from``–``date_to`` checked (both included): one that ends before it
    begins, or spans ``max_days`` days or more, is an error on ``date_to`` (codes
    ``backwards``, ``too_long``). Returns ``cleaned``."""
    start, end = cleaned.get("date_from"), cleaned.get("date_to")
    if start and end:
        if end < start:
            form.add_error("date_to", forms.ValidationError(_("The period ends before it begins."), code="backwards"))
        elif (end - start).days >= max_days:
            form.add_error("date_to", forms.ValidationError(_("A period is at most %(days)s days."),
                                                            code="too_long", params={"days": max_days}))
    return cleaned


class ShiftReportForm(forms.Form):
    """The shift to report on (its table follows)."""

    shift = forms.ModelChoiceField(queryset=Shift.objects.select_related("table"), label=_("Shift"),
                                   widget=forms.HiddenInput)


class BankReportForm(forms.Form):
    """A table and a period of whole days (both included, the casino's time zone)."""

    table = forms.ModelChoiceField(queryset=Table.objects.order_by("name"), label=_("Table"),
                                   empty_label=_("choose a table"))
    date_from = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    date_to = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            yesterday = timezone.localdate() - timedelta(days=1)
            self.initial.setdefault("date_from", yesterday)
            self.initial.setdefault("date_to", yesterday)

    def clean(self):
        return check_period(self, super().clean(), MAX_PERIOD_DAYS)
