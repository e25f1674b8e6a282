"""Profesional gained ``one_card_stand_max: 2`` after hands were stored under it: a hand
that stood on one card above the cap was legal when it was entered, and its stored rules
(``"profesional"``) never change (a guard in PostgreSQL). It replays as recorded: the
console's state, the chips at risk, the audit's replay and the record exported (with the
earlier value pinned, ``{"profile": "profesional", "one_card_stand_max": null}``, which
``manage.py settle`` settles as stored); a hand entered since is held to the cap.
[rules.md "One-card stand", "The named profiles"]"""

import pytest
from django.conf import settings
from django.urls import reverse

import game.profiles
import game.record
from game.payouts import settle
from game.record import play_record
from tables import services
from tables.errors import RuleBroken
from tables.models import Hand
from tables.replay import hand_faults
from tables.selectors import hand_record
from tables.stakes import hand_at_risk

pytestmark = pytest.mark.django_db

LINES = ["luis deal 5O", "loca deal 1E", "bank deal 2E", "luis bet 20", "luis stand", "loca stand", "bank card 5B",
         "bank stand"]


@pytest.fixture
def profesional_before_the_cap(monkeypatch):
    """Profesional as it was before it gained the cap, while the fixture's user enters."""
    earlier = game.profiles.PROFILES["profesional"].replace(one_card_stand_max=None)

    def back():
        monkeypatch.undo()
        game.record._profile_cache.clear()

    monkeypatch.setitem(game.profiles.PROFILES, "profesional", earlier)
    game.record._profile_cache.clear()
    return back


def test_a_stored_hand_over_the_cap_replays_as_recorded(client, mesa, profesional_before_the_cap):
    mesa.table.rules = "profesional"
    mesa.table.save(update_fields=["rules"])
    hand = mesa.play(mesa.open("luis"), *LINES)
    assert hand.status == Hand.Status.SETTLED and hand.rules == "profesional"
    stored = hand.settlement
    profesional_before_the_cap()  # the cap as today

    hand = Hand.objects.get(pk=hand.pk)
    assert services.hand_state(hand).complete
    assert hand_at_risk(hand) == {"luis": 2000}
    assert hand_faults(Hand.objects.filter(pk=hand.pk)) == []
    record = hand_record(hand)
    assert record["rules"] == {"profile": "profesional", "one_card_stand_max": None}
    assert settle(play_record(record)).as_dict() == stored
    assert Hand.objects.get(pk=hand.pk).rules == "profesional"  # stored as it was
    # Its page says the rules it was played under.
    client.force_login(mesa.supervisor)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    detail = client.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number])).content.decode()
    assert "any stake may stand on one card" in detail and "at most 2×" not in detail

    # A hand entered today is held to the cap.
    hand = mesa.play(mesa.open("luis"), *LINES[:4])
    with pytest.raises(RuleBroken) as caught:
        mesa.play(hand, "luis stand")
    assert caught.value.rule == "one_card_stand_max"
