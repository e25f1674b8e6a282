"""Django admin for the tables' configuration: tables are edited here (players:
``patrons.admin``); shifts,
hands, their entries and settled bets are shown read only (they are written only by
``tables.services``, and entries and bets never change).

Who: a user with the ``admin`` role (and ``is_staff``, which the admin site requires)
configures; an auditor with ``is_staff`` reads; a superuser holds every role. Nothing
is ever deleted here: a player or a table with history is kept (the database protects
it anyway).
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from casino.admin import RoleAdmin
from tables.models import Hand, HandBet, HandEvent, Shift, Table


@admin.register(Table)
class TableAdmin(RoleAdmin):
    editable = True
    list_display = ("name", "profile_name", "min_bet", "max_bet", "bank_cover", "bank_capital", "last_hand_number")
    search_fields = ("name",)
    fields = ("name", "rules", "min_bet", "max_bet", "bank_cover", "bank_capital", "large_bet", "last_hand_number",
              "last_event_hash", "created_at")
    readonly_fields = ("last_hand_number", "last_event_hash", "created_at")

    @admin.display(description=_("rule profile"))
    def profile_name(self, table):
        return table.rules.get("profile") if isinstance(table.rules, dict) else table.rules


class ReadOnlyAdmin(RoleAdmin):
    """Everything shown, nothing editable (the services write these rows)."""

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(Shift)
class ShiftAdmin(ReadOnlyAdmin):
    list_display = ("table", "dealer", "opened_at", "opened_by", "closed_at", "closed_by")
    list_filter = ("table",)
    list_select_related = ("table", "dealer", "opened_by", "closed_by")
    date_hierarchy = "opened_at"


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "status", "bank", "opened_at", "imported")
    list_filter = ("status", "table", "imported")
    list_select_related = ("table", "bank")
    search_fields = ("table__name", "bank__code")
    date_hierarchy = "opened_at"


@admin.register(HandEvent)
class HandEventAdmin(ReadOnlyAdmin):
    list_display = ("hand", "sequence", "kind", "event", "entered_by", "entered_at")
    list_filter = ("kind", "table")
    list_select_related = ("hand__table", "entered_by")
    search_fields = ("hash",)


@admin.register(HandBet)
class HandBetAdmin(ReadOnlyAdmin):
    list_display = ("hand", "player", "seat", "seat_hand", "stake", "result", "multiplier", "net")
    list_filter = ("result",)
    list_select_related = ("hand__table", "player")
    search_fields = ("player__code",)
