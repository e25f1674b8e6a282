"""The project's own record below the apps: the privilege changes PostgreSQL records.

``PrivilegeChange`` rows are written by triggers only (``casino/sql/0002_privilege_changes.sql``),
never by the app: a user made superuser or staff, (de)activated, renamed or deleted; a user
put into or out of a group (a staff role); a permission given to or taken from a user or a
group; a lock-out record of django-axes deleted or its failures counted down. The app's
database role may read them and nothing else (``casino.dbroles.READ_ONLY``), and a trigger
refuses any update or delete, the owner's included. Listed by ``manage.py ledger_check``
and on the auditor's privileges page (``reports``).
"""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class PrivilegeChange(models.Model):
    """One change of privileges, as PostgreSQL saw it.

    ``db_role`` is the database role that connected (``session_user``: the app's, the
    owner's, anyone's with a password); ``actor`` the app's user who made it, where the app
    knew one (``casino.privileges``), else empty: a change by SQL or a command.
    ``table_name`` and ``operation`` (INSERT, UPDATE, DELETE) say what was written;
    ``subject`` whom it concerns (a user name, ``group <name>``, ``<user> @ <address>``);
    ``before`` and ``after`` the flags, group or permission (JSON, None where there was
    none). Never updated nor deleted.
    """

    at = models.DateTimeField(_("when"))
    db_role = models.CharField(_("database role"), max_length=63)
    actor = models.CharField(_("made by"), max_length=150, blank=True)
    table_name = models.CharField(pgettext_lazy("a database's table", "table"), max_length=63)
    operation = models.CharField(_("operation"), max_length=8)
    subject = models.CharField(_("concerns"), max_length=600)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("privilege change")
        verbose_name_plural = _("privilege changes")

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.operation} {self.table_name} {self.subject}"
