"""The cashier's pages, under /ledger/."""

from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("buy-in/", views.buy_in, name="buy_in"),
    path("cash-out/", views.cash_out, name="cash_out"),
    path("slips/<int:number>/", views.slip, name="slip"),
    path("players/", views.players, name="players"),
    path("players/<str:code>/", views.player_statement_page, name="player_statement"),
    path("tenures/", views.tenures, name="tenures"),
    path("tenures/<int:pk>/", views.tenure_statement_page, name="tenure_statement"),
]
