"""The auditors' report pages, under /reports/."""

from django.urls import path

from reports.views import alerts, journal, privileges, reports, results, review, statements

app_name = "reports"
urlpatterns = [
    path("", reports.index, name="index"),
    path("shift/", reports.request_shift, name="request_shift"),
    path("banks/", reports.request_banks, name="request_banks"),
    path("requests/<int:pk>/", reports.request_page, name="request"),
    path("requests/<int:pk>/status.json", reports.request_status, name="request_status"),
    path("review/", review.review_page, name="review"),
    path("review/pooled/", review.pooled_request_page, name="review_pooled"),
    path("alerts/", alerts.alert_list, name="alerts"),
    path("journal/", journal.journal_page, name="journal"),
    path("results/", results.results_page, name="results"),
    path("privileges/", privileges.privileges_page, name="privileges"),
    path("statements/", statements.statement_list, name="statements"),
    path("statements/<int:pk>/", statements.statement_page, name="statement"),
    path("statements/<int:pk>/status.json", statements.statement_status, name="statement_status"),
    path("statements/<int:pk>/sign/", statements.statement_sign_view, name="statement_sign"),
    path("alerts/<int:pk>/", alerts.alert_detail, name="alert"),
    path("<int:pk>/", reports.report_page, name="report"),
    path("<int:pk>/report.csv", reports.report_csv_download, name="report_csv"),
    path("<int:pk>/report.pdf", reports.report_pdf_download, name="report_pdf"),
]
