"""The pit's and the hand history's entries in the navigation (imported once, from
``TablesConfig.ready``)."""

from django.utils.translation import gettext_lazy as _

from casino.navigation import register
from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR

register("tables:pit", _("Pit"), PIT_SUPERVISOR, AUDITOR)
register("tables:hands", _("Hand history"), PIT_SUPERVISOR, AUDITOR, DEALER)
register("tables:disputes", _("Disputes"), PIT_SUPERVISOR, AUDITOR)
