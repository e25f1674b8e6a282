"""Writes to the ledger: every public service here posts in ONE database transaction.

Each service validates its arguments before writing, creates any missing chips account
(before taking any lock), takes the row locks of every account it will post to in one
``SELECT ... FOR NO KEY UPDATE`` ordered by account id (a fixed order: two services never
wait on each other in a cycle; the mode an UPDATE takes, which does not block the
foreign-key checks of entries pointing at the account), re-checks what the locks protect
(balances, an open tenure), then inserts the transaction, its entries and the new
balances. Refusals raise a ``ledger.errors.LedgerError`` and write nothing.

References are stored as written here (untranslated: they are data, like "slip 000123");
refusal messages are translated.

Units: the public arguments are ``Decimal`` euros with at most two decimals (never a
float); the engine's ``Settlement`` is integer cents. Balances are credits − debits (what
the owner holds; see ``ledger.models``).

- ``posting``: the posting core (checks, locks, the one-statement write, idempotency
  keys); a hand's settlement (``ledger_post_settlement``) and a reversal
  (``ledger_reverse``).
- ``cage``: the cashier's slips (``cashier_buy_in``, ``cashier_cash_out``,
  ``cashier_bank_deposit`` for a bank's capital or its rebuild, ``deposits_owed``; one function per kind, each booked against the cashier's open drawer, ``cage.services.drawer``;
  ``cashier_slip_void`` by a cage supervisor); ``patrons``: the players' register.
- ``chips``: chips away from the cage and the tables (``chips_opening``: a migration's
  opening chips; ``chips_transfer``: from one player to another, recorded by the pit).
- ``tenures``: the bank's tenures (``tenure_open``, ``tenure_close``, ``bank_sell``,
  ``bank_transfer``, ``tenure_check_cover``).
- ``bank_life``: the bank's auction (``auction_open``, ``auction_bid``, ``auction_award``),
  withdrawals (``bank_withdraw``) and rebuilds (``bank_rebuild_order``, deposited at the cage;
  ``bank_wiped_out``).

Every posting of a buy-in, a cash-out, a bank's capital, distribution or sale price is
also a patron's movement of his gaming day for the anti-money-laundering rules: ``_post``
checks it first (``cage.services.aml.aml_check``, which may refuse: ``AmlRefused``) and
records it with the transaction.
"""

from ledger.services.cage import (
    awaiting_deposit,
    banks_awaiting_deposits,
    banks_taking_deposits,
    cashier_bank_deposit,
    cashier_buy_in,
    cashier_cash_out,
    cashier_slip_void,
    deposits_owed,
    outstanding_rebuild,
)
from ledger.services.chips import chips_opening, chips_transfer
from ledger.services.posting import ledger_post_settlement, ledger_reverse
from ledger.services.tenures import (
    bank_sell,
    bank_transfer,
    tenure_check_cover,
    tenure_close,
    tenure_open,
)

__all__ = [
    "awaiting_deposit", "bank_sell", "banks_awaiting_deposits", "banks_taking_deposits", "bank_transfer", "cashier_bank_deposit", "cashier_buy_in", "cashier_cash_out",
    "cashier_slip_void", "chips_opening", "chips_transfer", "deposits_owed", "ledger_post_settlement",
    "ledger_reverse", "outstanding_rebuild", "tenure_check_cover", "tenure_close", "tenure_open",
]
