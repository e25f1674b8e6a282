from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BoxesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "boxes"
    verbose_name = _("table boxes")

    def ready(self):
        from casino.navigation import register
        from casino.roles import AUDITOR, PIT_SUPERVISOR

        register("boxes:daily", _("Cagnotte register"), PIT_SUPERVISOR, AUDITOR)
        register("boxes:tronc", _("Tronc"), PIT_SUPERVISOR, AUDITOR)
