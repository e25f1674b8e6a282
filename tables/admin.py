"""Django admin for the tables' configuration: players and tables are edited here; shifts,
hands, their entries and settled bets are shown read only (they are written only by
``tables.services``, and entries and bets never change).

Who: a user with the ``admin`` role (and ``is_staff``, which the admin site requires)
configures; an auditor with ``is_staff`` reads; a superuser holds every role. Nothing
is ever deleted here: a player or a table with history is kept (the database protects
it anyway).
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from casino.roles import ADMIN, AUDITOR, has_role
from tables.models import Hand, HandBet, HandEvent, Player, Shift, Table


class RoleAdmin(admin.ModelAdmin):
    """Permissions by role instead of per-model permissions: ``admin`` changes what
    ``editable`` allows, ``auditor`` reads; nobody deletes."""

    editable = False

    def has_module_permission(self, request):
        return has_role(request.user, ADMIN, AUDITOR)

    def has_view_permission(self, request, obj=None):
        return has_role(request.user, ADMIN, AUDITOR)

    def has_add_permission(self, request):
        return self.editable and has_role(request.user, ADMIN)

    def has_change_permission(self, request, obj=None):
        return self.editable and has_role(request.user, ADMIN)

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Player)
class PlayerAdmin(RoleAdmin):
    """Players, as at the cage: saved through ``ledger.services.patrons`` so that every
    registration and change is attributed (``ledger.PlayerChange``)."""

    editable = True
    list_display = ("code", "name", "document_type", "document_number", "nationality", "card_number", "created_at")
    search_fields = ("code", "name", "document_number", "card_number")
    readonly_fields = ("created_at",)


    def get_readonly_fields(self, request, obj=None):
        # The code is the id hand records use: fixed once the player exists.
        return ("code", "created_at") if obj is not None else ("created_at",)

    def save_model(self, request, obj, form, change):
        from ledger.services.patrons import IDENTITY_FIELDS, player_register, player_update

        identity = {name: getattr(obj, name) for name in IDENTITY_FIELDS}
        if change:
            player_update(player=obj, by=request.user, **identity)
        else:
            saved = player_register(code=obj.code, by=request.user, **identity)
            obj.pk, obj.created_at = saved.pk, saved.created_at


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
