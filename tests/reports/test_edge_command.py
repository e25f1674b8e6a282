"""``manage.py edge``: the simulation's edge as JSON or text (no database)."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from game.edge import bank_edge, default_strategy


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("edge", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_prints_the_functions_figures():
    out, err = run("--profile", "americana", "--seats", "2", "--hands", "500", "--seed", "3")
    printed = json.loads(out)
    assert printed == bank_edge("americana", seats=2, hands=500, seed=3).as_dict()
    assert "2 seats: 500 hands" in err


def test_several_seat_counts_a_threshold_and_strategy_fields():
    out, _err = run("--rules", '{"profile": "reglamento", "deck": "spanish-36"}', "--seats", "1", "3",
                    "--hands", "300", "--stand-at", "5.5", "--strategy", '{"split": false}')
    printed = json.loads(out)
    assert [p["seats"] for p in printed] == [1, 3]
    strategy = default_strategy("reglamento", stand_at=11, split=False)
    assert printed[1] == bank_edge({"profile": "reglamento", "deck": "spanish-36"}, seats=3, hands=300, seed=0,
                                   strategy=strategy).as_dict()


def test_text_says_it_in_a_line_and_the_strategy():
    out, _err = run("--profile", "tradicional", "--hands", "200", "--format", "text")
    assert out.startswith("tradicional 4 seats, 200 hands (seed 0): bank ")
    assert "draws below 4 points" in out


@pytest.mark.parametrize("args, message", [
    (("--profile", "blackjack"), "unknown rule profile"),
    (("--rules", "{bad"), "not JSON"),
    (("--stand-at", "4.25"), "--stand-at"),
    (("--strategy", '{"colour": 1}'), "--strategy"),
    (("--seats", "10"), "seats"),
    (("--hands", "1"), "hands"),
])
def test_bad_arguments_are_named(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


@pytest.mark.django_db
def test_store_keeps_each_seat_count_as_the_theory_the_alerts_use():
    from reports.detection import edge_figure, edge_key
    from reports.models import EdgeFigure

    run("--profile", "americana", "--seats", "1", "2", "--hands", "400", "--seed", "5", "--store")
    assert EdgeFigure.objects.count() == 2
    stored = EdgeFigure.objects.get(key=edge_key("americana", 2))
    assert (stored.hands, stored.seed, stored.seats) == (400, 5, 2)
    assert edge_figure({"profile": "americana"}, 2) == bank_edge("americana", seats=2, hands=400, seed=5).as_dict()
    run("--profile", "americana", "--seats", "2", "--hands", "500", "--seed", "5", "--store")
    assert EdgeFigure.objects.count() == 2 and EdgeFigure.objects.get(key=edge_key("americana", 2)).hands == 500
    # Another strategy (the play a review observed) is stored under its own key, beside the default's.
    run("--profile", "americana", "--hands", "400", "--stand-at", "5", "--strategy", '{"bank_stand_at": 12}',
        "--store")
    fitted = default_strategy("americana", stand_at=10, bank_stand_at=12)
    stored = EdgeFigure.objects.get(key=edge_key("americana", 4, fitted))
    assert stored.strategy == fitted.as_dict() and EdgeFigure.objects.count() == 3
    assert edge_figure("americana", 4, strategy=fitted)["strategy"] == fitted.as_dict()
