"""Writes at the tables, each in one database transaction that locks the table's row first:

- ``shifts``: the dealers' shifts (``shift_open``, ``dealer_relieve``, ``shift_close``,
  ``dealer_shift``, ``relieved_from``);
- ``hands``: a hand opened and each entry at the console's pace (``hand_open``,
  ``console_open_hand``, ``hand_record_event``, ``console_record_event``, ``hand_undo``,
  ``hand_void``);
- ``bank``: the bank between hands (``table_bank_draw``, ``_sell``, ``_transfer``,
  ``_withdraw``, ``_rebuild``, ``_give_up``; ``pending_bank_holder``; ``check_bank_change``,
  the refusals of a change asked before its confirmation);
- ``disputes``: the dispute desk (``dispute_open``, ``dispute_decide``,
  ``incident_record``);
- ``rotation``: the pits' rotation plans (``rotation_plan_set``, ``current_plans``);
- ``recording``: what an opening, an entry and a settlement are, decided apart from their
  writing, shared with the import (``tables.importing``).

The names below are the package's public face; the import is ``tables.importing``.
"""

from tables.services.bank import (
    check_bank_change,
    pending_bank_holder,
    table_bank_draw,
    table_bank_give_up,
    table_bank_rebuild,
    table_bank_sell,
    table_bank_transfer,
    table_bank_withdraw,
)
from tables.services.disputes import DisputeDecided, dispute_decide, dispute_open, incident_record
from tables.services.hands import (
    AtTable,
    console_open_hand,
    console_record_event,
    hand_open,
    hand_record_event,
    hand_undo,
    hand_void,
)
from tables.services.recording import hand_state, new_hand_state, stakes, state_maker
from tables.services.rotation import current_plans, rotation_plan_set
from tables.services.shifts import (
    dealer_relieve,
    dealer_shift,
    relieved_from,
    shift_close,
    shift_closed,
    shift_open,
)

__all__ = [
    "AtTable", "DisputeDecided", "check_bank_change", "console_open_hand", "current_plans", "rotation_plan_set", "console_record_event", "dealer_relieve", "dealer_shift",
    "dispute_decide", "dispute_open", "incident_record", "hand_open", "hand_record_event",
    "hand_state", "hand_undo", "hand_void", "new_hand_state", "pending_bank_holder", "relieved_from", "shift_close",
    "shift_closed", "shift_open", "stakes", "state_maker", "table_bank_draw", "table_bank_give_up",
    "table_bank_rebuild", "table_bank_sell", "table_bank_transfer", "table_bank_withdraw",
]
