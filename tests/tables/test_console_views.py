"""The dealer's console through the test client, on PostgreSQL: whole hands entered through
its forms and settled into the ledger, refusals that save nothing, stale screens, double
submissions, undo, the next hand, and who may see or enter what."""

import re
import uuid
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.urls import reverse

from ledger.selectors import player_balance
from tables import services
from tables.models import Hand, HandEvent
from tests.factories import TableFactory, UserFactory, deposit_bank

pytestmark = pytest.mark.django_db


class _Forms(HTMLParser):
    """The page's forms by id: their action, hidden inputs and checked radios, and the
    values of their submit buttons."""

    def __init__(self):
        super().__init__()
        self.forms, self.current = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.current = {"action": attrs.get("action", ""), "fields": {}, "buttons": []}
            self.forms[attrs.get("id", f"form{len(self.forms)}")] = self.current
        elif self.current is None:
            return
        elif tag == "input" and (attrs.get("type") == "hidden" or "checked" in attrs):
            self.current["fields"][attrs["name"]] = attrs.get("value", "")
        elif tag == "button" and attrs.get("name") == "action":
            self.current["buttons"].append(attrs["value"])

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


def forms_of(response):
    parser = _Forms()
    parser.feed(response.content.decode())
    return parser.forms


class Console:
    """A dealer's screen on a table's console: reads the page's forms and sends them."""

    def __init__(self, client, table):
        self.client, self.table = client, table
        self.url = reverse("tables:console", args=[table.pk])
        self.page = None

    def load(self):
        self.page = self.client.get(self.url)
        assert self.page.status_code == 200
        return self.page

    def form(self, form_id):
        forms = forms_of(self.page)
        assert form_id in forms, f"no {form_id} on the page; forms: {sorted(forms)}"
        return forms[form_id]

    def send(self, form_id, action=None, reload=True, headers=None, **typed):
        """Send a form of the page on screen as the dealer fills it; the response."""
        form = self.form(form_id)
        data = dict(form["fields"])
        data.update(typed)
        if action is not None:
            assert action in form["buttons"], f"{action} is not offered in {form_id}: {form['buttons']}"
            data["action"] = action
        response = self.client.post(form["action"], data, headers=headers)
        if reload and response.status_code == 302:
            self.load()
        return response

    def enter(self, line):
        """One entry as the table says it: ``luis card 7O``, ``marta card ? down``,
        ``bank reveal 4E``, ``luis bet 10``, ``marta identify 1 1C``; must be recorded."""
        words = line.split()
        seat, do, args = words[0], words[1], words[2:]
        if do == "deal":
            response = self.send("form-deal", "deal-unknown" if args[0] == "?" else "deal", seat=seat,
                                 card="" if args[0] == "?" else args[0])
        elif do == "bet":
            response = self.send("form-bet", "bet", amount=args[0])
        elif do == "card":
            down = "down" in args
            action = "card-unknown" if args[0] == "?" else "card-down" if down else "card"
            response = self.send("form-card", action, card="" if args[0] == "?" else args[0])
        elif do in ("reveal", "exchange", "fusilar"):
            response = self.send("form-card", do, card=args[0] if args else "")
        elif do in ("stand", "split"):
            response = self.send("form-play", do)
        elif do == "identify":
            response = self.send(f"form-identify-{seat}-{args[0]}", "identify", card=args[1])
        else:  # pragma: no cover - a typo in a test
            raise ValueError(line)
        assert response.status_code == 302, f"{line}: {refusal_of(response)}"
        return response

    @property
    def version(self):
        return int(re.search(r'data-version="(\d+)"', self.page.content.decode()).group(1))


def refusal_of(response):
    match = re.search(r'<div class="refusal[^"]*" role="alert"[^>]*>(.*?)</div>', response.content.decode(), re.S)
    return re.sub(r"<[^>]+>", "", match.group(1)).strip() if match else None


@pytest.fixture
def dealer_client(client, mesa):
    client.force_login(mesa.dealer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"  # the messages asserted are the English ones
    return client


@pytest.fixture
def screen(dealer_client, mesa):
    screen = Console(dealer_client, mesa.table)
    screen.load()
    return screen


def open_hand(screen, seats="luis marta"):
    response = screen.send("form-open", seats=seats)
    assert response.status_code == 302, refusal_of(response)
    return Hand.objects.get(table=screen.table, status=Hand.Status.OPEN)


def chips(mesa, code):
    return player_balance(player=mesa.players[code])


# The hand: a split, a face-down card entered unknown and named at the showdown.
SPLIT_AND_UNKNOWN = [
    "luis deal 11O", "marta deal ?", "bank deal 4E",
    "luis bet 10", "luis card 12C", "luis split", "luis card 5O", "luis stand",
    "luis bet 10", "luis card 3B", "luis stand",
    "marta bet 20", "marta card 6B", "marta stand",
    "bank card 6O",  # 4 + 6 = 10: the bank is bust
    "marta identify 1 1C",
]


def test_a_full_hand_entered_through_the_console_is_settled_and_posted(screen, mesa):
    hand = open_hand(screen)
    assert hand.number == 1 and hand.bank.code == "ana" and hand.seats == ["luis", "marta"]
    for line in SPLIT_AND_UNKNOWN[:-1]:
        screen.enter(line)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.OPEN  # marta's first card is still unnamed
    page = screen.page.content.decode()
    assert "Showdown" in page and 'class="card back"' in page
    screen.enter(SPLIT_AND_UNKNOWN[-1])
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED and hand.splits == 1
    assert hand.settlement["players"] == {"luis": "20.00", "marta": "20.00"}
    assert [(b["seat"], b["hand"], b["result"], b["net"]) for b in hand.settlement["bets"]] == [
        ("luis", 1, "win", "10.00"), ("luis", 2, "win", "10.00"), ("marta", 1, "win", "20.00")]
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("520.00"), Decimal("520.00"))
    assert hand.tenure.account.balance == Decimal("60.00")
    page = screen.page.content.decode()
    assert 'id="settlement"' in page and "Next bank: ana" in page
    # Each seat's result on the felt, with what the dealer pays or collects; each player's total.
    assert re.search(r'data-who="marta".*?class="result win">wins</span> <span class="amount pay">pay 20\.00 €', page, re.S)
    assert len(re.findall(r'data-who="luis".*?data-who="marta"', page, re.S)) == 1
    assert page.count('<span class="amount pay">pay 10.00 €</span>') == 2  # luis's two hands
    assert re.search(r'<li data-player="marta">.*?pay 20\.00 €', page, re.S)
    assert forms_of(screen.page)["form-open"]["fields"]["after"] == "1"
    assert 'value="luis marta"' in page  # the next hand's seats, prefilled


def test_the_console_offers_only_the_entries_legal_now(screen):
    open_hand(screen)
    assert set(forms_of(screen.page)) >= {"form-deal"} and "form-card" not in forms_of(screen.page)
    assert screen.form("form-deal")["buttons"] == ["deal", "deal-unknown"]
    assert screen.form("form-deal")["fields"]["seat"] == "luis"  # whose card is next
    for line in ("luis deal 7O", "marta deal 11C", "bank deal 4E"):
        screen.enter(line)
    forms = forms_of(screen.page)
    assert "form-deal" not in forms and "form-bet" in forms
    assert forms["form-card"]["buttons"] == ["reveal"]  # no card before the stake
    assert "form-play" not in forms  # nor a stand
    assert "from 5,00 to 100,00 €" in screen.page.content.decode() or "from 5.00 to 100.00 €" in screen.page.content.decode()
    screen.enter("luis bet 10")
    forms = forms_of(screen.page)
    assert forms["form-card"]["buttons"] == ["card", "reveal", "fusilar", "fusilar-unknown"]  # his 7 may be fusilado
    assert forms["form-play"]["buttons"] == ["stand"]
    live = re.search(r'class="picker"[^>]* data-live="([^"]*)"', screen.page.content.decode()).group(1).split()
    assert "7O" in live and "7C" not in live  # the picker greys out the cards on the table


def test_an_illegal_entry_shows_the_rule_broken_and_writes_nothing(screen):
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    response = screen.send("form-bet", "bet", amount="500")
    assert response.status_code == 200
    assert "may not exceed 100.00" in refusal_of(response)
    hand.refresh_from_db()
    assert hand.version == 3 and HandEvent.objects.filter(hand=hand).count() == 3
    # What was typed stays on screen to be corrected.
    assert forms_of(response)["form-bet"] and 'value="500"' in response.content.decode()


def test_a_card_that_is_no_card_names_the_field_and_writes_nothing(screen):
    hand = open_hand(screen)
    response = screen.send("form-deal", "deal", card="8O")
    assert response.status_code == 200
    assert "Card: 8O is not a card" in refusal_of(response)
    response = screen.send("form-deal", "deal-unknown", card="7O")  # unknown, yet named
    assert "An unknown card is entered without its name" in refusal_of(response)
    hand.refresh_from_db()
    assert hand.version == 0


def test_an_empty_stake_asks_for_the_stake_and_writes_nothing(screen):
    """Enter on an empty stake box: the refusal asks for the stake (it said "– is not an
    amount of euros")."""
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    for empty in ("", "  ", "€"):
        refusal = refusal_of(screen.send("form-bet", "bet", amount=empty))
        assert "Stake (€): Enter the stake: type it (10, 12,50) or use a chip." in refusal
        assert "–" not in refusal
    hand.refresh_from_db()
    assert hand.version == 3


def test_the_stake_hint_keeps_each_amount_with_its_euro_sign(screen, dealer_client):
    """On a phone the hint wrapped before a lone "€": in Spanish the sign is tied to its
    amount by a no-break space."""
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis stand"):
        screen.enter(line)
    assert hand.status == Hand.Status.OPEN
    dealer_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    html = dealer_client.get(reverse("tables:console", args=[screen.table.pk])).content.decode()
    hint = html.split('id="stake-hint">')[1].split("</span>")[0]
    assert hint == "de 5,00 a 100,00\u00a0€", hint


def test_a_stake_is_typed_with_a_comma_or_a_point(screen):
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    assert screen.send("form-bet", "bet", amount="12,50").status_code == 302
    assert HandEvent.objects.filter(hand=hand).order_by("sequence").last().event == {
        "do": "bet", "seat": "luis", "amount": "12.50"}
    response = screen.send("form-card", "card", card="x")
    assert "Card: x is not a card" in refusal_of(response)
    response = screen.send("form-bet", "bet", amount="1.005")
    assert "Stake (€): 1.005 is not an amount of euros" in refusal_of(response)


def test_an_entry_from_a_stale_screen_is_refused_with_a_message_to_reload(dealer_client, mesa):
    first, second = Console(dealer_client, mesa.table), Console(dealer_client, mesa.table)
    first.load()
    hand = open_hand(first)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        first.enter(line)
    second.load()
    first.enter("luis bet 10")
    response = second.send("form-bet", "bet", amount="20")
    assert response.status_code == 409
    assert "another entry came first" in refusal_of(response) and "enter again" in refusal_of(response)
    hand.refresh_from_db()
    assert hand.version == 4
    assert HandEvent.objects.filter(hand=hand).order_by("sequence").last().event["amount"] == "10.00"
    # The screen sent back is the fresh one: its forms carry the new version.
    assert forms_of(response)["form-card"]["fields"]["version"] == "4"
    # In Spanish, the sentence once (its translation once held it three times, in pieces).
    dealer_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    response = second.send("form-bet", "bet", amount="20")
    words = " ".join(refusal_of(response).split())
    assert response.status_code == 409
    assert words.count("vuelva a anotar") == 1 and words.endswith("revísela y vuelva a anotar.")


def test_the_same_form_sent_twice_records_once(screen):
    hand = open_hand(screen)
    form = screen.form("form-deal")
    data = {**form["fields"], "action": "deal", "card": "5O"}
    first = screen.client.post(form["action"], data)
    again = screen.client.post(form["action"], data)  # a double click, or a refresh
    assert first.status_code == again.status_code == 302
    assert HandEvent.objects.filter(hand=hand).count() == 1
    assert HandEvent.objects.get(hand=hand).form_token == uuid.UUID(data["token"])


def test_every_form_on_a_screen_has_its_own_token(screen):
    open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10"):
        screen.enter(line)
    tokens = [form["fields"]["token"] for form in forms_of(screen.page).values() if "token" in form["fields"]]
    assert len(tokens) >= 2 and len(set(tokens)) == len(tokens)


def test_undo_asks_for_a_reason_and_records_the_undo(screen, mesa):
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B"):
        screen.enter(line)
    undo_url = reverse("tables:console_undo", args=[mesa.table.pk])
    confirm = screen.client.get(undo_url)
    assert confirm.status_code == 200 and "luis: card 2B" in confirm.content.decode()
    form = forms_of(confirm)["form-undo"]
    refused = screen.client.post(undo_url, {**form["fields"], "reason": "   "})
    assert refused.status_code == 200 and "Say why the event is undone" in confirm_text(refused)
    assert HandEvent.objects.filter(hand=hand).count() == 5
    done = screen.client.post(undo_url, {**form["fields"], "reason": "it was the 1 of bastos"})
    assert done.status_code == 302
    undo = HandEvent.objects.get(hand=hand, sequence=6)
    assert undo.kind == "undo" and undo.event == {"undo": 5, "reason": "it was the 1 of bastos"}
    assert HandEvent.objects.filter(hand=hand).count() == 6  # nothing deleted
    screen.load()
    assert 'data-card="2B"' not in screen.page.content.decode()
    screen.enter("luis card 1B")
    hand.refresh_from_db()
    assert hand.version == 7


def confirm_text(response):
    return re.sub(r"<[^>]+>", " ", response.content.decode())


def test_the_next_hand_opens_with_the_bank_that_passed_on_a_natural(screen, mesa):
    open_hand(screen)
    for line in ("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 11B",
                 "marta bet 10", "marta card 4C", "marta stand", "bank stand"):
        screen.enter(line)
    page = screen.page.content.decode()
    assert "Next bank: luis" in page and "Bank: luis" in page
    assert forms_of(screen.page)["form-open"]["fields"]["after"] == "1"
    # The previous seats, luis (who takes the bank) and the bank he takes it from changing places.
    former = Hand.objects.get(table=mesa.table, number=1).bank.code
    assert former not in ("luis", "marta")
    assert f'name="seats" value="{former} marta"' in page
    refused = screen.send("form-open", seats="marta nobody")
    assert refused.status_code == 200
    assert "not registered players: nobody" in refusal_of(refused)
    refused_page = refused.content.decode()  # the seats typed stay, the error and the hint are named
    assert 'name="seats" value="marta nobody"' in refused_page and 'aria-invalid="true"' in refused_page
    assert 'aria-describedby="id_seats_helptext id_seats_error"' in refused_page
    assert 'id="id_seats_error"' in refused_page and 'id="id_seats_helptext"' in refused_page
    assert not Hand.objects.filter(number=2).exists()
    data = {**screen.form("form-open")["fields"], "seats": "ana, marta"}
    first = screen.client.post(screen.form("form-open")["action"], data)
    again = screen.client.post(screen.form("form-open")["action"], data)
    assert first.status_code == again.status_code == 302
    second = Hand.objects.get(table=mesa.table, number=2)
    assert second.bank.code == "luis" and second.seats == ["ana", "marta"]
    assert Hand.objects.filter(table=mesa.table).count() == 2


# --------------------------------------------------------------------------- who may do what

FETCHED = {"X-Console-Fetch": "1"}


def test_the_scripts_answer_to_the_last_entry_names_the_next_bank_as_a_reload_does(screen, mesa):
    """The answer to a hand's last entry names the next bank from the hand just settled:
    the player whose 7½ took the bank, else the holder; a reload says the same."""
    open_hand(screen)
    for line in ("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 11B",
                 "marta bet 10", "marta card 4C", "marta stand"):
        screen.enter(line)
    answer = screen.send("form-play", "stand", headers=FETCHED).content.decode()
    assert "Next bank: luis" in answer and "Bank: luis" in answer and 'data-bank="luis"' in answer
    assert 'data-bank="luis"' in screen.load().content.decode()
    open_hand(screen, seats="ana marta")
    for line in ("ana deal 2O", "marta deal 3C", "bank deal 5E", "ana bet 10", "ana stand", "marta bet 10",
                 "marta stand"):
        screen.enter(line)
    answer = screen.send("form-play", "stand", headers=FETCHED).content.decode()
    assert "Next bank: luis" in answer and 'data-bank="luis"' in answer
    assert 'data-bank="luis"' in screen.load().content.decode()


def test_the_consoles_script_gets_the_new_console_in_one_request(screen, mesa):
    """The console's script sends the forms with X-Console-Fetch: the answer is the new
    console's body itself (the one the page draws, with the messages; without the page
    around it), no redirect."""
    opened = screen.send("form-open", seats="luis marta", headers=FETCHED)
    assert opened.status_code == 200
    page = opened.content.decode()
    assert 'data-status="open"' in page and 'data-version="0"' in page and "Hand #1 is open" in page
    assert page.lstrip().startswith('<div id="console"') and page.count('id="console"') == 1
    assert "<main>" not in page and 'class="top"' not in page and "<style>" not in page  # the page stays as it was
    full = screen.load().content.decode()  # the page draws the same body, in the layout
    assert full.count('id="console"') == 1 and full.count("<main>") == 1 and 'class="top"' in full
    screen.page = opened
    entered = screen.send("form-deal", "deal", seat="luis", card="5O", headers=FETCHED)
    assert entered.status_code == 200 and 'data-version="1"' in entered.content.decode()
    assert 'class="top"' not in entered.content.decode()
    screen.page = entered
    assert screen.send("form-deal", "deal", seat="marta", card="3C", reload=False).status_code == 302  # no script
    assert HandEvent.objects.filter(hand__table=mesa.table).count() == 2
    full = screen.load().content.decode()
    assert 'class="top"' in full and 'data-version="2"' in full


def test_the_console_speaks_spanish_at_the_table(client, mesa):
    """Spanish by default: the console's page and the answer to its script, every word of
    them from the catalogues (the body is a Jinja2 template, the page around it Django's)."""
    client.force_login(mesa.dealer)
    screen = Console(client, mesa.table)
    page = screen.load().content.decode()
    assert "Primera mano" in page and "Todas las mesas" in page and "Consola" in page
    opened = screen.send("form-open", seats="luis marta", headers=FETCHED).content.decode()
    assert "Carta inicial para" in opened and "Teclas" in opened
    assert "mano n.º 1" in opened and "Reparto inicial" in opened and "Repartir desconocida (tapada)" in opened
    assert "40 cartas en el mazo" in opened
    for english in ("Initial deal", "All tables", "Reload", "cards in the stock", "hand #1"):
        assert english not in opened


def test_the_felt_speaks_each_users_language_in_one_process(client, mesa):
    """The felt's words are translated once per language and process: a Spanish screen
    and an English one drawn one after the other each get their own."""
    client.force_login(mesa.dealer)
    screen = Console(client, mesa.table)
    screen.load()
    screen.send("form-open", seats="luis marta")
    screen.send("form-deal", "deal", seat="luis", card="3C")
    spanish = screen.page.content.decode()
    assert 'title="puntos"' in spanish and "en juego" in spanish and "banca · ana" in spanish
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    screen.send("form-deal", "deal", seat="marta", card="5O")
    english = screen.page.content.decode()
    assert 'title="points"' in english and "playing" in english and "bank · ana" in english
    assert "puntos" not in english and "en juego" not in english
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    again = screen.load().content.decode()
    assert 'title="puntos"' in again and 'title="points"' not in again


def test_anonymous_users_are_sent_to_log_in(client, mesa):
    for url in (reverse("tables:console_tables"), reverse("tables:console", args=[mesa.table.pk])):
        response = client.get(url)
        assert response.status_code == 302 and reverse("login") in response["Location"]
    response = client.post(reverse("tables:console_entry", args=[mesa.table.pk]), {"action": "deal"})
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_a_dealer_at_another_table_gets_403(client, mesa):
    other = TableFactory(name="Mesa 2")
    stranger = UserFactory(username="dealer2", roles=["dealer"])
    services.shift_open(table=other, dealer=stranger, opened_by=mesa.supervisor)
    hand = mesa.open("luis", "marta")
    client.force_login(stranger)
    assert client.get(reverse("tables:console", args=[mesa.table.pk])).status_code == 403
    response = client.post(reverse("tables:console_entry", args=[mesa.table.pk]), {
        "action": "deal", "seat": "luis", "card": "5O", "version": 0, "token": str(uuid.uuid4())})
    assert response.status_code == 403
    assert client.get(reverse("tables:console_undo", args=[mesa.table.pk])).status_code == 403
    assert HandEvent.objects.filter(hand=hand).count() == 0
    # Hand 1 is open: the table's dealer would be sent back to his console (302).
    response = client.post(reverse("tables:console_open", args=[mesa.table.pk]), {"seats": "luis", "after": 1})
    assert response.status_code == 403
    listing = client.get(reverse("tables:console_tables")).content.decode()
    assert 'data-table="Mesa 2"' in listing and 'data-table="Mesa 1"' not in listing


def test_a_table_without_an_open_shift_says_so_not_that_the_role_is_wrong(client, mesa):
    """A dealer at a table whose shift is not open: the refusal's title does not blame his
    role (he is a dealer); the reason says what is missing."""
    closed = TableFactory(name="Mesa 2")
    client.force_login(mesa.dealer)
    response = client.get(reverse("tables:console", args=[closed.pk]))
    text = response.content.decode()
    assert response.status_code == 403
    assert "<h1>No puede abrir esta página</h1>" in text and "no es para su rol" not in text
    assert "Esta mesa no tiene turno abierto" in text


def test_an_auditor_reads_but_cannot_post(client, mesa, staff):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    client.force_login(staff["auditor"])
    page = client.get(reverse("tables:console", args=[mesa.table.pk]))
    assert page.status_code == 200
    assert not any(f.startswith("form-") for f in forms_of(page))  # no entry form at all
    assert 'data-card="5O"' in page.content.decode()
    response = client.post(reverse("tables:console_entry", args=[mesa.table.pk]), {
        "action": "bet", "seat": "luis", "amount": "10", "version": 3, "token": str(uuid.uuid4())})
    assert response.status_code == 403
    assert client.post(reverse("tables:console_open", args=[mesa.table.pk]), {"seats": "luis", "after": 0}
                       ).status_code == 403
    assert client.post(reverse("tables:console_undo", args=[mesa.table.pk]), {"reason": "x"}).status_code == 403
    hand.refresh_from_db()
    assert hand.version == 3


def test_a_pit_supervisor_reads_every_table_and_enters_nothing(client, mesa, staff):
    TableFactory(name="Mesa 2")
    mesa.open("luis", "marta")
    client.force_login(staff["supervisor"])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    listing = client.get(reverse("tables:console_tables")).content.decode()
    assert 'data-table="Mesa 1"' in listing and 'data-table="Mesa 2"' in listing
    page = client.get(reverse("tables:console", args=[mesa.table.pk]))
    assert page.status_code == 200 and "form-deal" not in forms_of(page)
    assert "only dealer1" in page.content.decode()
    response = client.post(reverse("tables:console_entry", args=[mesa.table.pk]), {
        "action": "deal", "seat": "luis", "card": "5O", "version": 0, "token": str(uuid.uuid4())})
    assert response.status_code == 403


def test_a_cashier_gets_403(client, mesa, staff):
    client.force_login(staff["cashier"])
    assert client.get(reverse("tables:console_tables")).status_code == 403
    assert client.get(reverse("tables:console", args=[mesa.table.pk])).status_code == 403


def test_the_dealer_lists_the_table_of_his_open_shift(dealer_client, mesa):
    listing = dealer_client.get(reverse("tables:console_tables")).content.decode()
    assert 'data-table="Mesa 1"' in listing
    assert reverse("tables:console", args=[mesa.table.pk]) in listing


def test_the_tables_list_is_paginated(client, staff):
    for n in range(30):
        TableFactory(name=f"Mesa {n + 10:02d}")
    client.force_login(staff["auditor"])
    first = client.get(reverse("tables:console_tables")).content.decode()
    second = client.get(reverse("tables:console_tables") + "?page=2").content.decode()
    assert first.count("data-table=") == 25 and second.count("data-table=") == 5
    assert 'data-table="Mesa 10"' in first and 'data-table="Mesa 39"' in second


# --------------------------------------------------------------------------- the other plays

@pytest.fixture
def profesional(mesa):
    """Mesa P (profesional: la loca, muerto; 5–100): rosa holds the bank; dealer1's shift."""
    table = TableFactory(name="Mesa P", rules={"profile": "profesional"})
    services.table_bank_draw(table=table, holder=mesa.players["rosa"], capital=Decimal("100.00"),
                             by=mesa.supervisor)
    deposit_bank(table)
    services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    return table


def test_la_loca_and_muerto_through_the_console(dealer_client, profesional, mesa):
    screen = Console(dealer_client, profesional)
    screen.load()
    hand = open_hand(screen, "luis marta")
    assert [f["buttons"] for f in [screen.form("form-deal")]] == [["deal", "deal-unknown"]]
    for line in ("luis deal 7O", "marta deal 3C", "loca deal 5E", "bank deal 2E"):
        screen.enter(line)
    # Anyone present bets on la loca before its card is seen.
    response = screen.send("form-loca", "bet", player="pepe", amount="10")
    assert response.status_code == 302, refusal_of(response)
    screen.enter("luis bet 10")  # the 7 alone: exactly twice the minimum
    assert "muerto" in screen.form("form-card")["buttons"]
    response = screen.send("form-card", "muerto", card="12B", amount="20")
    assert response.status_code == 302, refusal_of(response)
    for line in ("marta bet 10", "marta card 4B", "marta stand", "loca card 2O", "loca stand", "bank card 5B",
                 "bank stand"):
        screen.enter(line)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED and hand.muertos == 1
    assert [(b["player"], b["seat"], b["hand"], b["result"], b["net"]) for b in hand.settlement["bets"]] == [
        ("luis", "luis", 1, "lose", "-10.00"), ("luis", "luis", 2, "natural", "40.00"),
        ("marta", "marta", 1, "lose", "-10.00"), ("pepe", "loca", 1, "lose", "-10.00")]
    assert chips(mesa, "pepe") == Decimal("490.00")


def test_the_loca_form_says_which_phase_it_is_in(dealer_client, profesional, mesa):
    dealer_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    screen = Console(dealer_client, profesional)
    screen.load()
    hand = open_hand(screen, "luis marta")
    for line in ("luis deal 5O", "marta deal 3C", "loca deal 12E", "bank deal 2E"):
        screen.enter(line)
    assert "until la loca&#39;s turn begins" in screen.page.content.decode()
    for amount in ("5", "5"):  # two bets of pepe before its turn: his first stake is 10
        response = screen.send("form-loca", "bet", player="pepe", amount=amount)
        assert response.status_code == 302, refusal_of(response)
    for line in ("luis bet 10", "luis stand", "marta bet 10", "marta stand"):
        screen.enter(line)
    page = screen.page.content.decode()
    assert "turn has begun" in page and "pepe (up to 10.00 €)" in page
    response = screen.send("form-loca", "bet", player="sol", amount="5")  # a newcomer at its turn
    assert response.status_code == 200 and "va la loca" in refusal_of(response)
    response = screen.send("form-loca", "bet", player="pepe", amount="10.01")
    assert response.status_code == 200 and "twice his first stake" in refusal_of(response)
    response = screen.send("form-loca", "bet", player="pepe", amount="10")
    assert response.status_code == 302, refusal_of(response)
    assert "form-loca" not in forms_of(screen.page)  # 20 in all: nothing more to add
    for line in ("loca card 7B", "bank card 5B", "bank stand"):
        screen.enter(line)
    hand.refresh_from_db()
    assert hand.settlement["players"]["pepe"] == "40.00"  # la loca's 7½ pays twice the 20


def test_a_seat_standing_on_an_announced_seven_and_a_half_names_its_face_down_card(dealer_client, mesa):
    table = TableFactory(name="Mesa C", rules={"profile": "reglamento", "bank_chases_natural": True})
    services.table_bank_draw(table=table, holder=mesa.players["ana"], capital=Decimal("100.00"), by=mesa.supervisor)
    deposit_bank(table)
    services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    screen = Console(dealer_client, table)
    screen.load()
    hand = open_hand(screen)
    for line in ("luis deal ?", "marta deal 3C", "bank deal 5E", "luis bet 10", "luis card 7B"):
        screen.enter(line)
    assert "announce" in screen.form("form-card")["buttons"]
    response = screen.send("form-card", "announce", card="2O")
    assert response.status_code == 200 and "not 7½" in refusal_of(response)
    response = screen.send("form-card", "announce", card="11O")
    assert response.status_code == 302, refusal_of(response)
    for line in ("marta bet 10", "marta stand"):
        screen.enter(line)
    # The bank on 5 against an announced 7½: it may not stand, only draw.
    assert "form-play" not in forms_of(screen.page)
    assert "The bank must draw" in screen.page.content.decode() or "La banca debe pedir" in screen.page.content.decode()
    screen.enter("bank card 2B")  # 7: still below 7½, the bank must draw again
    assert "form-play" not in forms_of(screen.page)
    screen.enter("bank card 1B")  # 8: bust
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED and hand.cards[0] == "11O"
    assert hand.settlement["players"] == {"luis": "20.00", "marta": "10.00"}


def test_a_face_down_card_entered_unknown_is_named_when_turned_up(screen):
    hand = open_hand(screen)
    for line in ("luis deal ?", "marta deal 3C", "bank deal ?", "luis bet 10"):
        screen.enter(line)
    assert screen.form("form-card")["buttons"] == ["card", "reveal"]
    response = screen.send("form-card", "reveal")  # an unknown card is named as it turns up
    assert "name the card luis turns up" in refusal_of(response)
    screen.enter("luis reveal 6O")
    assert "card-down" in screen.form("form-card")["buttons"]  # the next one may come face down
    screen.enter("luis card ? down")
    screen.enter("luis stand")
    screen.enter("marta bet 10")
    screen.enter("marta card 4E")
    screen.enter("marta stand")
    # The bank names its own card as it turns it up, before it plays.
    assert screen.form("form-card")["buttons"] == ["reveal"]
    screen.enter("bank reveal 5O")
    screen.enter("bank card 2B")
    screen.enter("bank stand")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.OPEN
    assert set(f for f in forms_of(screen.page) if f.startswith("form-identify")) == {"form-identify-luis-1"}
    response = screen.send("form-identify-luis-1", "identify", card="3O")  # 6 + 3 = 9: yet luis stood
    assert response.status_code == 200 and "bust" in refusal_of(response)
    screen.enter("luis identify 1 1O")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["players"] == {"luis": "-10.00", "marta": "-10.00"}  # 7 and 6.5 against the bank's 7


def test_a_screen_of_an_earlier_hand_is_stale_even_at_the_same_version(screen, mesa):
    open_hand(screen)
    for line in ("luis deal 7O", "marta deal 2C", "bank deal 5E"):
        screen.enter(line)
    old_page = screen.page  # hand #1 at version 3, luis to bet
    for line in ("luis bet 10", "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand"):
        screen.enter(line)
    data = {**screen.form("form-open")["fields"], "seats": "ana marta"}
    screen.client.post(screen.form("form-open")["action"], data)
    second = Hand.objects.get(table=mesa.table, number=2)
    for line in ("marta deal 3O", "ana deal 4C", "bank deal 6E"):  # luis holds the bank now
        screen.load()
        screen.enter(line)
    second.refresh_from_db()
    assert second.version == 3
    screen.page = old_page
    # Another screen left on hand #1 (its own form, never sent): not a form sent again, whose
    # entry is recorded once and answered with the console as it is (test_console_offline).
    response = screen.send("form-bet", "bet", amount="10", reload=False, token=str(uuid.uuid4()))
    assert response.status_code == 409 and "another entry came first" in refusal_of(response)
    second.refresh_from_db()
    assert second.version == 3


def test_a_side_bet_through_the_console_settles_as_the_seat(dealer_client, mesa):
    table = TableFactory(name="Mesa S", rules={"profile": "reglamento", "side_bets": True})
    services.table_bank_draw(table=table, holder=mesa.players["rosa"], capital=Decimal("100.00"),
                             by=mesa.supervisor)
    deposit_bank(table)
    services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    screen = Console(dealer_client, table)
    screen.load()
    hand = open_hand(screen, "luis marta")
    for line in ("luis deal 6O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    refused = screen.send("form-side", "bet", player="nobody", seat="luis", amount="10")
    assert refused.status_code == 200 and "nobody" in refusal_of(refused)
    response = screen.send("form-side", "bet", player="pepe", seat="luis", amount="15")
    assert response.status_code == 302, refusal_of(response)
    for line in ("luis bet 10", "luis card 1B", "luis stand", "marta bet 10", "marta stand", "bank card 3E",
                 "bank stand"):
        screen.enter(line)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["players"] == {"luis": "10.00", "pepe": "15.00", "marta": "-10.00"}  # 7 beats 5
    assert chips(mesa, "pepe") == Decimal("515.00")


def test_the_settlement_lists_the_players_in_the_order_of_play(screen):
    """The settlement's box pays around the felt: marta before luis when she plays first,
    though ``jsonb`` gives the stored players' object back shortest name first."""
    hand = open_hand(screen, "marta luis")
    for line in ("marta deal 6O", "luis deal 3C", "bank deal 2E", "marta bet 10", "marta stand", "luis bet 10",
                 "luis stand", "bank card 3E", "bank stand"):
        screen.enter(line)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED and list(hand.settlement["players"]) == ["luis", "marta"]
    box = re.search(r'<section class="settlement".*?</section>', screen.page.content.decode(), re.S).group(0)
    assert re.findall(r'<li data-player="([^"]+)"', box) == ["marta", "luis"]


# --------------------------------------------------------------------------- the dealer's keys and focus

def autofocus_of(response):
    """``(form id, field name)`` of the element the console focuses next (``autofocus``)."""
    page = response.content.decode()
    found = re.findall(r'<form [^>]*id="([\w-]+)"((?:(?!</form>).)*?)<(?:input|button) ([^>]*) autofocus', page, re.S)
    assert len(found) == 1, found
    form_id, _before, attrs = found[0]
    name = (re.search(r'name="(\w+)"', attrs) or re.search(r'id="([\w-]+)"', attrs)).group(1)
    value = re.search(r'value="(\w+)"', attrs) if name == "action" else None
    return form_id, value.group(1) if value else name


def test_the_focus_goes_where_the_next_entry_is_typed(screen):
    open_hand(screen)
    assert autofocus_of(screen.page) == ("form-deal", "card")
    for line in ("luis deal 5O", "marta deal 3C"):
        screen.enter(line)
        assert autofocus_of(screen.page) == ("form-deal", "card")
    screen.enter("bank deal 2E")
    assert autofocus_of(screen.page) == ("form-bet", "amount")  # luis bets first
    screen.enter("luis bet 10")
    assert autofocus_of(screen.page) == ("form-card", "card")  # then his card
    screen.enter("luis card 1B")
    assert autofocus_of(screen.page) == ("form-card", "card")  # another card, or P to stand
    screen.enter("luis stand")
    assert autofocus_of(screen.page) == ("form-bet", "amount")  # marta's stake
    # A refused card: its box has the focus, and what was typed, to type again.
    response = screen.send("form-bet", "bet", amount="500")
    assert autofocus_of(response) == ("form-bet", "amount") and 'value="500"' in response.content.decode()
    screen.enter("marta bet 10")
    response = screen.send("form-card", "card", card="5O")  # luis's initial card
    assert response.status_code == 200 and "5O is already on the table" in refusal_of(response)
    assert autofocus_of(response) == ("form-card", "card") and 'placeholder="7O" value="5O" autofocus' in response.content.decode()
    for line in ("marta card 4C", "marta stand", "bank card 4B"):
        screen.enter(line)
    assert autofocus_of(screen.page) == ("form-card", "card")
    screen.enter("bank stand")
    # The next hand, Enter away: its button has the focus (K and U still work between hands).
    assert autofocus_of(screen.page) == ("form-open", "open-hand")


def test_every_entry_button_shows_its_key_and_the_help_lists_them(screen):
    open_hand(screen)
    page = screen.page.content.decode()
    assert re.search(r'value="deal" data-key="enter" aria-keyshortcuts="Enter" data-needs-card>Deal <kbd aria-hidden="true">⏎</kbd>', page)
    assert re.search(r'value="deal-unknown" data-key="x" aria-keyshortcuts="X"[^>]*>Deal unknown \(face down\) <kbd aria-hidden="true">X</kbd>', page)
    for line in ("luis deal 7O", "marta deal 3C", "bank deal 2E", "luis bet 10"):
        screen.enter(line)
    page = screen.page.content.decode()
    keys = dict(re.findall(r'<button name="action" value="([\w-]+)" data-key="([^"]+)"', page))
    assert keys == {"card": "enter", "reveal": "v", "fusilar": "f", "fusilar-unknown": "shift+f", "stand": "p",
                    "bet": "enter"}
    assert '<kbd aria-hidden="true">P</kbd>' in page and '<kbd aria-hidden="true">⇧F</kbd>' in page
    help_text = re.search(r'<dialog id="keys-help".*?</dialog>', page, re.S).group(0)
    for label in ("Card face up", "Fusilar: unknown card", "luis stands", "Undo the last entry"):
        assert label in help_text
    assert f'href="/tables/console/{screen.table.pk}/undo/" data-key="z"' in page


def test_the_deal_proposes_the_next_place_in_the_order_of_play(screen):
    open_hand(screen, "luis marta pepe")
    screen.enter("luis deal 5O")
    page = screen.page.content.decode()
    assert re.search(r'value="marta" checked data-proposed>', page)
    # Another place asks first (in the page); without the script the server takes it.
    assert re.search(r'value="pepe" data-confirm="Deal this card to pepe\? In the order of play the next card is marta&#39;s\."', page)
    assert screen.send("form-deal", "deal", seat="pepe", card="3C").status_code == 302


def test_a_stake_is_one_key_away_the_seats_last_and_the_tables_chips(screen, mesa):
    open_hand(screen)
    for line in ("luis deal 7O", "marta deal 3C", "bank deal 5E"):
        screen.enter(line)
    page = screen.page.content.decode()
    # No stake before: the box is empty; the chips of a 5–100 € table, keys Q W E R T Y.
    assert re.search(r'<input name="amount"[^>]* value=""[^>]* autofocus>', page)
    assert re.findall(r'data-chip="([\d.]+)" data-key="(\w)"', page) == [
        ("5", "q"), ("10", "w"), ("20", "e"), ("25", "r"), ("50", "t"), ("100", "y")]
    for line in ("luis bet 12.50", "luis card 11B", "marta bet 20", "marta card 4C", "marta stand", "bank stand"):
        screen.enter(line)
    screen.send("form-open", seats="marta pepe")  # luis took the bank with his 7½
    for line in ("marta deal 2O", "pepe deal 3E", "bank deal 4B"):
        screen.enter(line)
    # marta's stake of the last hand, ready: Enter bets it again.
    assert re.search(r'<input name="amount"[^>]* value="20"[^>]* autofocus>', screen.page.content.decode())
    assert "last stake 20.00 €" in screen.page.content.decode()
    screen.enter("marta bet 20")
    screen.enter("marta stand")
    assert re.search(r'<input name="amount"[^>]* value=""[^>]* autofocus>', screen.page.content.decode())  # pepe: none


def test_the_chips_are_the_usual_denominations_between_the_tables_limits():
    from tables.views.console import _chips

    def chips(low, high):
        return [str(c.amount) for c in _chips(Decimal(low), Decimal(high))]
    assert chips("5", "100") == ["5", "10", "20", "25", "50", "100"]
    assert chips("1", "10") == ["1", "2", "5", "10"]
    assert chips("0", "2") == ["0.50", "1", "2"]
    assert chips("10", "10000") == ["10", "25", "100", "500", "2000", "10000"]  # six, the lowest to the highest
    assert len(chips("1", "100000")) == 6
