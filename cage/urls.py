"""The cage's pages, under /cage/."""

from django.urls import path

from cage import views

app_name = "cage"

urlpatterns = [
    path("drawer/", views.drawer, name="drawer"),
    path("drawer/close/", views.drawer_close_page, name="drawer_close"),
    path("drawers/", views.drawers, name="drawers"),
    path("drawers/<int:pk>/", views.drawer_detail, name="drawer_detail"),
    path("identity/", views.identity_lookup, name="identity_lookup"),
    path("players/<str:code>/identity/", views.identity, name="identity"),
    path("aml/", views.aml_register, name="aml_register"),
    path("aml/alerts/<int:pk>/review/", views.alert_review, name="alert_review"),
]
