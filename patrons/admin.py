"""Django admin for the patrons: players are edited here as at the cage, saved through
``patrons.services`` so that every registration and change is attributed."""

from django import forms
from django.contrib import admin

from casino.admin import RoleAdmin
from patrons.admission import registration_check
from patrons.documents import document_number_error
from patrons.errors import AdmissionRefused
from patrons.models import Player
from patrons.services import IDENTITY_FIELDS, player_register, player_update


class PlayerAdminForm(forms.ModelForm):
    """The player's record; one whose identity matches the exclusion register is refused
    on the form, the refusal recorded (``patrons.admission.registration_check``), as at
    the cage; so is a DNI's or NIE's number without its check letter."""

    user = None  # the admin's user, set by ``PlayerAdmin.get_form``

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is None or {"document_type", "document_number"} & set(self.changed_data):
            # As the services refuse it (patrons.documents), on the field, not at the save.
            error = document_number_error(cleaned.get("document_type") or "", cleaned.get("document_number") or "")
            if error is not None:
                self.add_error("document_number", error)
        identity = {name: cleaned.get(name) for name in ("name", "document_number", "date_of_birth")}
        changed = self.instance.pk is None or self.changed_data and set(self.changed_data) & set(identity)
        if changed and not self.errors:
            try:
                registration_check(code=cleaned.get("code") or self.instance.code, by=self.user,
                                   where="registration" if self.instance.pk is None else "identity",
                                   player=self.instance if self.instance.pk else None,
                                   name=identity["name"] or "", document_number=identity["document_number"] or "",
                                   date_of_birth=identity["date_of_birth"])
            except AdmissionRefused as refused:
                refused.record_attempt()
                raise forms.ValidationError(str(refused), code=refused.code) from None
        return cleaned


@admin.register(Player)
class PlayerAdmin(RoleAdmin):
    """Players, as at the cage: saved through ``ledger.services.patrons`` so that every
    registration and change is attributed (``ledger.PlayerChange``)."""

    editable = True
    form = PlayerAdminForm
    list_display = ("code", "name", "document_type", "document_number", "nationality", "card_number", "created_at")
    search_fields = ("code", "name", "document_number", "card_number")
    readonly_fields = ("created_at",)


    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"user": request.user})

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
