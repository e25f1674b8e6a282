"""Django admin for the patrons: players are edited here as at the cage, saved through
``patrons.services`` so that every registration and change is attributed."""

from django.contrib import admin

from casino.admin import RoleAdmin
from patrons.models import Player
from patrons.services import IDENTITY_FIELDS, player_register, player_update


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
        identity = {name: getattr(obj, name) for name in IDENTITY_FIELDS}
        if change:
            player_update(player=obj, by=request.user, **identity)
        else:
            saved = player_register(code=obj.code, by=request.user, **identity)
            obj.pk, obj.created_at = saved.pk, saved.created_at
