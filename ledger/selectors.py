"""Reads of the ledger: balances, statements with running balances, the ledger's audit.

Amounts are ``Decimal`` euros; balances are credits − debits (what the owner holds).
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import connection
from django.db.models import Case, Count, F, Q, Sum, When
from django.db.models.functions import Coalesce

from ledger.models import Account, BankTenure, CashierSlip, Entry, Transaction
from ledger.money import cents, euros
from ledger.shares import split_by_shares

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


@dataclass
class ShareLine:
    """A syndicate member's share of a tenure: percent, capital paid in, and what he got
    back (the actual distribution once closed; while open, what he would get now)."""

    player: object
    percent: Decimal
    capital: Decimal
    distribution: Decimal


@dataclass
class TenureStatement:
    """A bank tenure's statement: the tenure, its balance, its syndicate and entries;
    ``closing_balance`` and ``result`` as ``tenure_closings`` gives them."""

    tenure: BankTenure
    balance: Decimal
    shares: list[ShareLine]
    statement: Statement
    distribution: Transaction | None
    closing_balance: Decimal = ZERO
    result: Decimal = ZERO


def tenure_closings(tenures) -> dict[int, tuple[Decimal, Decimal]]:
    """``{tenure id: (closing balance, result)}`` (``Decimal`` euros) of ``tenures``
    (BankTenure objects with their ``account`` loaded), in one query.

    A closed tenure's account is empty (its balance went back to the syndicate), so its
    balance says nothing: its *closing balance* is what it held when it closed, the
    distribution taken out of its account (a tenure that closed on zero distributed
    nothing); its *result* is all the syndicate took out (its withdrawals and that
    closing balance) less all it put in (the capital, from chips or deposited at the cage,
    less the deposits voided, and its rebuilds): its gain or loss, the sale price received
    included, as the bank-rotation report's. An open tenure's closing balance is its
    balance now. [issue 3 "Bank tenure"; issue 16 "the bank's deposits, withdrawals,
    rebuilds and final result per tenure"; issue 17 "closed banks show their real
    closing balance and result"]
    """
    tenures = list(tenures)
    closed = [tenure.pk for tenure in tenures if tenure.closed_at is not None]
    distributed = dict(
        Entry.objects.filter(account__tenure_id__in=closed, transaction__kind=Transaction.Kind.DISTRIBUTION)
        .values("account__tenure_id").annotate(total=Sum(SIGNED)).values_list("account__tenure_id", "total")
        .order_by()) if closed else {}
    # voids after the close, taken from (or given to) the syndicate (ledger_reverse(…,
    # through_distribution=True)): part of the syndicate's result, not of the balance
    later = defaultdict(lambda: ZERO)
    for cause in (Transaction.objects.filter(tenure_id__in=closed, cause__has_key="through_distribution")
                  .values_list("cause", flat=True) if closed else []):
        for moved in cause["through_distribution"]:
            later[moved["tenure"]] += euros(sum(amount if side == Entry.Side.CREDIT else -amount
                                                for _account, side, amount in moved["legs"]))
    # what went in and out of the bank's account besides its hands: capital (net of
    # voided deposits), withdrawals, rebuilds, signed as the account sees them
    life = dict(
        Entry.objects.filter(Q(transaction__kind__in=[Transaction.Kind.CAPITAL_IN, Transaction.Kind.BANK_WITHDRAWAL,
                                                      Transaction.Kind.BANK_REBUILD])
                             | Q(transaction__reverses__kind__in=[Transaction.Kind.CAPITAL_IN,
                                                                  Transaction.Kind.BANK_REBUILD]),
                             account__tenure_id__in=[tenure.pk for tenure in tenures])
        .values("account__tenure_id").annotate(total=Sum(SIGNED)).values_list("account__tenure_id", "total")
        .order_by()) if tenures else {}
    out = {}
    for tenure in tenures:
        if tenure.closed_at is None:
            balance = tenure.account.balance if getattr(tenure, "account", None) is not None else ZERO
        else:
            balance = -distributed.get(tenure.pk, ZERO)
        out[tenure.pk] = (balance, balance + later[tenure.pk] - life.get(tenure.pk, ZERO))
    return out


def tenure_statement(*, tenure: BankTenure, page: int | str = 1, per_page: int = PER_PAGE) -> TenureStatement:
    """A tenure's statement: balance (``Decimal`` euros), the syndicate's shares with the
    capital each paid and the distribution (actual if closed, prospective if open:
    ``split_by_shares`` of the balance), and a page of the tenure's entries.
    [issue 3 "Bank tenure": distribution by shares, largest remainder]
    """
    account = Account.objects.get(tenure=tenure)
    shares = list(tenure.shares.select_related("player").order_by("id"))
    percents = [share.percent for share in shares]
    capital_parts = split_by_shares(cents(tenure.capital), percents)
    distribution = (Transaction.objects.filter(tenure=tenure, kind=Transaction.Kind.DISTRIBUTION)
                    .first())
    statement = account_statement(account=account, page=page, per_page=per_page)
    if tenure.is_open:
        parts = [euros(part) for part in split_by_shares(cents(statement.balance), percents)]
    elif distribution is None:
        parts = [ZERO for _share in shares]
    else:
        got = {}
        for entry in distribution.entries.select_related("account"):
            if entry.account.player_id is not None:
                got[entry.account.player_id] = entry.signed
        parts = [got.get(share.player_id, ZERO) for share in shares]
    lines = [ShareLine(share.player, share.percent, euros(capital), part)
             for share, capital, part in zip(shares, capital_parts, parts, strict=True)]
    tenure.account = account
    closing_balance, result = tenure_closings([tenure])[tenure.pk]
    return TenureStatement(tenure, statement.balance, lines, statement, distribution, closing_balance, result)


def all_balances() -> list[Account]:
    """Every account, in id order, with ``player`` and ``tenure`` loaded."""
    return list(Account.objects.select_related("player", "tenure__table").order_by("id"))


def _reversal_faults():
    """Every reversal's entries are its original's with debit and credit swapped; a
    reversal posted through a closed tenure's distribution (``ledger_reverse(…,
    through_distribution=True)``) has, in place of the tenure account's mirrored entries,
    the syndicate's legs its ``cause`` records, and these add up to what the mirror would
    have put on the tenure."""
    pairs, moved = {}, {}
    for tx_id, original_id, cause in Transaction.objects.filter(reverses__isnull=False).values_list(
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
    transfer only spends what he holds. [issue 14 "Chips"]"""
    return [f"account #{account_id} (player:{code}) holds {balance}: a player's chips never go below zero"
            for account_id, code, balance in (Account.objects.filter(kind=Account.Kind.PLAYER, balance__lt=0)
                                              .order_by("id").values_list("id", "player__code", "balance"))]


def _slip_amount_faults():
    """Every cashier slip's transaction is exactly its two legs: the cage's cash and the
    slip's player's chips, each of the slip's amount (a buy-in debits the cage and credits
    the chips; a cash-out the other way; a bank deposit debits the cage and credits the
    slip's tenure's bank). [issue 14 "Sealed postings"; issue 16]"""
    slips = {tx_id: (number, kind, player_id, amount, tenure_id)
             for tx_id, number, kind, player_id, amount, tenure_id in
             CashierSlip.objects.values_list("transaction_id", "number", "kind", "player_id", "amount", "tenure_id")}
    accounts = {account_id: (kind, player_id or tenure_id) for account_id, kind, player_id, tenure_id in
                Account.objects.filter(kind__in=[Account.Kind.PLAYER, Account.Kind.CAGE, Account.Kind.TENURE])
                .values_list("id", "kind", "player_id", "tenure_id")}
    legs = defaultdict(Counter)
    for tx_id, account_id, side, amount in (Entry.objects.filter(transaction_id__in=list(slips))
                                            .values_list("transaction_id", "account_id", "side", "amount")):
        legs[tx_id][(accounts.get(account_id, ("other", None)), side, amount)] += 1
    faults = []
    for tx_id, (number, kind, player_id, amount, tenure_id) in sorted(slips.items(), key=lambda item: item[1][0]):
        cash, chips = (("cage", None), ("player", player_id))
        if kind == CashierSlip.Kind.BANK_DEPOSIT:
            expected = Counter({(cash, Entry.Side.DEBIT, amount): 1, (("tenure", tenure_id), Entry.Side.CREDIT, amount): 1})
        elif kind == CashierSlip.Kind.BUY_IN:
            expected = Counter({(cash, Entry.Side.DEBIT, amount): 1, (chips, Entry.Side.CREDIT, amount): 1})
        else:
            expected = Counter({(chips, Entry.Side.DEBIT, amount): 1, (cash, Entry.Side.CREDIT, amount): 1})
        if legs[tx_id] != expected:
            moved = sum(a * n for (_account, side, a), n in legs[tx_id].items() if side == Entry.Side.DEBIT)
            faults.append(f"cashier slip {number:06d} reads {amount} but its transaction #{tx_id} moves {moved} "
                          f"in {sum(legs[tx_id].values())} entries: not the slip's two legs")
    return faults


def _late_entry_faults():
    """Every entry was written by the database transaction that wrote its transaction
    (PostgreSQL's ``xmin``): an entry added later to a posted transaction, with the
    triggers off, is found. [issue 14 "Sealed postings"]"""
    with connection.cursor() as cursor:
        cursor.execute("SELECT t.id, count(*) FROM ledger_transaction t JOIN ledger_entry e ON e.transaction_id = t.id"
                       " WHERE NOT (e.xmin = t.xmin) GROUP BY t.id ORDER BY t.id")
        return [f"transaction #{tx_id} has {count} entr{'y' if count == 1 else 'ies'} written after it was posted "
                "(by another database transaction)" for tx_id, count in cursor.fetchall()]


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
    amount; no player's chips are below zero; every entry was written with its
    transaction (``xmin``); every tenure's shares sum to 100.
    Returns:
        list of messages (English, for operators), one per fault.
    """
    faults = []
    sums = dict(Entry.objects.values("account_id").annotate(total=Sum(SIGNED))
                .values_list("account_id", "total"))
    total = ZERO
    for account in all_balances():
        expected = sums.get(account.id) or ZERO
        total += account.balance
        if account.balance != expected:
            faults.append(f"account #{account.id} ({account.label}): balance column {account.balance} "
                          f"but its entries sum to {expected}")
        if not account.is_open and expected != ZERO:
            faults.append(f"account #{account.id} ({account.label}) is closed but holds {expected}: "
                          "a closed tenure distributed its whole balance")
    if total != ZERO:
        faults.append(f"the accounts' balances sum to {total}, not 0")
    unbalanced = (Transaction.objects
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
    faults += _reversal_faults()
    numbers = list(CashierSlip.objects.order_by("number").values_list("number", flat=True))
    for expected_number, number in enumerate(numbers, start=1):
        if number != expected_number:
            faults.append(f"cashier slip {expected_number:06d} is missing (the next is {number:06d})")
            break
    slip_faults = (CashierSlip.objects.exclude(transaction__kind=F("kind"))
                   .exclude(kind=CashierSlip.Kind.BANK_DEPOSIT, rebuild__isnull=True,
                            transaction__kind=Transaction.Kind.CAPITAL_IN)
                   .exclude(kind=CashierSlip.Kind.BANK_DEPOSIT, rebuild__isnull=False,
                            transaction__kind=Transaction.Kind.BANK_REBUILD)
                   .values_list("number", flat=True))
    for number in slip_faults:
        faults.append(f"cashier slip {number:06d} does not match its transaction's kind")
    faults += _slip_amount_faults()
    if chips:
        faults += _negative_chips_faults()
    faults += _late_entry_faults()
    for tenure_id, percent in (BankTenure.objects.annotate(total=Sum("shares__percent"))
                               .exclude(total=100).values_list("id", "total")):
        faults.append(f"bank tenure #{tenure_id}: its shares sum to {percent} percent, not 100")
    return faults
