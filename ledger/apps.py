from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = _("Ledger")

    def ready(self):
        from casino.navigation import register
        from casino.roles import AUDITOR, CAGE_SUPERVISOR, CASHIER

        register("ledger:home", _("Cage"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
        register("ledger:buy_in", _("Buy-in"), CASHIER)
        register("ledger:cash_out", _("Cash-out"), CASHIER)
        register("ledger:bank_deposit", _("Bank deposit"), CASHIER)
        register("ledger:players", _("Player statements"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
        register("ledger:tenures", _("Bank tenures"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
