"""The admin's rule for every app: permissions by role, nothing ever deleted."""

from django.contrib import admin

from casino.roles import ADMIN, AUDITOR, has_role


class RoleAdmin(admin.ModelAdmin):
    """Permissions by role instead of per-model permissions: ``admin`` changes what
    ``editable`` allows, ``auditor`` reads; nobody deletes."""

    editable = False

    def has_module_permission(self, request):
        return has_role(request.user, ADMIN, AUDITOR)

    def has_view_permission(self, request, obj=None):
        return has_role(request.user, ADMIN, AUDITOR)

    def has_add_permission(self, request):
        return self.editable and has_role(request.user, ADMIN)

    def has_change_permission(self, request, obj=None):
        return self.editable and has_role(request.user, ADMIN)

    def has_delete_permission(self, request, obj=None):
        return False


def _label_login_attempts():
    """django-axes' admin of the failed logins, its columns named in the reader's language
    (its fields' names and messages are translated in the casino's catalogue; two of its
    columns are methods without a description, shown as "Expiration" and "Status")."""
    from axes.admin import AccessAttemptAdmin
    from axes.models import AccessAttempt
    from django.utils.translation import gettext_lazy as _

    if not admin.site.is_registered(AccessAttempt):
        return

    class LabelledAccessAttemptAdmin(AccessAttemptAdmin):
        @admin.display(description=_("expires at"))
        def expiration(self, obj):
            return super().expiration(obj)

        @admin.display(description=_("status"))
        def status(self, obj):
            return super().status(obj)

    admin.site.unregister(AccessAttempt)
    admin.site.register(AccessAttempt, LabelledAccessAttemptAdmin)


_label_login_attempts()
