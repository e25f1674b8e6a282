"""The auditors' report pages."""

app_name = "reports"
urlpatterns = []
