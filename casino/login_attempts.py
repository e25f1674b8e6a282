"""django-axes (the failed logins counted, and locked out) as the admin names it to the
casino's staff: in the reader's language, not "Axes"."""

from axes.apps import AppConfig
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop


class LoginAttemptsConfig(AppConfig):
    """django-axes' own configuration, with a name the admin shows in the reader's language."""

    verbose_name = _("Login attempts")


#: django-axes' own words (it ships no Spanish catalogue): marked here so that the casino's
#: catalogue (locale/es) keeps their Spanish.
AXES_WORDS = (
    gettext_noop("Form Data"), gettext_noop("Meta Data"),
    gettext_noop("Account locked: too many login attempts. Please try again later."),
    gettext_noop("User Agent"), gettext_noop("IP Address"), gettext_noop("Username"), gettext_noop("HTTP Accept"),
    gettext_noop("Path"), gettext_noop("Attempt Time"), gettext_noop("Access lock out"),
    gettext_noop("access failure"), gettext_noop("access failures"), gettext_noop("GET Data"),
    gettext_noop("POST Data"), gettext_noop("Failed Logins"), gettext_noop("access attempt"),
    gettext_noop("access attempts"), gettext_noop("Logout Time"), gettext_noop("access log"),
    gettext_noop("access logs"), gettext_noop("Access Attempt"), gettext_noop("Expires At"),
    gettext_noop("The time when access attempt expires and is no longer valid."),
    gettext_noop("access attempt expiration"), gettext_noop("access attempt expirations"),
    gettext_noop("Session key hash (sha256)"), gettext_noop("Attempt Remaining"), gettext_noop("Locked Out"),
    gettext_noop("Clean up expired attempts"), gettext_noop("Not set"),
)
