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
