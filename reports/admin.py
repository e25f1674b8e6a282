"""The reports in the Django admin, read-only: requests (the outbox) and stored reports."""

from django.contrib import admin

from reports.models import Report, ReportRequest


class ReadOnly(admin.ModelAdmin):
    """Reports are written by their service only; the admin looks."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ReportRequest)
class ReportRequestAdmin(ReadOnly):
    list_display = ("id", "key", "status", "progress", "stage", "requested_by", "created_at", "dispatched_at",
                    "finished_at", "attempts")
    list_filter = ("status", "kind")
    search_fields = ("key",)


@admin.register(Report)
class ReportAdmin(ReadOnly):
    list_display = ("id", "kind", "key", "version", "at_close", "table", "exceptions", "computed_at", "seconds")
    list_filter = ("kind", "table")
    search_fields = ("key",)
    exclude = ("result",)
