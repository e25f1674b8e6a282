"""The review reads the entries of many hands in a few queries: the cards it tests are exactly
those of each hand's record (``tables.selectors.hand_record``), hand by hand (issue 17)."""

from reports import statistics
from reports.detection import hand_card_observations
from tables.models import Hand
from tables.selectors import hand_record
from tests.reports.sessions import play_shift, records, simulated_table


def test_batched_observations_are_hand_records(staff):
    table = simulated_table("Mesa Z", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"], records(3, 30))
    got = hand_card_observations(Hand.objects.filter(shift=shift), chunk=7)
    want = []
    for hand in Hand.objects.filter(shift=shift).order_by("-opened_at", "-id"):
        want.extend(statistics.card_observations(hand_record(hand), hand=hand.pk))
    assert got["spanish-40"] == want and len(want) > 100
