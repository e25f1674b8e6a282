"""The boxes' pages: the console's buy-in (key K), a session's counts and explanations,
the cagnotte register and the daily control register, in Spanish, by role."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from boxes.errors import BoxError
from boxes.models import BoxCount, TableBuyIn, VarianceNote
from boxes.services import box_count, table_buy_in
from ledger.models import Account
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_es(client):
    client.cookies["django_language"] = "es"
    return client


def test_the_console_offers_the_buy_in_on_key_k(client_es, mesa):
    client_es.force_login(mesa.dealer)
    page = client_es.get(reverse("tables:console", args=[mesa.table.pk])).content.decode()
    assert 'id="buy-in"' in page and 'data-key="k"' in page and "Compra en la mesa" in page


def test_the_dealer_records_a_buy_in_once_even_sent_twice(client_es, mesa):
    client_es.force_login(mesa.dealer)
    url = reverse("boxes:buy_in", args=[mesa.table.pk])
    page = client_es.get(url)
    assert page.status_code == 200 and "autofocus" in page.content.decode()
    data = {"player": "luis", "amount": "150,50", "token": "a" * 32}
    answer = client_es.post(url, data, follow=True)
    assert answer.redirect_chain[-1][0] == reverse("tables:console", args=[mesa.table.pk])
    assert "150,50" in answer.content.decode()
    client_es.post(url, data)
    assert TableBuyIn.objects.count() == 1
    assert Account.objects.get(player__code="luis").balance == Decimal("650.50")


def test_a_buy_in_refused_names_the_field_and_writes_nothing(client_es, mesa):
    client_es.force_login(mesa.dealer)
    url = reverse("boxes:buy_in", args=[mesa.table.pk])
    answer = client_es.post(url, {"player": "nadie", "amount": "10", "token": "b" * 32})
    assert answer.status_code == 200 and "nadie" in answer.content.decode()
    answer = client_es.post(url, {"player": "luis", "amount": "200000", "token": "c" * 32})
    assert answer.status_code == 200 and "el importe supera el máximo de una compra" in answer.content.decode()
    assert not TableBuyIn.objects.exists()


def test_only_the_tables_dealer_records_its_buy_ins(client_es, mesa, staff):
    for user in (staff["cashier"], staff["auditor"]):
        client_es.force_login(user)
        assert client_es.post(reverse("boxes:buy_in", args=[mesa.table.pk]),
                              {"player": "luis", "amount": "10", "token": "d" * 32}).status_code == 403
    assert not TableBuyIn.objects.exists()


def _closed(mesa):
    table_buy_in(shift=mesa.shift, player=mesa.players["pepe"], amount=Decimal("200.00"), recorded_by=mesa.dealer)
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], P01)
    return mesa.close()


def test_the_pit_counts_a_box_and_explains_its_variance(client_es, mesa, counters):
    shift = _closed(mesa)
    first, second = counters
    client_es.force_login(first)
    url = reverse("boxes:session", args=[shift.pk])
    page = client_es.get(url).content.decode()
    assert "Contar una caja" in page and "200,00" in page
    # Each denomination as the site writes money: grouped as "2 000,00 €" is (not "1000,00 €").
    labels = re.findall(r'<label>([^<]+?) <input type="number" name="d_', page)
    assert "1\xa0000,00 €" in labels and "0,50 €" in labels and "1000,00 €" not in labels
    same = client_es.post(url, {"count": "1", "box": "cagnotte", "first_counter": first.pk,
                                "second_counter": first.pk, "d_0_50": "1"})
    assert same.status_code == 200 and "dos personas distintas" in same.content.decode()
    assert not BoxCount.objects.exists()
    done = client_es.post(url, {"count": "1", "box": "cagnotte", "first_counter": first.pk,
                                "second_counter": second.pk, "d_0_50": "1"}, follow=True)
    count = BoxCount.objects.get()
    assert (count.total, count.expected, count.variance) == (Decimal("0.50"), Decimal("1.00"), Decimal("-0.50"))
    assert "Sin explicar" in done.content.decode()
    client_es.post(url, {"explain": "1", "count_id": count.pk, f"n{count.pk}-text": "ficha de 0,50 extraviada"})
    assert VarianceNote.objects.get().explained_by == first
    assert "ficha de 0,50 extraviada" in client_es.get(url).content.decode()


def test_an_auditor_reads_the_boxes_and_registers_but_posts_nothing(client_es, mesa, counters, staff):
    shift = _closed(mesa)
    client_es.force_login(staff["auditor"])
    for name, args in (("boxes:session", [shift.pk]), ("boxes:cagnotte", [shift.pk]), ("boxes:daily", [])):
        assert client_es.get(reverse(name, args=args)).status_code == 200
    assert client_es.post(reverse("boxes:session", args=[shift.pk]),
                          {"count": "1", "box": "tips", "first_counter": counters[0].pk,
                           "second_counter": counters[1].pk, "d_5_00": "1"}).status_code == 403
    assert not BoxCount.objects.exists()


def test_the_cagnotte_register_numbers_each_levy_and_downloads_as_csv(client_es, mesa, counters):
    shift = _closed(mesa)
    client_es.force_login(counters[0])
    page = client_es.get(reverse("boxes:cagnotte", args=[shift.pk])).content.decode()
    assert "Registro de la cagnotte" in page and "1,00 €" in page
    rows = list(csv.reader(io.StringIO(client_es.get(reverse("boxes:cagnotte", args=[shift.pk]),
                                                     {"format": "csv"}).content.decode()), delimiter=";"))
    assert rows[0][0].startswith("# Campos separados por punto y coma") and rows[2][0] == "cobro"
    assert [row[0:2] + row[4:] for row in rows[3:]] == [["1", "1", "0,50", "0,50"], ["2", "2", "0,50", "1,00"]]


def test_the_daily_register_totals_every_table(client_es, mesa, counters):
    shift = _closed(mesa)
    box_count(shift=shift, box="cagnotte", pieces={"0.50": 2}, first_counter=counters[0],
              second_counter=counters[1], recorded_by=counters[0])
    box_count(shift=shift, box="drop", pieces={"100.00": 1, "50.00": 1}, first_counter=counters[0],
              second_counter=counters[1], recorded_by=counters[0])
    client_es.force_login(counters[0])
    day = timezone.localdate(shift.opened_at).isoformat()
    page = client_es.get(reverse("boxes:daily"), {"day": day}).content.decode()
    assert "Mesa 1" in page and "1 diferencia sin explicar" in page
    rows = list(csv.reader(io.StringIO(client_es.get(reverse("boxes:daily"), {"day": day, "format": "csv"})
                                       .content.decode()), delimiter=";"))
    assert rows[2][:3] == ["mesa", "sesión", "crupier"]
    assert rows[3][3:11] == ["2", "1,00", "1,00", "0,00", "200,00", "150,00", "-50,00", ""]
    assert rows[-1][2:10] == ["total", "2", "1,00", "1,00", "0,00", "200,00", "150,00", "-50,00"]


def test_a_dealer_who_relieved_in_the_session_is_not_offered_as_a_counter(client_es, mesa, counters, staff):
    """dealer3 relieved dealer1 in the session: neither is offered as a counter, and
    choosing dealer3 anyway is answered on the form, nothing counted."""
    from tables import services as tables_services
    from tests.factories import UserFactory

    relief = UserFactory(username="dealer3", roles=["dealer"])
    tables_services.dealer_relieve(shift=mesa.shift, dealer=relief, relieved_by=mesa.supervisor)
    shift = mesa.close()
    first, second = counters
    client_es.force_login(first)
    url = reverse("boxes:session", args=[shift.pk])
    form = client_es.get(url).context["form"]
    offered = set(form.fields["first_counter"].queryset) | set(form.fields["second_counter"].queryset)
    assert first in offered and second in offered
    assert relief not in offered and mesa.dealer not in offered
    answer = client_es.post(url, {"count": "1", "box": "tips", "first_counter": relief.pk,
                                  "second_counter": second.pk, "d_5_00": "1"})
    assert answer.status_code == 200 and "first_counter" in answer.context["form"].errors
    assert "no haya sido crupier en esta sesión" in answer.content.decode()
    with pytest.raises(BoxError, match="dealer3"):  # the service refuses him all the same
        box_count(shift=shift, box="tips", pieces={"5.00": 1}, first_counter=relief, second_counter=second,
                  recorded_by=first)
    assert not BoxCount.objects.exists()
