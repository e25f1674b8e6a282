"""The project's shared plumbing as an app: its commands, its migrations, its record of
privilege changes (``casino.models``)."""

from django.apps import AppConfig


class CasinoConfig(AppConfig):
    """Connects the privilege-change signals (``casino.privileges``)."""

    name = "casino"

    def ready(self):
        from axes.models import AccessAttempt
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group
        from django.db.models.signals import (
            m2m_changed,
            post_delete,
            post_save,
            pre_delete,
            pre_save,
        )

        from casino import privileges

        user = get_user_model()
        pre_save.connect(privileges.tell_database, sender=user, dispatch_uid="casino.privileges.user.pre")
        post_save.connect(privileges.forget, sender=user, dispatch_uid="casino.privileges.user.post")
        pre_delete.connect(privileges.tell_database, sender=user, dispatch_uid="casino.privileges.user.pre_delete")
        post_delete.connect(privileges.forget, sender=user, dispatch_uid="casino.privileges.user.post_delete")
        for through in (user.groups.through, user.user_permissions.through, Group.permissions.through):
            m2m_changed.connect(privileges.on_m2m, sender=through, dispatch_uid=f"casino.privileges.{through.__name__}")
        pre_delete.connect(privileges.tell_database, sender=AccessAttempt, dispatch_uid="casino.privileges.axes.pre")
        post_delete.connect(privileges.forget, sender=AccessAttempt, dispatch_uid="casino.privileges.axes.post")
