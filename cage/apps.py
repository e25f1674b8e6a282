from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CageConfig(AppConfig):
    name = "cage"
    verbose_name = _("Cage")

    def ready(self):
        from cage.selectors import slip_faults
        from cage.services import slips
        from cage.services.aml import AmlCheck
        from casino.navigation import register
        from ledger.posting import register_check
        from ledger.selectors import register_fault_finder
        from tables.bank import deposits

        register_check(AmlCheck)
        deposits.register(slips)
        register_fault_finder(slip_faults)
        from casino.roles import ADMIN, AUDITOR, CAGE_SUPERVISOR, CASHIER, COMPLIANCE

        register("cage:home", _("Cage"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
        register("cage:buy_in", _("Buy-in"), CASHIER)
        register("cage:cash_out", _("Cash-out"), CASHIER)
        register("cage:bank_deposit", _("Bank deposit"), CASHIER)
        register("cage:players", _("Player statements"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
        register("cage:tenures", _("Bank tenures"), CASHIER, CAGE_SUPERVISOR, AUDITOR)
        register("cage:drawer", _("Drawer"), CASHIER)
        register("cage:drawers", _("Drawers"), CAGE_SUPERVISOR, AUDITOR)
        register("cage:aml_register", _("AML register"), COMPLIANCE, AUDITOR)
        register("cage:exclusions", _("Exclusion register"), COMPLIANCE, ADMIN, AUDITOR)
        register("cage:admission_refusals", _("Admissions refused"), COMPLIANCE, AUDITOR)
