"""Form fields of the patrons' kernel, shared by every desk's forms."""

from django import forms
from django.utils.translation import gettext_lazy as _

from patrons.models import Player


class PlayerCodeField(forms.CharField):
    """A player's id as hand records write it (``luis``), cleaned to the ``Player``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Player id"))
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def clean(self, value):
        code = super().clean(value)
        player = Player.objects.filter(code=code).first() or Player.objects.filter(code__iexact=code).first()
        if player is None:
            raise forms.ValidationError(_("No player has the id %(code)s."), code="unknown_player",
                                        params={"code": code})
        return player
