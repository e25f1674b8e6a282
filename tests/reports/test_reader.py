"""Reports a reader trusts at a glance (issue 17): numbers in the reader's locale and
times in the casino's time zone in pages, charts, CSV and PDF alike; p-values printed
sensibly; the charts titled and labelled for what they show; headings never left at a
page's bottom; the deck's order kept through jsonb; a voided hand without a result;
closed banks with their real closing balance and result; the rules in words."""

import csv
import io
import re
from datetime import date

import pytest
from django.urls import reverse
from django.utils import translation

from casino.formatting import instant, number, p_value
from game.cards import CARD_NAME, DECKS
from ledger.models import Transaction
from reports.banks import bank_rotation_report
from reports.exports import _chart_drawing, card_rows, chart_svg, report_csv, report_pdf, sections
from reports.models import Report
from reports.services import report_request, report_run
from tables.bank.statements import tenure_closings
from tables.models import BankTenure
from tables.rules_words import rules_words

DOT_DECIMAL = re.compile(r"\d\.\d\d(?!\d)")  # 12.50, as a machine writes it
UTC_INSTANT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


@pytest.fixture
def auditor(client, staff):
    client.force_login(staff["auditor"])
    return client


@pytest.fixture
def shift_report(played):
    shift = played.close()
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)
    return Report.objects.get(pk=report_run(request_id=request.pk).report.pk)  # read back from jsonb


@pytest.fixture
def banks_report(played):
    today = played.table.hands.order_by("-id").first().opened_at.astimezone().date()
    request = report_request(kind="banks", table=played.table, date_from=today, date_to=today, requested_by=None)
    return Report.objects.get(pk=report_run(request_id=request.pk).report.pk)


# ---------------------------------------------------------------------------------------
# Formatting, in Spanish and in English


def test_numbers_p_values_and_instants_in_the_readers_locale():
    with translation.override("es"):
        assert number("1991.38") == "1\xa0991,38" and number("1991.38", grouping=False) == "1991,38"
        assert p_value(0.9716298221214842) == "0,97"
        assert p_value(0.0123) == "0,012"
        assert p_value(9e-5) == "< 0,001"
        assert p_value(None) == "—"
        # 08:43 UTC in November is 09:43 in Madrid
        assert instant("2026-11-24T08:43:30+00:00") == "24/11/2026 09:43"
    with translation.override("en"):
        assert number("1991.38") == "1,991.38" and p_value(0.9716) == "0.97" and p_value(2e-9) == "< 0.001"


def test_the_rules_in_words_never_raw_json():
    with translation.override("es"):
        words = rules_words({"profile": "reglamento"})
        assert words.startswith("Reglamento:") and "{" not in words and "profile" not in words
        changed = rules_words({"profile": "americana", "commission_rate": "0.05"})
        assert "5,00 %" in changed and "(esta mesa)" in changed
    with translation.override("en"):
        assert rules_words("tradicional").startswith("Traditional:")


# ---------------------------------------------------------------------------------------
# The stored report, as page, CSV and PDF


def test_the_deck_order_survives_jsonb(shift_report):
    test = shift_report.result["cards"][0]
    deck = [CARD_NAME[code] for code in sorted(DECKS[test["deck"]])]
    assert [card for card, _n, _first in card_rows(test)] == deck
    assert [row[0] for row in test["rows"]] == deck  # stored as a list, in the deck's order
    # jsonb gave the object back in its own order, not the deck's: a reader must not use it
    assert list(test["counts"]) != deck
    legacy = {key: value for key, value in test.items() if key != "rows"}
    assert [card for card, _n, _first in card_rows(legacy)] == deck


def test_the_csv_in_spanish_has_no_dot_decimals_nor_utc(shift_report, banks_report):
    for report in (shift_report, banks_report):
        with translation.override("es"):
            text = report_csv(report)
        rows = list(csv.reader(io.StringIO(text), delimiter=";"))
        cells = [cell for row in rows[1:] for cell in row]
        assert not [cell for cell in cells if DOT_DECIMAL.search(cell)], report.kind
        assert not [cell for cell in cells if UTC_INSTANT.search(cell)], report.kind
        assert "{" not in text  # no raw rules


def test_every_pdf_cell_in_the_readers_locale(shift_report, banks_report):
    for report in (shift_report, banks_report):
        with translation.override("es"):
            cells = [str(cell) for _title, _header, rows in sections(report) for row in rows for cell in row]
        assert not [cell for cell in cells if DOT_DECIMAL.search(cell) or UTC_INSTANT.search(cell)]


def test_the_page_shows_p_values_rules_and_days_for_a_reader(auditor, shift_report, banks_report):
    html = auditor.get(reverse("reports:report", args=[shift_report.pk])).content.decode()
    assert "Reglamento:" in html and "{&quot;profile" not in html and '{"profile' not in html
    p = shift_report.result["cards"][0]["p_value"]
    assert f"p-valor {p_value(p)}" in html.replace("\xa0", " ") or p_value(p).replace(".", ",") in html
    assert str(p) not in html  # never 0.9716298221214842
    banks = auditor.get(reverse("reports:report", args=[banks_report.pk])).content.decode()
    assert banks_report.result["period"]["from"] not in banks.split("<h1>")[1].split("</h1>")[0]


def test_the_bank_rotation_chart_is_titled_and_labelled_by_tenure(banks_report):
    with translation.override("es"):
        svg = chart_svg(banks_report)
    holders = [row["holder"] for row in banks_report.result["tenures"]]
    assert "en el turno" not in svg and "banca tras banca" in svg
    assert f">1. {holders[0]}<" in svg and f">2. {holders[1]}<" in svg
    assert not DOT_DECIMAL.search(re.sub(r'"[^"]*"', "", svg))  # labels, not coordinates
    with translation.override("es"):
        drawing = _chart_drawing(banks_report)
    plot = drawing.contents[0]
    assert plot.xValueAxis.valueSteps == [0, 1]
    assert plot.xValueAxis.labelTextFormat(1) == f"2. {holders[1]}"


def test_the_shift_chart_has_whole_hand_numbers(shift_report):
    with translation.override("es"):
        drawing = _chart_drawing(shift_report)
        svg = chart_svg(shift_report)
    steps = drawing.contents[0].xValueAxis.valueSteps
    assert steps and all(isinstance(x, int) for x in steps)
    assert "en el turno" in svg


def _heading_at_page_bottom(report):
    """The pages whose last drawn flowable is a heading."""
    last = {}
    with translation.override("es"):
        report_pdf(report, on_flowable=lambda page, flowable: last.__setitem__(page, flowable))
    return [page for page, flowable in last.items()
            if getattr(getattr(flowable, "style", None), "name", "") in ("heading", "subheading")]


def test_no_heading_is_left_at_a_page_bottom(shift_report):
    """The players' table grown one row at a time moves every heading after it down the
    page: at none of those lengths does a heading end a page."""
    base = shift_report.result
    player = base["players"][0]
    for extra in range(0, 40, 2):
        shift_report.result = {**base, "players": base["players"] + [dict(player, player=f"p{n}")
                                                                    for n in range(extra)]}
        assert _heading_at_page_bottom(shift_report) == [], extra


# ---------------------------------------------------------------------------------------
# Voided hands and closed banks


def test_a_voided_hand_shows_no_result(auditor, played):
    voided = played.table.hands.get(status="voided")
    listing = auditor.get(reverse("tables:hand_list", args=[played.table.pk])).content.decode()
    row = listing.split(f">{voided.number}</a>")[1].split("</tr>")[0]
    assert voided.settlement["bank"]["net"] not in row and "—" in row
    detail = auditor.get(reverse("tables:hand_detail", args=[played.table.pk, voided.number])).content.decode()
    assert 'class="no-result"' in detail and '<details class="reversed">' in detail


def test_a_closed_bank_shows_its_closing_balance_and_result(played, staff, client):
    closed = BankTenure.objects.get(table=played.table, holder__code="ana")
    assert closed.closed_at is not None and closed.account.balance == 0
    balance, result = tenure_closings([closed])[closed.pk]
    # ana's bank: 100.00 of capital, +10.00 then −30.00 (her natural lost to luis's 7½)
    assert (balance, result) == (closed.capital - 20, -20)
    today = closed.opened_at.astimezone().date()
    row = next(row for row in bank_rotation_report(played.table, today, today)["tenures"] if row["id"] == closed.pk)
    from reports.exports import closing
    assert closing(row) == (f"{closed.capital - 20:.2f}", "-20.00")
    client.force_login(staff["cashier"])
    page = client.get(reverse("cage:tenures")).content.decode()
    assert "80,00" in page and "-20,00" in page


def test_the_period_is_a_day_in_words(banks_report):
    with translation.override("es"):
        heading = dict(sections(banks_report)[0][2])
    day = date.fromisoformat(banks_report.result["period"]["from"])
    assert heading["desde"] == f"{day:%d/%m/%Y}"  # the casino's one date form in Spanish, not ISO


# ---------------------------------------------------------------------------------------
# Words drawn from data at display time


def test_postings_store_their_cause_and_pages_show_it_in_spanish(played, staff, client):
    """A hand's posting, a slip, a bank's capital and a void's reversal: each transaction
    has its cause; the hand's page and a statement show them in Spanish."""
    voided = played.table.hands.get(status="voided")
    reversal = Transaction.objects.get(reverses=voided.transaction)
    assert voided.transaction.cause == {"kind": "hand", "table": "Mesa 1", "table_id": played.table.pk,
                                        "number": voided.number}
    assert reversal.cause["void"]["number"] == voided.number and reversal.memo == "dealt from the wrong shoe"
    assert Transaction.objects.filter(kind="buy_in").first().cause["kind"] == "slip"
    deposit = Transaction.objects.filter(kind="capital_in").first()  # the bank's capital deposited at the cage
    assert deposit.cause == {"kind": "slip", "number": deposit.slip.number, "tenure": deposit.slip.tenure_id}
    client.force_login(staff["supervisor"])
    html = client.get(reverse("tables:hand_detail", args=[played.table.pk, voided.number])).content.decode()
    assert f"mano n.º {voided.number} de Mesa 1" in html and "anulación de la mano" in html
    assert f"hand Mesa 1 #{voided.number}" not in html and "(console)" not in html and "void of" not in html
    assert "consola de mesa" in html
    client.force_login(staff["cashier"])
    page = client.get(reverse("cage:player_statement", args=["marta"])).content.decode()
    assert "vale 0000" in page and "slip 0000" not in page and "hand Mesa" not in page


def test_exceptions_in_words_carry_the_readers_figures():
    from reports.texts import exception_text

    with translation.override("es"):
        text = exception_text({"code": "cards_not_uniform", "deck": "spanish-40", "chi_square": 81.5321, "df": 39,
                               "p_value": 9.2e-05, "alpha": 0.001})
        assert "81,53" in text and "p < 0,001" in text and "9.2e-05" not in text and "0,001)" in text
        differs = exception_text({"code": "tenure_differs", "tenure": 3, "holder": "ana", "report": "1234.50",
                                  "ledger": "1200.00", "difference": "34.50"})
        assert "1\xa0234,50 €" in differs and "34,50 €" in differs and "1234.50" not in differs


def test_the_deck_is_named_in_words(shift_report, auditor):
    with translation.override("es"):
        titles = [title for title, _header, _rows in sections(shift_report)]
    assert "Cartas repartidas, baraja española de 40 cartas" in titles
    html = auditor.get(reverse("reports:report", args=[shift_report.pk])).content.decode()
    assert "Baraja española de 40 cartas:" in html and "spanish-40" not in html
