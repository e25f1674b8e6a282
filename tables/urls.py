"""The tables' pages: the dealer's console, the pit supervisor's pages, hand history."""

from tables.views import console, hands, pit

app_name = "tables"
urlpatterns = [*console.urlpatterns, *pit.urlpatterns, *hands.urlpatterns]
