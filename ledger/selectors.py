"""Reads of the ledger: balances, statements with running balances, the ledger's audit.

Amounts are ``Decimal`` euros; balances are credits − debits (what the owner holds).
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Case, Count, F, Q, Sum, When
from django.db.models.functions import Coalesce
from django.utils import translation

from ledger.models import Account, Entry, Transaction
from ledger.money import cents, euros
from ledger.signing import GENESIS, signature_scan

ZERO = Decimal("0.00")
PER_PAGE = 50
SIGNED = Case(When(side=Entry.Side.CREDIT, then=F("amount")), default=-F("amount"))


def account_balance(*, account: Account) -> Decimal:
    """An account's balance, ``Decimal`` euros: one row read (the column kept by postings)."""
    return Account.objects.filter(pk=account.pk).values_list("balance", flat=True).get()


def player_balance(*, player) -> Decimal:
    """A player's chips, ``Decimal`` euros (0.00 if he never had an account): one row read."""
    balance = Account.objects.filter(player=player).values_list("balance", flat=True).first()
    return ZERO if balance is None else balance


@dataclass
class StatementLine:
    """One entry of a statement: its transaction, side, signed amount and the account's
    running balance just after it (``Decimal`` euros)."""

    entry: Entry
    transaction: Transaction
    signed: Decimal
    running: Decimal


@dataclass
class StatementPage:
    """Which page of a statement this is: 1-based ``number``, ``has_next``,
    ``has_previous`` (no total count: counting a million entries costs more than the page)."""

    number: int
    per_page: int
    has_next: bool

    @property
    def has_previous(self):
        return self.number > 1

    @property
    def next_page_number(self):
        return self.number + 1

    @property
    def previous_page_number(self):
        return self.number - 1


@dataclass
class Statement:
    """A page of an account's entries, newest first, with running balances.

    ``account`` may be None (a player with no account yet: no lines, balance 0).
    """

    account: Account | None
    balance: Decimal
    page: StatementPage
    lines: list[StatementLine] = field(default_factory=list)


def _page_number(page):
    try:
        return min(max(1, int(page)), 10**7)  # an absurd page number is the last page there could be
    except (TypeError, ValueError):
        return 1


def account_statement(*, account: Account | None, page: int | str = 1, per_page: int = PER_PAGE) -> Statement:
    """A page of ``account``'s entries, newest first, each with the running balance after it.

    The running balance of the page's newest line is the account's balance minus the
    entries newer than the page (so page 1 costs no sum at all).

    Args:
        account: the Account (or None: an empty statement); page: 1-based page number
        (a bad value gives page 1; past the end, an empty page); per_page: lines per page.
    Returns:
        Statement.
    """
    number = _page_number(page)
    if account is None:
        return Statement(None, ZERO, StatementPage(1, per_page, False))
    offset = (number - 1) * per_page
    rows = list(Entry.objects.filter(account=account)
                .select_related("transaction__reversal", "transaction__reverses")
                .order_by("-id")[offset:offset + per_page + 1])
    page_obj = StatementPage(number, per_page, len(rows) > per_page)
    rows = rows[:per_page]
    balance = account_balance(account=account)
    lines = []
    if rows:
        newer = ZERO
        if number > 1:
            newer = (Entry.objects.filter(account=account, id__gt=rows[0].id)
                     .aggregate(total=Sum(SIGNED))["total"] or ZERO)
        running = balance - newer
        for entry in rows:
            lines.append(StatementLine(entry, entry.transaction, entry.signed, running))
            running -= entry.signed
    return Statement(account, balance, page_obj, lines)


def player_statement(*, player, page: int | str = 1, per_page: int = PER_PAGE) -> Statement:
    """A player's chip statement, newest first, with running balance (see ``account_statement``)."""
    account = Account.objects.filter(player=player).select_related("player").first()
    return account_statement(account=account, page=page, per_page=per_page)


def all_balances() -> list[Account]:
    """Every account, in id order, with ``player`` and ``tenure`` loaded."""
    return list(Account.objects.select_related("player", "tenure__table").order_by("id"))


def _reversal_faults(after_id: int = 0):
    """Every reversal's entries are its original's with debit and credit swapped; a
    reversal posted through a closed tenure's distribution (``posting.reverse(…,
    closed_legs=...)``) has, in place of the tenure account's mirrored entries,
    the syndicate's legs its ``cause`` records, and these add up to what the mirror would
    have put on the tenure."""
    pairs, moved = {}, {}
    for tx_id, original_id, cause in Transaction.objects.filter(reverses__isnull=False, pk__gt=after_id).values_list(
            "id", "reverses_id", "cause"):
        pairs[tx_id] = original_id
        if (cause or {}).get("through_distribution"):
            moved[tx_id] = cause["through_distribution"]
    entries = defaultdict(Counter)
    for tx_id, account_id, side, amount in (Entry.objects.filter(transaction_id__in=[*pairs, *pairs.values()])
                                            .values_list("transaction_id", "account_id", "side", "amount")):
        entries[tx_id][(account_id, side, amount)] += 1
    faults = []
    swap = {Entry.Side.DEBIT: Entry.Side.CREDIT, Entry.Side.CREDIT: Entry.Side.DEBIT}
    for reversal_id, original_id in sorted(pairs.items()):
        mirrored = Counter({(account_id, swap[side], amount): n
                            for (account_id, side, amount), n in entries[original_id].items()})
        for tenure in moved.get(reversal_id, []):
            net = 0
            for (account_id, side, amount), n in list(mirrored.items()):
                if account_id == tenure["account"]:
                    net += n * cents(amount) * (1 if side == Entry.Side.CREDIT else -1)
                    del mirrored[(account_id, side, amount)]
            shared = 0
            for account_id, side, amount in tenure["legs"]:
                mirrored[(account_id, side, euros(amount))] += 1
                shared += amount if side == Entry.Side.CREDIT else -amount
            if shared != net:
                faults.append(f"reversal #{reversal_id} shares {euros(shared)} among the syndicate of tenure "
                              f"#{tenure['tenure']}, not the {euros(net)} its mirror would post there")
        if mirrored != entries[reversal_id]:
            faults.append(f"reversal #{reversal_id} does not mirror transaction #{original_id}")
    return faults


def _negative_chips_faults():
    """No player holds fewer than zero chips: a bet is covered at entry, a cash-out or a
    transfer only spends what he holds."""
    return [f"account #{account_id} (player:{code}) holds {balance}: a player's chips never go below zero"
            for account_id, code, balance in (Account.objects.filter(kind=Account.Kind.PLAYER, balance__lt=0)
                                              .order_by("id").values_list("id", "player__code", "balance"))]


def ledger_faults(*, chips: bool = True) -> list[str]:
    """Audit the whole ledger from its entries; an empty list means it is sound.

    Args:
        chips: also report players' chips below zero (the tables' rule: a bet is covered
            at entry). False only where hands are posted straight to the ledger with no
            chips bought (the ledger's own tests of its arithmetic).

    Checks: every account's ``balance`` equals credits − debits of its entries; a closed
    (tenure) account holds nothing; every transaction has at least two entries and
    balances; all balances sum to zero; every
    reversal mirrors its original exactly; cashier slips are numbered 1..n without gaps
    and each matches its transaction's kind and is exactly its two legs of the slip's
    amount; no player's chips are below zero; and what the apps above registered (``register_fault_finder``:
    the cage's slips, numbered without gaps, each exactly its two legs; every tenure's
    shares sum to 100); and every transaction's signature, its entries and its place in
    the ledger's chain (``ledger.signing.signature_faults``: one inserted by SQL, altered,
    or with an entry added or removed is named).
    Returns:
        list of messages (English, for operators), one per fault.
    """
    return ledger_scan(chips=chips)[0]


def ledger_scan(*, since: dict | None = None, chips: bool = True) -> tuple[list[str], dict]:
    """``ledger_faults`` from the genesis, or (``since``) over what was posted after the
    point a check verified: the one code path of the full and the incremental check
    (``reports.checkpoints``).

    Args:
        since: ``{"transaction": id, "signature": its signature, "balances": {account id
            (str): cents}}`` as a previous scan returned it, or None (from the genesis).
    Returns:
        ``(faults, state)``: faults as ``ledger_faults``; the state to start the next
        scan from (the last signed transaction, its signature, and every account's sum of
        entries up to the scan, in cents, the zeros left out).

    With ``since``, each account's balance is compared with its sum at that point plus
    its entries posted after it; only the transactions after it are checked for their
    signature, chain, balance and reversals (an entry of an earlier transaction rewritten,
    its account's balance left alone, is seen by the full check only: docs/security.md,
    "Incremental checks"). The players' chips, the registered checks and the accounts are
    read whole (a few rows an account, a slip, a tenure).
    """
    since = since or {}
    after_id = int(since.get("transaction") or 0)
    faults, last_id, head = [], after_id, since.get("signature") or GENESIS
    with translation.override(None):  # the operators' English
        signed, last_id, head = signature_scan(after_id=after_id, head=head)
    sums = defaultdict(int, {int(pk): int(total) for pk, total in (since.get("balances") or {}).items()})
    for account_id, total in (Entry.objects.filter(transaction_id__gt=after_id).values("account_id")
                              .annotate(total=Sum(SIGNED)).values_list("account_id", "total")):
        sums[account_id] += cents(total)
    total = ZERO
    for account in all_balances():
        expected = euros(sums.get(account.id, 0))
        total += account.balance
        if account.balance != expected:
            faults.append(f"account #{account.id} ({account.label}): balance column {account.balance} "
                          f"but its entries sum to {expected}")
        if not account.is_open and expected != ZERO:
            faults.append(f"account #{account.id} ({account.label}) is closed but holds {expected}: "
                          "a closed tenure distributed its whole balance")
    if total != ZERO:
        faults.append(f"the accounts' balances sum to {total}, not 0")
    unbalanced = (Transaction.objects.filter(pk__gt=after_id)
                  .annotate(n=Count("entries"),
                            debits=Coalesce(Sum("entries__amount", filter=Q(entries__side=Entry.Side.DEBIT)), ZERO),
                            credits=Coalesce(Sum("entries__amount", filter=Q(entries__side=Entry.Side.CREDIT)), ZERO))
                  .filter(Q(n__lt=2) | ~Q(debits=F("credits"))).order_by("id")
                  .values_list("id", "n", "debits", "credits"))
    for tx_id, count, debits, credits in unbalanced:
        if count < 2:
            faults.append(f"transaction #{tx_id} has {count} entries: a transaction needs at least two")
        else:
            faults.append(f"transaction #{tx_id} does not balance: debits {debits}, credits {credits}")
    faults += _reversal_faults(after_id)
    if chips:
        faults += _negative_chips_faults()
    faults += signed
    for finder in _fault_finders:
        faults += finder()
    state = {"transaction": last_id, "signature": head,
             "balances": {str(pk): total for pk, total in sorted(sums.items()) if total}}
    return faults, state


_fault_finders = []


def register_fault_finder(finder) -> None:
    """Add the checks of an app above the ledger to ``ledger_faults``: ``finder() ->
    [message]`` (the cage's slips, the tables' syndicate shares), registered in its
    ``AppConfig.ready``."""
    if finder not in _fault_finders:
        _fault_finders.append(finder)
