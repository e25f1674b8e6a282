"""The auditors' report pages, under /reports/."""

from django.urls import path

from reports import alert_views, review_views, views

app_name = "reports"
urlpatterns = [
    path("", views.index, name="index"),
    path("shift/", views.request_shift, name="request_shift"),
    path("banks/", views.request_banks, name="request_banks"),
    path("requests/<int:pk>/", views.request_page, name="request"),
    path("requests/<int:pk>/status.json", views.request_status, name="request_status"),
    path("review/", review_views.review_page, name="review"),
    path("alerts/", alert_views.alert_list, name="alerts"),
    path("alerts/<int:pk>/", alert_views.alert_detail, name="alert"),
    path("<int:pk>/", views.report_page, name="report"),
    path("<int:pk>/report.csv", views.report_csv_download, name="report_csv"),
    path("<int:pk>/report.pdf", views.report_pdf_download, name="report_pdf"),
]
