"""Top-level URLs: login, language, admin, home; each app includes its own pages."""
from django.contrib import admin
from django.urls import include, path

from casino import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("ledger/", include("ledger.urls")),
    path("tables/", include("tables.urls")),
    path("reports/", include("reports.urls")),
    path("boxes/", include("boxes.urls")),
    path("api/", include("api.urls")),
    path("cage/", include("cage.urls")),
]
