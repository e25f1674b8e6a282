from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CageConfig(AppConfig):
    name = "cage"
    verbose_name = _("Cage")

    def ready(self):
        from casino.navigation import register
        from casino.roles import AUDITOR, CAGE_SUPERVISOR, CASHIER, COMPLIANCE

        register("cage:drawer", _("Drawer"), CASHIER)
        register("cage:drawers", _("Drawers"), CAGE_SUPERVISOR, AUDITOR)
        register("cage:aml_register", _("AML register"), COMPLIANCE, AUDITOR)
