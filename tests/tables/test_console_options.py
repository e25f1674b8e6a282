"""The seeds' last options at the console (test client, PostgreSQL), in the services and
in the import: a French deck's cards typed and refused by deck, splits of pairs offered
only where the table agreed them (a pair over 7½ too), the one-card cap's stand greyed and
refused naming its figures, la loca's calls with its responsable among its bettors."""

import pytest
from django import forms
from django.conf import settings
from django.utils import translation

from tables import services
from tables.forms.console import parse_card_text
from tables.models import Hand, HandEvent
from tests.hands import event
from tests.tables.test_console_views import Console, forms_of, open_hand, refusal_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def language_back():
    yield
    translation.deactivate()


@pytest.fixture
def console(client, mesa):
    """The dealer's screen, in English (the messages asserted are the English ones)."""
    client.force_login(mesa.dealer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    screen = Console(client, mesa.table)
    screen.load()
    return screen


def set_rules(mesa, **rules):
    mesa.table.rules = rules
    mesa.table.save(update_fields=["rules"])


def played(screen, *lines):
    """Lines entered by the services on the screen's open hand; the screen reloaded."""
    hand = Hand.objects.get(table=screen.table, status=Hand.Status.OPEN)
    for line in lines:
        entry = event(line) if isinstance(line, str) else line
        hand = services.hand_record_event(hand=hand, event=entry, entered_by=hand.shift.dealer,
                                          expected_version=hand.version)
    screen.load()
    return hand


def page(screen):
    return screen.page.content.decode()


def last_event():
    return HandEvent.objects.order_by("sequence").last().event


def test_a_card_is_read_in_either_deck_and_in_the_tables_when_it_is_known():
    assert [parse_card_text(t) for t in ("qd", "as", "7c", "11c", "rb", "KH")] == ["QD", "AS", "7C", "11C", "12B", "KH"]
    assert parse_card_text("7h", "french-40") == "7H"
    with translation.override("en"):
        with pytest.raises(forms.ValidationError) as caught:
            parse_card_text("11c", "french-40")
        assert "French deck" in caught.value.messages[0] and "AS or qd" in caught.value.messages[0]
    with pytest.raises(forms.ValidationError):
        parse_card_text("QD", "spanish-40")


def test_a_french_table_takes_french_cards_and_shows_its_suits(console, mesa):
    screen = console
    set_rules(mesa, profile="reglamento", deck="french-40")
    open_hand(screen)
    body = page(screen)
    assert 'data-deck="french-40"' in body and 'data-pick="QD"' in body and "♦" in body and 'data-pick="7O"' not in body
    assert 'placeholder="7H"' in body and 'data-key="h"' in body  # the buy-in: K is a French rank
    screen.send("form-deal", "deal", seat="luis", card="qd")
    assert last_event() == {"do": "deal", "seat": "luis", "card": "QD"}
    response = screen.send("form-deal", "deal", reload=False, seat="marta", card="7O")
    assert response.status_code == 200 and "7O" in refusal_of(response) and "French" in refusal_of(response)
    response = screen.send("form-deal", "deal", reload=False, seat="marta", card="11c")  # neither deck's here
    assert "French deck" in refusal_of(response) and HandEvent.objects.count() == 1
    played(screen, "marta deal 3S", "bank deal 2H", "luis bet 10")
    assert "Q<small>♦</small>" in page(screen)
    buttons = forms_of(screen.page)["form-play"]["buttons"]
    assert "split" not in buttons  # a queen alone: nothing to split yet
    played(screen, "luis card KC")
    assert '<button name="action" value="split" data-key="o"' in page(screen)  # A is the ace here


def test_a_pair_splits_only_where_the_table_agreed_it(console, mesa):
    screen = console
    open_hand(screen)
    played(screen, "luis deal 3O", "marta deal 4C", "bank deal 2E", "luis bet 10", "luis card 3C")
    assert "split" not in forms_of(screen.page)["form-play"]["buttons"]
    services.hand_void(hand=Hand.objects.get(status=Hand.Status.OPEN), reason="again with split_pairs",
                       voided_by=mesa.supervisor)
    set_rules(mesa, profile="reglamento", split_pairs=True)
    screen.load()
    open_hand(screen)
    played(screen, "luis deal 3O", "marta deal 4C", "bank deal 2E", "luis bet 10", "luis card 3C")
    assert "split" in forms_of(screen.page)["form-play"]["buttons"]
    assert "second card of the same points" in page(screen)
    screen.send("form-play", "split")
    played(screen, "luis card 4E", "luis stand", "luis bet 10", "luis card 1B", "luis stand",
           "marta bet 10", "marta card 4B")  # two 4s: 8, bust unless she splits them now
    pair = forms_of(screen.page)["form-pair"]
    assert pair["fields"]["seat"] == "marta" and pair["buttons"] == ["split"]
    assert "form-card" in forms_of(screen.page)  # the bank's turn meanwhile
    screen.send("form-pair", "split")
    assert last_event() == {"do": "split", "seat": "marta"}
    assert "form-pair" not in forms_of(screen.page)


def test_a_stand_on_one_card_over_the_cap_is_greyed_and_refused_naming_it(console, mesa):
    screen = console
    set_rules(mesa, profile="profesional")
    open_hand(screen)
    played(screen, "luis deal 5O", "marta deal 3C", "loca deal 1E", "bank deal 2E")
    assert "to stand on this one card: at most 10.00" in page(screen)
    played(screen, "luis bet 20")
    body = page(screen)
    assert 'class="stand secondary capped"' in body and 'id="one-card-cap"' in body
    assert "at most 10.00 € (2 × the minimum bet): luis has 20.00 € on it" in body
    count = HandEvent.objects.count()
    response = screen.send("form-play", "stand", reload=False)
    assert response.status_code == 200 and HandEvent.objects.count() == count
    assert "stands on one card carries at most 10.00 € (2 × the minimum bet of 5.00 €); luis has 20.00 €" \
        in refusal_of(response)
    played(screen, "luis card 1C")
    assert "capped" not in page(screen) and "stand" in forms_of(screen.page)["form-play"]["buttons"]
    played(screen, "luis stand", "marta bet 10")  # at the cap: she may stand on her 3
    assert "capped" not in page(screen)
    screen.send("form-play", "stand")
    assert last_event() == {"do": "stand", "seat": "marta"}


def test_la_locas_calls_by_its_responsable_the_biggest_bettor_proposed(console, mesa):
    screen = console
    set_rules(mesa, profile="profesional", loca_calls=True)
    open_hand(screen, seats="luis")
    played(screen, "luis deal 2O", "loca deal 6C", "bank deal 3E", "loca bet 10 by pepe", "loca bet 20 by rosa",
           "luis bet 10", "luis card 5C", "luis stand")
    calls = forms_of(screen.page)["form-calls"]
    assert calls["buttons"] == ["dobla_quien_quiera", "dobla", "se_planta"]
    assert '<option value="rosa" selected>rosa (biggest stake)</option>' in page(screen)
    assert "stand" not in forms_of(screen.page).get("form-play", {"buttons": []})["buttons"]  # P is se planta
    response = screen.send("form-calls", "dobla", reload=False, player="")
    assert "Say who is la loca&#39;s responsable" in refusal_of(response)
    response = screen.send("form-calls", "dobla", reload=False, player="luis")  # no bettor on la loca
    assert "responsable is one of its bettors" in refusal_of(response)
    screen.load()
    screen.send("form-calls", "dobla", player="pepe")
    assert last_event() == {"do": "loca_call", "seat": "loca", "call": "dobla", "responsable": "pepe"}
    assert forms_of(screen.page)["form-calls"]["buttons"] == ["se_planta"]
    assert forms_of(screen.page)["form-calls"]["fields"]["player"] == "pepe"
    assert "pepe, for la loca: la loca dobla" in page(screen)
    screen.send("form-calls", "se_planta")
    played(screen, "bank card 5O")  # 3 + 5: bust
    assert Hand.objects.get().settlement["players"] == {"luis": "10.00", "pepe": "20.00", "rosa": "40.00"}
