"""The tables' pages: the dealer's console, the pit supervisor's pages, hand history."""

from django.urls import path
from django.views.generic import RedirectView

from tables.views import bank, console, disputes, hands, pit, records

app_name = "tables"
urlpatterns = [
    path("", RedirectView.as_view(pattern_name="tables:console_tables"), name="index"),
    *console.urlpatterns, *pit.urlpatterns, *bank.urlpatterns, *hands.urlpatterns, *records.urlpatterns,
    *disputes.urlpatterns,
]
