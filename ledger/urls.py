"""The cashier's pages, under /ledger/."""

from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("", views.home, name="home"),
    path("register/", views.player_register_page, name="player_register"),
    path("buy-in/", views.buy_in, name="buy_in"),
    path("buy-in/<str:token>/", views.buy_in_form, name="buy_in_form"),
    path("cash-out/", views.cash_out, name="cash_out"),
    path("cash-out/<str:token>/", views.cash_out_form, name="cash_out_form"),
    path("bank-deposit/", views.bank_deposit, name="bank_deposit"),
    path("bank-deposit/<str:token>/", views.bank_deposit_form, name="bank_deposit_form"),
    path("slips/<int:number>/", views.slip, name="slip"),
    path("slips/<int:number>/void/", views.slip_void, name="slip_void"),
    path("players/", views.players, name="players"),
    path("players/<str:code>/", views.player_statement_page, name="player_statement"),
    path("players/<str:code>/record/", views.player_page, name="player"),
    path("tenures/", views.tenures, name="tenures"),
    path("tenures/<int:pk>/", views.tenure_statement_page, name="tenure_statement"),
]
