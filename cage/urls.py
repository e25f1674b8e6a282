"""The cage's pages, under /cage/: the cashier's desk (slips, players, statements), the
drawer, identity, the AML register, the exclusion register and the admissions refused."""

from django.urls import path

from cage.views import cashier, drawer, exclusions

app_name = "cage"

urlpatterns = [
    path("", cashier.home, name="home"),
    path("register/", cashier.player_register_page, name="player_register"),
    path("buy-in/", cashier.buy_in, name="buy_in"),
    path("buy-in/<str:token>/", cashier.buy_in_form, name="buy_in_form"),
    path("cash-out/", cashier.cash_out, name="cash_out"),
    path("cash-out/<str:token>/", cashier.cash_out_form, name="cash_out_form"),
    path("bank-deposit/", cashier.bank_deposit, name="bank_deposit"),
    path("bank-deposit/<str:token>/", cashier.bank_deposit_form, name="bank_deposit_form"),
    path("slips/<int:number>/", cashier.slip, name="slip"),
    path("slips/<int:number>/void/", cashier.slip_void, name="slip_void"),
    path("players/", cashier.players, name="players"),
    path("players/<str:code>/", cashier.player_statement_page, name="player_statement"),
    path("players/<str:code>/record/", cashier.player_page, name="player"),
    path("players/<str:code>/identity/", drawer.identity, name="identity"),
    path("tenures/", cashier.tenures, name="tenures"),
    path("tenures/<int:pk>/", cashier.tenure_statement_page, name="tenure_statement"),
    path("drawer/", drawer.drawer, name="drawer"),
    path("drawer/close/", drawer.drawer_close_page, name="drawer_close"),
    path("drawers/", drawer.drawers, name="drawers"),
    path("drawers/<int:pk>/", drawer.drawer_detail, name="drawer_detail"),
    path("identity/", drawer.identity_lookup, name="identity_lookup"),
    path("aml/", drawer.aml_register, name="aml_register"),
    path("aml/alerts/<int:pk>/review/", drawer.alert_review, name="alert_review"),
    path("exclusions/", exclusions.exclusions, name="exclusions"),
    path("exclusions/refusals/", exclusions.admission_refusals, name="admission_refusals"),
    path("exclusions/refusals.csv", exclusions.admission_refusals_csv, name="admission_refusals_csv"),
]
