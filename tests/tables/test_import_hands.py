"""``manage.py import_hands``: hand records from real files recorded and settled at their
tables, in order; the first refused record stops the import, naming its file, line and
event, and nothing of it is written (PostgreSQL)."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from ledger.models import Transaction
from ledger.selectors import player_balance
from patrons.models import Player
from tables.models import BankTenure, Hand, HandEvent, Table
from tests.factories import UserFactory
from tests.hands import record

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]
#: luis makes 7½ with the bank on 5: he takes the bank for the next hand.
NATURAL = ["luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 11B", "marta bet 10",
           "marta card 4C", "marta stand", "bank stand"]


def hand(*lines, seats=("luis", "marta"), **fields):
    return record(*lines, seats=seats, **{"table": "Mesa 1", **fields})


def write(path, *records):
    """A .json file of one record, or .jsonl lines of several."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        (only,) = records
        path.write_text(json.dumps(only, indent=2))
    return str(path)


def run(*args):
    """``import_hands`` in English; returns its standard output."""
    from io import StringIO

    out = StringIO()
    with translation.override("en"):
        call_command("import_hands", *args, stdout=out)
    return out.getvalue()


def refused(*args):
    """``import_hands`` expected to stop: ``(message, stdout)``."""
    from io import StringIO

    out = StringIO()
    with translation.override("en"), pytest.raises(CommandError) as caught:
        call_command("import_hands", *args, stdout=out)
    assert caught.value.returncode == 1
    return str(caught.value), out.getvalue()


def test_record_files_are_recorded_and_settled_in_order(mesa, tmp_path):
    first = write(tmp_path / "b-first.json", hand(*P01, number=1))
    second = write(tmp_path / "a-second.json", hand(*P01, number=2))
    out = run(first, second)  # the order given, not the names' order
    assert "2 hands imported" in out and "Mesa 1: 2" in out
    hands = list(Hand.objects.filter(table=mesa.table).order_by("number"))
    assert [(h.number, h.status, h.imported) for h in hands] == [(1, "settled", True), (2, "settled", True)]
    assert hands[0].events.count() == len(P01) and hands[0].shift == mesa.table.shifts.get()
    assert player_balance(player=mesa.players["luis"]) == Decimal("520.00")
    assert player_balance(player=mesa.players["marta"]) == Decimal("460.00")
    assert Transaction.objects.filter(kind="hand").count() == 2


def test_json_lines_and_directories_are_read_in_order(mesa, tmp_path):
    folder = tmp_path / "noche"
    folder.mkdir()
    write(folder / "1.jsonl", hand(*P01), hand(*NATURAL))
    ana_sits = [line.replace("luis", "ana") for line in P01]
    write(folder / "2.json", hand(*ana_sits, seats=["ana", "marta"], bank="luis", number=3))  # luis's bank now
    out = run(str(folder))
    assert "3 hands imported" in out
    third = Hand.objects.get(table=mesa.table, number=3)
    assert third.bank.code == "luis" and third.tenure.began == BankTenure.Began.NATURAL


def test_the_first_invalid_record_stops_the_import_with_its_file_line_and_event(mesa, tmp_path):
    bad = hand(*P01[:2], "nuevo deal 6O", *P01[2:6], "marta bet 500", *P01[7:], "nuevo bet 5", "nuevo stand",
               seats=["luis", "marta", "nuevo"])
    path = write(tmp_path / "noche.jsonl", hand(*P01), bad, hand(*P01))
    message, out = refused(path)
    assert f"{path}, line 2, event 8:" in message and "100.00" in message  # the limit broken
    assert "1 hand imported" in out and "Mesa 1: 1" in out
    assert list(Hand.objects.values_list("number", flat=True)) == [1]
    assert HandEvent.objects.count() == len(P01) and Transaction.objects.filter(kind="hand").count() == 1
    assert not Player.objects.filter(code="nuevo").exists()  # nothing of the refused record
    assert Table.objects.get(pk=mesa.table.pk).last_hand_number == 1


def test_a_record_whose_rules_differ_from_its_table_is_refused(mesa, tmp_path):
    other = hand("luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
                 "marta bet 10", "marta card 1O", "marta stand", "bank card 4E", "bank stand",
                 rules="tradicional", min_bet="10", max_bet="10")
    message, _out = refused(write(tmp_path / "h.json", other))
    assert "h.json, event 0:" in message and "rules" in message and "Mesa 1" in message
    assert not Hand.objects.exists()


def test_a_record_whose_limits_differ_from_its_table_is_refused(mesa, tmp_path):
    message, _out = refused(write(tmp_path / "h.json", hand(*P01, max_bet="200")))
    assert "event 0" in message and "limits" in message and "200.00" in message
    assert not Hand.objects.exists()


def test_a_record_whose_bank_is_not_the_tables_holder_is_refused(mesa, tmp_path):
    message, _out = refused(write(tmp_path / "h.json", hand(*P01, bank="pepe")))
    assert "event 0" in message and "ana" in message and "pepe" in message
    assert not Hand.objects.exists()
    # After a 7½ the holder is who made it.
    message, _out = refused(write(tmp_path / "n.jsonl", hand(*NATURAL), hand(*P01)))
    assert "line 2" in message and "luis" in message
    assert Hand.objects.count() == 1


def test_a_missing_table_is_refused_without_create_tables(mesa, tmp_path):
    message, _out = refused(write(tmp_path / "h.json", hand(*P01, table="Mesa 9")))
    assert "Mesa 9" in message and "--create-tables" in message
    assert not Table.objects.filter(name="Mesa 9").exists()


def test_create_tables_creates_the_table_from_the_record_with_a_holder_without_chips(db, tmp_path):
    # "banca" has never bought chips: his bank opens with no capital (the table's
    # takeover capital is 0); the players get their opening chips.
    records = [record(*P01, seats=["luis", "marta"], bank="banca", table="Mesa 9", rules="americana",
                      min_bet="5", max_bet="50"),
               record(*P01, seats=["luis", "marta"], bank="banca", table="Mesa 9", rules="americana",
                      min_bet="5", max_bet="50")]
    out = run("--create-tables", "--opening-chips", "100", write(tmp_path / "h.jsonl", *records))
    assert "Mesa 9: 2" in out
    table = Table.objects.get(name="Mesa 9")
    assert (table.rules, table.min_bet, table.max_bet) == ("americana", Decimal("5.00"), Decimal("50.00"))
    assert list(table.hands.values_list("status", flat=True)) == ["settled", "settled"]
    tenure = BankTenure.objects.get(table=table)
    assert tenure.holder.code == "banca" and tenure.capital == Decimal("0.00")
    assert player_balance(player=Player.objects.get(code="luis")) == Decimal("120.00")


def test_entries_are_attributed_to_the_user_named(mesa, tmp_path, staff):
    importer = UserFactory(username="importador", roles=["pit_supervisor"])
    run("--user", "importador", write(tmp_path / "h.json", hand(*P01)))
    assert set(HandEvent.objects.values_list("entered_by__username", flat=True)) == {"importador"}
    assert Transaction.objects.get(kind="hand").posted_by == importer


def test_by_default_the_system_enters_them(mesa, tmp_path):
    run(write(tmp_path / "h.json", hand(*P01)))
    assert set(HandEvent.objects.values_list("entered_by", flat=True)) == {None}
    assert Transaction.objects.get(kind="hand").source.startswith("system")


def test_an_unknown_user_stops_before_anything(mesa, tmp_path):
    with translation.override("en"), pytest.raises(CommandError) as caught:
        call_command("import_hands", "--user", "nadie", write(tmp_path / "h.json", hand(*P01)))
    assert "nadie" in str(caught.value)
    assert not Hand.objects.exists()


def test_an_unreadable_file_stops_the_import(mesa, tmp_path):
    broken = tmp_path / "roto.json"
    broken.write_text('{"format": "siete-y-media/hand-1", ')
    message, out = refused(write(tmp_path / "a.json", hand(*P01)), str(broken))
    assert f"{broken}, event 0:" in message and "JSON" in message
    assert "1 hand imported" in out


def test_a_hand_exported_from_the_history_imports_at_a_fresh_table(mesa, tmp_path, client, staff):
    from django.urls import reverse

    played = mesa.play(mesa.open("luis", "marta"), *P01)
    client.force_login(staff["auditor"])
    exported = json.loads(client.get(reverse("tables:hand_record", args=[mesa.table.pk, played.number])).content)
    exported["table"] = "Mesa 10"
    out = run("--create-tables", write(tmp_path / "export.json", exported))
    assert "Mesa 10: 1" in out
    copy = Hand.objects.get(table__name="Mesa 10")
    assert copy.settlement == played.settlement


def test_a_record_refused_inside_a_batch_leaves_nothing_and_the_records_before_it_stay(mesa, tmp_path):
    """Three records in one batch: the third is refused at its 4th event, after its
    savepoint had registered a new player and passed the bank to luis (his 7½ in the
    second): all of that is rolled back, the first two are committed. [issue 18]"""
    from tables.integrity import chain_faults

    Table.objects.filter(pk=mesa.table.pk).update(bank_cover=True, bank_capital=0)  # luis's bank holds 0
    nuevo_plays = [line.replace("luis", "nuevo") for line in P01]
    path = write(tmp_path / "noche.jsonl", hand(*P01), hand(*NATURAL),
                 hand(*nuevo_plays, seats=["nuevo", "marta"], bank="luis"), hand(*P01, bank="luis"))
    message, out = refused("--batch", "10", path)
    assert f"{path}, line 3, event 4:" in message and "exceed what the bank holds" in message
    assert "2 hands imported" in out and "Mesa 1: 2" in out
    table = Table.objects.get(pk=mesa.table.pk)
    assert list(table.hands.order_by("number").values_list("number", "status")) == [(1, "settled"), (2, "settled")]
    assert HandEvent.objects.count() == len(P01) + len(NATURAL)
    assert Transaction.objects.filter(kind="hand").count() == 2
    # Nothing of the third record: its player, the bank passed to luis, the distribution.
    assert not Player.objects.filter(code="nuevo").exists()
    assert list(BankTenure.objects.values_list("holder__code", "closed_at")) == [("ana", None)]
    assert not Transaction.objects.filter(kind="distribution").exists()
    # The head was written once for the two records: numbers and chain intact.
    assert table.last_hand_number == 2 and chain_faults(table) == []
    assert table.last_event_hash == HandEvent.objects.latest("id").hash


def test_batches_of_any_size_import_the_same_hands(mesa, tmp_path):
    path = write(tmp_path / "noche.jsonl", *[hand(*P01) for _ in range(5)])
    assert "5 hands imported" in run("--batch", "2", path)
    assert list(Hand.objects.order_by("number").values_list("number", flat=True)) == [1, 2, 3, 4, 5]
    assert HandEvent.objects.count() == 5 * len(P01) and Transaction.objects.filter(kind="hand").count() == 5
    message, _out = refused("--batch", "0", path)
    assert "--batch" in message


def test_a_newcomer_on_la_loca_at_its_turn_stops_the_import_naming_the_rule(db, tmp_path):
    """rules.md "La loca": bets until its turn add up to a first stake; from "va la loca"
    nobody new bets and each bettor adds up to twice his first stake in all."""
    loca = dict(seats=["luis"], bank="banca", table="Mesa L", rules="profesional")
    good = record("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 5 by pepe", "luis bet 5",
                  "loca bet 5 by pepe", "luis stand", "loca bet 10 by pepe", "loca card 7B", "bank stand",
                  **loca)
    newcomer = record("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 10 by pepe", "luis bet 5",
                      "luis stand", "loca bet 5 by rosa", "loca stand", "bank stand", **loca)
    message, _out = refused("--create-tables", "--opening-chips", "100", write(tmp_path / "h.jsonl", good, newcomer))
    assert "line 2, event 7:" in message and "va la loca" in message and "rosa" in message
    (settled,) = Hand.objects.filter(table__name="Mesa L")
    assert settled.settlement["players"]["pepe"] == "40.00"


def test_a_record_whose_stakes_a_player_cannot_cover_is_refused_naming_him_and_his_holding(mesa, tmp_path):
    """issue 14 "Chips": the import checks every bet as the console does."""
    from cage.services.slips import cashier_cash_out

    luis = Player.objects.get(code="luis")
    cashier_cash_out(player=luis, amount=Decimal("490.00"), posted_by=mesa.cashier)  # 10.00 left
    bigger = [line.replace("luis bet 10", "luis bet 25") for line in P01]
    path = write(tmp_path / "h.jsonl", hand(*P01), hand(*bigger))  # luis wins 10.00 in the first
    message, out = refused(path)
    assert ("line 2, event 4: luis holds 20.00 € in chips, 0.00 € of them at risk in open hands: they do not "
            "cover this bet, which would put 25.00 € at risk") in message
    assert "1 hand imported" in out


def test_a_newcomer_holds_no_chips_unless_the_import_books_his_opening_chips(mesa, tmp_path):
    lines = [line.replace("marta", "nuevo") for line in P01]
    path = write(tmp_path / "h.json", hand(*lines, seats=("luis", "nuevo")))
    message, _out = refused(path)
    assert "event 7: nuevo holds 0.00 € in chips" in message
    assert not Player.objects.filter(code="nuevo").exists()  # nothing of the record was written
    out = run("--opening-chips", "50", path)
    assert "1 hand imported" in out
    nuevo = Player.objects.get(code="nuevo")
    opening = Transaction.objects.get(kind="opening")
    assert opening.detail == {"opening": True, "player": "nuevo"} and opening.source == "system:import"
    assert [(e.account.kind, e.side, e.amount) for e in opening.entries.order_by("id")] == [
        ("cage", "D", Decimal("50.00")), ("player", "C", Decimal("50.00"))]
    assert player_balance(player=nuevo) == Decimal("30.00")  # 50.00 opening, 20.00 lost
    assert player_balance(player=luis_of()) == Decimal("510.00")  # an existing player gets none


def luis_of():
    return Player.objects.get(code="luis")


def test_opening_chips_must_be_an_amount(mesa, tmp_path):
    path = write(tmp_path / "h.json", hand(*P01))
    with pytest.raises(CommandError):
        call_command("import_hands", "--opening-chips", "-5", path)


def test_a_record_refused_without_writing_anything_is_left_out_of_its_batch(mesa, tmp_path):
    """A record that only reads until its end (its table, players, bank and accounts all
    known) gets no savepoint of its own: refused in the middle of a batch, it is simply
    left out, and the records before it, whose postings waited in the batch, are written
    whole: their hands, entries, transactions and balances, the head once. [issue 18]"""
    from cage.services.slips import cashier_cash_out
    from tables.integrity import chain_faults

    marta = Player.objects.get(code="marta")
    cashier_cash_out(player=marta, amount=player_balance(player=marta) - Decimal("50.00"), posted_by=mesa.cashier)
    before = {code: player_balance(player=Player.objects.get(code=code)) for code in ("luis", "marta")}
    path = write(tmp_path / "noche.jsonl", hand(*P01), hand(*P01), hand(*P01), hand(*P01))
    message, out = refused("--batch", "10", path)  # marta loses 20.00 a hand: the third finds her with 10.00
    assert (f"{path}, line 3, event 7: marta holds 10.00 € in chips, 0.00 € of them at risk in open hands: they "
            "do not cover this bet, which would put 20.00 € at risk") in message
    assert "2 hands imported" in out
    table = Table.objects.get(pk=mesa.table.pk)
    assert list(table.hands.order_by("number").values_list("number", "status")) == [(1, "settled"), (2, "settled")]
    assert HandEvent.objects.count() == 2 * len(P01)
    hands = Transaction.objects.filter(kind="hand").order_by("id")
    assert [t.reference for t in hands] == ["hand Mesa 1 #1", "hand Mesa 1 #2"]
    assert list(Hand.objects.order_by("number").values_list("transaction_id", flat=True)) == [t.pk for t in hands]
    # In each of P01, luis wins 10.00 and marta loses 20.00 against the bank: twice, no more.
    assert player_balance(player=luis_of()) == before["luis"] + Decimal("20.00")
    assert player_balance(player=Player.objects.get(code="marta")) == before["marta"] - Decimal("40.00")
    assert table.last_hand_number == 2 and chain_faults(table) == []
    assert table.last_event_hash == HandEvent.objects.latest("id").hash
    call_command("ledger_check", stdout=StringIO())  # exits 1 unless balances are their entries' sums


def test_a_limited_bank_answers_in_a_batch_for_what_its_hands_before_left_it(mesa, tmp_path):
    """``bank_cover``: the bank's funds after the batch's earlier hands (not written yet:
    their postings wait for the batch's end) are what a stake is checked against."""
    Table.objects.filter(pk=mesa.table.pk).update(bank_cover=True)  # ana's bank holds 100.00
    both_win = [line.replace("marta card 1O", "marta card 4O") for line in P01]  # the bank pays 10 + 20
    over = [line.replace("marta bet 20", "marta bet 70") for line in P01]  # 80.00 staked against 70.00
    path = write(tmp_path / "noche.jsonl", hand(*both_win), hand(*over))
    message, out = refused("--batch", "10", path)
    assert f"{path}, line 2, event 7:" in message and "exceed what the bank holds (70.00 €) by 10.00 €" in message
    assert "1 hand imported" in out
    assert Transaction.objects.filter(kind="hand").count() == 1


def test_a_malformed_record_in_a_batch_is_refused_not_a_crash(mesa, tmp_path):
    """What the batch reads of its records before the engine has checked them (their
    table, bank, seats and bettors) copes with any JSON: the record is refused by the
    engine, naming the field, after the good record before it."""
    bad = {**hand(*P01), "table": ["Mesa 1"], "bank": {"code": "ana"}, "seats": [["luis"], "marta"]}
    message, out = refused("--batch", "10", write(tmp_path / "noche.jsonl", hand(*P01), bad))
    assert f"{tmp_path / 'noche.jsonl'}, line 2, event 0:" in message
    assert "1 hand imported" in out


def test_the_import_freezes_what_was_loaded_then_puts_the_collector_back(mesa, tmp_path, monkeypatch):
    """While it imports, what was loaded before is out of the garbage collector's way
    (``gc.freeze``); then Python's own collector is back, also after a refused record.
    The import leaves Python's thread switch interval alone."""
    import gc
    import sys

    from tables.management.commands import import_hands

    seen, real = [], import_hands.hand_import_records

    def spy(**kwargs):
        seen.append((sys.getswitchinterval(), gc.get_freeze_count()))
        return real(**kwargs)

    monkeypatch.setattr(import_hands, "hand_import_records", spy)
    before, frozen = sys.getswitchinterval(), gc.get_freeze_count()
    run(write(tmp_path / "one.json", hand(*P01, number=1)))
    assert seen[0][0] == before
    assert seen[0][1] > frozen + 10000  # Django, the apps, the test's own objects
    assert (sys.getswitchinterval(), gc.get_freeze_count()) == (before, 0)
    refused(write(tmp_path / "two.json", hand(*P01, number=5)))
    assert len(seen) == 2 and (sys.getswitchinterval(), gc.get_freeze_count()) == (before, 0)


def test_a_nul_in_a_name_stops_the_import_naming_the_line_and_the_field(mesa, tmp_path):
    """A NUL (which PostgreSQL's text refuses) is refused by the engine as any bad name
    is, naming the line and the field: not a database error, nothing of it written."""
    bad = hand(*P01, bank="ban\u0000ca")
    path = write(tmp_path / "noche.jsonl", hand(*P01), bad)
    message, out = refused(path)
    assert f"{path}, line 2, event 0:" in message and "bank" in message
    assert "1 hand imported" in out
    assert Hand.objects.count() == 1 and not Player.objects.filter(code__contains="ban").exists()


@pytest.mark.parametrize("field", ["events", "rules", "seats"])
def test_a_record_nested_absurdly_deep_stops_the_import_naming_the_line_and_the_field(mesa, tmp_path, field):
    """A line nested 100,000 deep (past any parser's recursion) is unreadable, naming its
    line and the field, not a ``RecursionError``; nothing of it is written."""
    good = json.dumps(hand(*P01))
    deep = good[:-1] + f', "{field}": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = tmp_path / "noche.jsonl"
    path.write_text(good + "\n" + deep + "\n")
    message, out = refused(str(path))
    assert f"{path}, line 2, event 0:" in message and f"field {field}" in message and "32 levels" in message
    assert "1 hand imported" in out and Hand.objects.count() == 1


def test_an_amount_with_other_digits_than_0_to_9_is_refused_naming_the_field(mesa, tmp_path):
    """A full-width "５.00" is no amount (Python's ``\\d`` and ``int`` would read it as 5):
    the event is refused, nothing settled or stored."""
    bet = [line.replace("luis bet 10", "luis bet ５.00") for line in P01]
    path = write(tmp_path / "noche.jsonl", hand(*P01), hand(*bet))
    message, _out = refused(path)
    assert f"{path}, line 2, event 4:" in message and "amount" in message
    assert Hand.objects.count() == 1 and not HandEvent.objects.filter(event__amount="５.00").exists()
    limits = write(tmp_path / "limits.json", hand(*P01, min_bet="５.00"))
    message, _out = refused(limits)
    assert "min_bet" in message and Hand.objects.count() == 1
