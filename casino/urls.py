"""Top-level URLs: login, language, admin, home; each app includes its own pages."""
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from casino import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    # The cashier's pages were under /ledger/: an old bookmark lands on the same page.
    re_path(r"^ledger/(?P<rest>.*)$", RedirectView.as_view(url="/cage/%(rest)s", permanent=True,
                                                            query_string=True)),
    path("tables/", include("tables.urls")),
    path("reports/", include("reports.urls")),
    path("boxes/", include("boxes.urls")),
    path("api/", include("api.urls")),
    path("cage/", include("cage.urls")),
]
