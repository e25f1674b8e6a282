"""The boxes' pages, under /boxes/: the console's buy-in and tip, a session's boxes, the
registers, the tronc."""

from django.urls import path

from boxes.views import console, sessions

app_name = "boxes"
urlpatterns = [
    path("console/<int:table_id>/buy-in/", console.console_buy_in, name="buy_in"),
    path("console/<int:table_id>/tip/", console.console_tip, name="tip"),
    path("sessions/<int:shift_id>/", sessions.session_boxes, name="session"),
    path("sessions/<int:shift_id>/cagnotte/", sessions.session_cagnotte, name="cagnotte"),
    path("daily/", sessions.daily, name="daily"),
    path("tronc/", sessions.tronc, name="tronc"),
]
