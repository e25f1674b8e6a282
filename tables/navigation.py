"""The tables' entries in the top navigation; imported once from ``TablesConfig.ready()``."""

from django.utils.translation import gettext_lazy as _

from casino.navigation import register
from casino.roles import AUDITOR, DEALER, PIT_SUPERVISOR

register("tables:console_tables", _("Table consoles"), DEALER, PIT_SUPERVISOR, AUDITOR)
