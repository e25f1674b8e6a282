"""django-filter filter sets of the API's lists (query parameters; an invalid value is
answered 400 naming the parameter)."""

from datetime import UTC

import django_filters as filters
from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_filters.fields import IsoDateTimeField

from cage.models import CashierSlip
from casino.periods import gaming_day_bounds
from ledger.models import Account
from patrons.models import Player
from reports.models import Alert, AlertKind, Report, ReportRequest
from tables.models import BankTenure, Dispute, Hand, HandEvent, Incident, Shift, Table


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO 8601 datetime, turned to UTC (PostgreSQL refuses offsets beyond ±15:59)."""

    def to_python(self, value):
        value = super().to_python(value)
        if value is None:
            return None
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError(_("this moment is out of range"), code="invalid") from None


class MomentFilter(filters.IsoDateTimeFilter):
    """An ISO 8601 datetime filter (``2024-05-31T22:00:00+02:00``)."""

    field_class = UtcIsoDateTimeField


class TableFilter(filters.FilterSet):
    """Tables by name (part of it)."""

    name = filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Table
        fields = ["name", "bank_cover"]


class ShiftFilter(filters.FilterSet):
    """Shifts by table, dealer (username), open or closed, and when they opened."""

    dealer = filters.CharFilter(field_name="dealer__username")
    open = filters.BooleanFilter(field_name="closed_at", lookup_expr="isnull")
    opened_after = MomentFilter(field_name="opened_at", lookup_expr="gte")
    opened_before = MomentFilter(field_name="opened_at", lookup_expr="lt")

    class Meta:
        model = Shift
        fields = ["table", "dealer", "open", "opened_after", "opened_before"]


class HandFilter(filters.FilterSet):
    """Hands by table, shift, status, number, bank holder, import, and when they opened or
    settled."""

    bank = filters.CharFilter(field_name="bank__code")
    opened_after = MomentFilter(field_name="opened_at", lookup_expr="gte")
    opened_before = MomentFilter(field_name="opened_at", lookup_expr="lt")
    settled_after = MomentFilter(field_name="settled_at", lookup_expr="gte")
    settled_before = MomentFilter(field_name="settled_at", lookup_expr="lt")
    player = filters.CharFilter(method="filter_player", help_text="a player seated or holding the bank")

    class Meta:
        model = Hand
        fields = ["table", "shift", "status", "number", "imported", "bank", "opened_after", "opened_before",
                  "settled_after", "settled_before", "player"]

    def filter_player(self, queryset, name, value):
        """Hands where ``value`` sat or held the bank."""
        return queryset.filter(Q(seats__contains=[value]) | Q(bank__code=value))


class HandEntryFilter(filters.FilterSet):
    """A hand's entries by kind (event, undo, void)."""

    class Meta:
        model = HandEvent
        fields = ["kind"]


class PlayerFilter(filters.FilterSet):
    """Players by id (exact) or by a part of their id or name (``q``)."""

    q = filters.CharFilter(method="filter_q", help_text="part of the player's id or name")

    class Meta:
        model = Player
        fields = ["code", "q"]

    def filter_q(self, queryset, name, value):
        """Players whose id or name contains ``value``."""
        return queryset.filter(Q(code__icontains=value) | Q(name__icontains=value))


class AccountFilter(filters.FilterSet):
    """Accounts by kind, player id, tenure, open or closed."""

    player = filters.CharFilter(field_name="player__code")

    class Meta:
        model = Account
        fields = ["kind", "player", "tenure", "is_open"]


class TenureFilter(filters.FilterSet):
    """Bank tenures by table, holder's id, open or closed, how they began."""

    holder = filters.CharFilter(field_name="holder__code")
    open = filters.BooleanFilter(field_name="closed_at", lookup_expr="isnull")

    class Meta:
        model = BankTenure
        fields = ["table", "holder", "open", "began"]


class SlipFilter(filters.FilterSet):
    """Cashier slips by kind, player's id, and when they were issued."""

    player = filters.CharFilter(field_name="player__code")
    issued_after = MomentFilter(field_name="issued_at", lookup_expr="gte")
    issued_before = MomentFilter(field_name="issued_at", lookup_expr="lt")

    class Meta:
        model = CashierSlip
        fields = ["kind", "player", "issued_after", "issued_before"]


class ReportRequestFilter(filters.FilterSet):
    """Report requests by kind, status, table and shift."""

    class Meta:
        model = ReportRequest
        fields = ["kind", "status", "table", "shift"]


class ReportFilter(filters.FilterSet):
    """Stored reports by kind, table, shift, and the period's days."""

    class Meta:
        model = Report
        fields = ["kind", "table", "shift", "date_from", "date_to"]


class AlertFilter(filters.FilterSet):
    """Alerts by status (open, acknowledged), kind, table, shift and when they opened."""

    status = filters.ChoiceFilter(choices=Alert.Status.choices)
    kind = filters.ChoiceFilter(choices=AlertKind.choices)
    opened_after = MomentFilter(field_name="opened_at", lookup_expr="gte")
    opened_before = MomentFilter(field_name="opened_at", lookup_expr="lt")

    class Meta:
        model = Alert
        fields = ["status", "kind", "table", "shift", "opened_after", "opened_before"]


class DisputeFilter(filters.FilterSet):
    """Disputes by table, gaming day (opened on it), patron (player id), status and outcome."""

    table = filters.NumberFilter(field_name="hand__table")
    day = filters.DateFilter(method="filter_day", help_text="a gaming day (YYYY-MM-DD): the disputes opened on it")
    player = filters.CharFilter(field_name="player__code")
    status = filters.ChoiceFilter(choices=Dispute.Status.choices)
    outcome = filters.ChoiceFilter(choices=Dispute.Outcome.choices)

    class Meta:
        model = Dispute
        fields = ["table", "day", "player", "status", "outcome"]

    def filter_day(self, queryset, name, value):
        start, end = gaming_day_bounds(value)
        return queryset.filter(opened_at__gte=start, opened_at__lt=end)


class IncidentFilter(filters.FilterSet):
    """Incidents by table, gaming day (recorded on it), patron (player id) and kind."""

    day = filters.DateFilter(method="filter_day", help_text="a gaming day (YYYY-MM-DD): the incidents recorded on it")
    player = filters.CharFilter(field_name="player__code")
    kind = filters.ChoiceFilter(choices=Incident.Kind.choices)

    class Meta:
        model = Incident
        fields = ["table", "day", "player", "kind"]

    def filter_day(self, queryset, name, value):
        start, end = gaming_day_bounds(value)
        return queryset.filter(recorded_at__gte=start, recorded_at__lt=end)
