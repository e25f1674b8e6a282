from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BoxesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "boxes"
    verbose_name = _("table boxes")
