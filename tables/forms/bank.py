"""The pit's forms for the bank's life: an auction (sessions, bids), a withdrawal, a
rebuild. Amounts are ``Decimal`` euros with two places (a Spanish ``150,50`` is accepted);
the services in ``ledger.services.bank_life`` and ``tables.services`` check the rest."""


from django import forms
from django.utils.translation import gettext_lazy as _

from ledger.forms import EurosField
from patrons.forms import PlayerCodeField


def _money(label):
    return EurosField(label=label)


class AuctionOpenForm(forms.Form):
    """The bank put up for auction, awarded for this many sessions."""

    sessions = forms.IntegerField(label=_("Awarded for how many sessions"), min_value=1, max_value=100, initial=1)


class BidForm(forms.Form):
    """One bid: a player, the capital he offers."""

    player = PlayerCodeField(label=_("Bidder (player id)"))
    amount = _money(_("Bid (€)"))


class BankAmountForm(forms.Form):
    """The amount of a withdrawal or a rebuild."""

    amount = _money(_("Amount (€)"))
