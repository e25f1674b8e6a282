from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PatronsConfig(AppConfig):
    name = "patrons"
    verbose_name = _("Patrons")
