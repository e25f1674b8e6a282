"""The REST API's routes (under ``/api/``), its OpenAPI schema and documentation."""

from csp.decorators import csp_update
from django.urls import include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import SimpleRouter

from api.schema import SCHEMA_SETTINGS
from api.views import alerts, boxes, disputes, docs, ledger, records, reports, statements, tables
from api.views.auth import TokenView

app_name = "api"

#: Swagger UI's and Redoc's pages load their scripts, styles and fonts from drf-spectacular's
#: CDN and style themselves inline (Swagger UI's own script is served apart, by the split
#: view); the site's Content-Security-Policy is loosened for these two pages only.
_from_the_cdn = csp_update({
    "script-src": ["https://cdn.jsdelivr.net"],
    "style-src": ["https://cdn.jsdelivr.net", "https://fonts.googleapis.com", "'unsafe-inline'"],
    "font-src": ["https://fonts.gstatic.com"],
    "img-src": ["https://cdn.jsdelivr.net"],
    "worker-src": ["blob:"],
})

router = SimpleRouter()
router.register("tables", tables.TableViewSet, basename="table")
router.register("shifts", tables.ShiftViewSet, basename="shift")
router.register("hands", tables.HandViewSet, basename="hand")
router.register("players", ledger.PlayerViewSet, basename="player")
router.register("accounts", ledger.AccountViewSet, basename="account")
router.register("tenures", ledger.TenureViewSet, basename="tenure")
router.register("slips", ledger.SlipViewSet, basename="slip")
router.register("cashier", ledger.CashierViewSet, basename="cashier")
router.register("chips", ledger.ChipTransferViewSet, basename="chips")
router.register("reports/requests", reports.ReportRequestViewSet, basename="report-request")
router.register("reports", reports.ReportViewSet, basename="report")
router.register("alerts", alerts.AlertViewSet, basename="alert")
router.register("disputes", disputes.DisputeViewSet, basename="dispute")
router.register("incidents", disputes.IncidentViewSet, basename="incident")
router.register("statements", statements.MonthlyStatementViewSet, basename="statement")

urlpatterns = [
    path("auth/token/", TokenView.as_view(), name="token"),
    path("tables/<int:pk>/hands/", tables.TableHandsView.as_view(), name="table-hands"),
    path("hands/<int:pk>/events/", tables.HandEntriesView.as_view(), name="hand-events"),
    path("tables/<int:pk>/hands.jsonl", tables.TableHandsExport.as_view(), name="table-hands-export"),
    path("hand-records/", records.HandRecordImport.as_view(), name="hand-record-import"),
    path("settle/", records.SettleDryRun.as_view(), name="settle"),
    path("tables/<int:pk>/bank/auction/", boxes.AuctionView.as_view(), name="bank-auction"),
    path("tables/<int:pk>/bank/auction/bids/", boxes.BidView.as_view(), name="bank-auction-bids"),
    path("tables/<int:pk>/bank/auction/award/", boxes.AwardView.as_view(), name="bank-auction-award"),
    path("tables/<int:pk>/bank/withdraw/", boxes.WithdrawView.as_view(), name="bank-withdraw"),
    path("tables/<int:pk>/bank/rebuild/", boxes.RebuildView.as_view(), name="bank-rebuild"),
    path("tables/<int:pk>/bank/give-up/", boxes.GiveUpView.as_view(), name="bank-give-up"),
    path("tables/<int:pk>/buy-ins/", boxes.TableBuyInView.as_view(), name="table-buy-ins"),
    path("tables/<int:pk>/tips/", boxes.TipView.as_view(), name="table-tips"),
    path("shifts/<int:pk>/boxes/", boxes.SessionBoxesView.as_view(), name="shift-boxes"),
    path("counts/<int:pk>/recount/", boxes.RecountView.as_view(), name="count-recount"),
    path("counts/<int:pk>/explanation/", boxes.ExplainView.as_view(), name="count-explanation"),
    path("tronc/", boxes.TroncView.as_view(), name="tronc"),
    path("tronc/distribute/", boxes.TroncDistributeView.as_view(), name="tronc-distribute"),
    path("review/", alerts.ReviewView.as_view(), name="review"),
    path("journal/", alerts.JournalView.as_view(), name="journal"),
    path("", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(custom_settings=SCHEMA_SETTINGS), name="schema"),
    path("docs/", docs.reference, name="docs"),
    path("docs/swagger/", _from_the_cdn(SpectacularSwaggerSplitView.as_view(url_name="api:schema")), name="swagger"),
    path("docs/redoc/", _from_the_cdn(SpectacularRedocView.as_view(url_name="api:schema")), name="redoc"),
    re_path(r"^(?P<path>[\s\S]*)\Z", docs.not_found, name="not-found"),
]
