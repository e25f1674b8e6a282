"""Top-level URLs: admin; each app adds its own pages."""
from django.contrib import admin
from django.urls import path

urlpatterns = [
    path("admin/", admin.site.urls),
]
