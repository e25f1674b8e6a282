from importlib import import_module
from importlib.util import find_spec

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

#: Modules that register the tables' pages in the navigation, if present: the console's
#: and the pit's (``casino.navigation.register``).
NAVIGATION_MODULES = ("tables.navigation", "tables.pit_navigation")


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = _("Tables")

    def ready(self):
        """Register the tables' pages in the navigation (each module once), and tell the
        ledger what players have at risk in open hands and how to check the syndicates."""
        from ledger.posting import register_chips_at_risk
        from ledger.selectors import register_fault_finder
        from tables.bank.tenures import share_faults
        from tables.stakes import chips_at_risk

        register_chips_at_risk(chips_at_risk)
        register_fault_finder(share_faults)
        for module in NAVIGATION_MODULES:
            if find_spec(module) is not None:
                import_module(module)
