"""An import's settlements posted in bulk (``SettlementBatch``), with the same legs and
checks as one posting at a time (``tables.settlement``, ``tables.bank.tenures``) and the
ledger's registered checks in their batch form (``ledger.posting.batch_checks``)."""

from decimal import Decimal

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.bulk import IdPool, Statement, instances_copy, rows_copy, send_all, take_ids_each
from ledger import posting
from ledger.errors import InsufficientChips, TenureError
from ledger.models import Account, Entry, Transaction
from ledger.money import cents, euros
from ledger.posting import KIND
from ledger.signing import sign
from patrons.models import Player
from tables.bank.tenures import (
    capital_posting,
    check_new_holder,
    check_tenure_open,
    chips_shortfall,
    distribution_posting,
)
from tables.models import BankTenure, SyndicateShare
from tables.settlement import create_settlement_accounts, settlement_legs, settlement_nets


class _Checks:
    """The ledger's registered checks in their batch form, called as one."""

    def __init__(self, batches):
        self.batches = batches

    def check(self, **kwargs):
        for batch in self.batches:
            batch.check(**kwargs)

    def mark(self):
        return [batch.mark() for batch in self.batches]

    def undo(self, marks):
        for batch, mark in zip(self.batches, marks, strict=True):
            batch.undo(mark)

    def detach(self):
        return [write for batch in self.batches for write in batch.detach()]

    def forget(self):
        for batch in self.batches:
            batch.forget()


_READ_BATCH_SQL = """
SELECT a.id, a.kind, p.code, b.id, a.balance, a.is_open
  FROM ledger_account a LEFT JOIN patrons_player p ON p.id = a.player_id
       LEFT JOIN tables_banktenure b ON b.account_id = a.id
 WHERE a.id = ANY(ARRAY(SELECT c.id FROM ledger_account c JOIN patrons_player q ON q.id = c.player_id
                         WHERE q.code = ANY(%(codes)s::text[])
                        UNION ALL SELECT t.account_id FROM tables_banktenure t WHERE t.id = %(tenure)s
                        UNION ALL SELECT h.id FROM ledger_account h WHERE %(house)s AND h.kind = 'house'))
 ORDER BY a.id
   FOR NO KEY UPDATE OF a"""

_MOVE_BALANCES_SQL = """
WITH head AS (
    UPDATE ledger_chainhead SET signature = %(head)s, last_id = %(last)s WHERE id = 1 AND %(last)s::bigint IS NOT NULL),
tenures AS (
    UPDATE tables_banktenure t SET closed_at = c.closed_at, ended = c.ended
      FROM unnest(%(tenures)s::bigint[], %(closed_at)s::timestamptz[], %(ended)s::varchar[])
           AS c(id, closed_at, ended)
     WHERE t.id = c.id)
UPDATE ledger_account a SET balance = a.balance + d.delta, is_open = a.is_open AND NOT d.closing
  FROM unnest(%(ids)s::bigint[], %(deltas)s::numeric[], %(closing)s::boolean[]) AS d(id, delta, closing)
 WHERE a.id = d.id"""
# A batch's balances moved, the ledger's chain head moved to its last transaction, and the accounts
# of the tenures it closed closed in one statement, with the closing of those tenures written before it (each row's trigger checks its own table:
# ledger_account_update, ledger_banktenure_update).


class SettlementBatch:
    """The settlements of an import's hands, posted in bulk: each hand's transaction is
    checked and its legs made as ``ledger_post_settlement`` makes them, kept in memory,
    and written with the batch's others by ``flush`` (the transactions in one statement,
    their entries in one, every balance moved once by its total).

    The accounts are row-locked (``FOR NO KEY UPDATE``) and read once, when first needed,
    and held until the caller's transaction ends; their balances are then kept in memory
    (what was read plus what the pending postings move), so that an import's cover checks
    (a player's chips, a limited bank's funds) read nothing more. Anything else that posts
    (a bank drawn for, opening chips, a bank passed that ``pass_bank`` cannot pass) reads
    the balances from the database: the caller ``flush``-es before it and ``forget``-s
    after it.

    A 7½ takeover is passed in memory too (``pass_bank``): the old tenure closed and its
    distribution kept with the batch's postings, the taker's tenure, share and account
    made as rows (their ids taken ahead) written by ``flush``; the patrons' gaming days
    for the AML rules kept in memory (``cage.services.aml.AmlBatch``).

    The cover checks run on the balances it holds: a hand's own posting is two statements
    (``ledger_post_settlement``), a flush three, one flush before each bank a 7½ passes
    ``benchmarks/import.py --statements``.
    """

    def __init__(self):
        self.accounts = {}  # player code -> his chips account's id, None while he has none
        self.tenures = {}  # tenure id -> (its account's id)
        self.balances = {}  # account id -> cents: as read under its lock, plus the pending postings
        self.open = {}  # account id -> is_open, as read
        self.house = None  # the house account's id (None: none yet)
        self.house_read = False  # its balance read since the last forget
        self.stale = set()  # codes whose balances were forgotten: read again with the next read
        self.pending = []  # [(Transaction unsaved, legs)]
        # The ledger's chain head (its signature) as locked and read with the batch's first accounts,
        # moved by each detach; None: not read since the last forget (another service posted).
        self.head = None
        # The transactions' ids, taken from their sequence at each flush, as many as it writes (taken
        # ahead for the whole batch, the ids left unused would be gaps: the import would not number
        # its transactions as the console's services do, which tests/tables/test_import_batches.py checks).
        self.ids = IdPool(Transaction)
        self.players = {}  # code -> Player: the batch's (the caller's), whose AML days are read together
        self.members = {}  # tenure id -> [(Player, Decimal percent)]: its syndicate, in the shares' order
        self.checks = _Checks(posting.batch_checks())  # the ledger's checks (AML) of the postings kept
        # Made by pass_bank, written by flush: new tenures (ids taken), their shares, their accounts
        # (ids taken), and the tenures closed [(BankTenure, its account's id)].
        self.new_tenures, self.new_shares, self.new_accounts, self.closings = [], [], [], []
        # [(tenure id, account id)] taken ahead for pass_bank, as many as the caller expects it to pass
        # (expect_passes) in one statement: one a batch instead of one a bank passed (246 statements fewer
        # for 1,000 chained hands of benchmarks/import.py). A refused record's are gaps.
        self.pass_ids, self.passes_due = [], 1

    def _read(self, codes=(), tenure_id=None):
        """Lock and read, in one statement in account-id order, the chips of ``codes``, the
        account of tenure ``tenure_id`` and the house's, those not read yet."""
        codes = sorted((set(codes) | self.stale) - self.accounts.keys())
        self.stale.clear()
        if tenure_id in self.tenures:
            tenure_id = None
        house = not self.house_read
        if not codes and tenure_id is None and not house:
            return
        if self.head is None:  # first the ledger's chain head, then the accounts (ledger.posting.lock_chain)
            self.head = posting.lock_chain()
        with connection.cursor() as cursor:
            cursor.execute(_READ_BATCH_SQL, {"codes": codes, "tenure": tenure_id, "house": house})
            rows = cursor.fetchall()
        self.accounts.update(dict.fromkeys(codes))
        self.house_read = True
        for account_id, kind, code, tenure, balance, is_open in rows:
            self.balances[account_id], self.open[account_id] = cents(balance), is_open
            if kind == Account.Kind.PLAYER:
                self.accounts[code] = account_id
            elif kind == Account.Kind.TENURE:
                self.tenures[tenure] = account_id
            else:
                self.house = account_id

    def chips(self, codes, tenure=None) -> dict:
        """``{code: cents}``: each player's chips on record (a player without an account is
        absent: he holds nothing), his account locked; ``tenure``'s account read with them
        (for the hand's posting), if given."""
        self._read(codes=codes, tenure_id=None if tenure is None else tenure.pk)
        return {code: self.balances[self.accounts[code]] for code in codes if self.accounts[code] is not None}

    def bank_holds(self, tenure) -> int:
        """Cents the tenure's account holds, locked.

        Raises:
            TenureError: the tenure has no account."""
        self._read(tenure_id=tenure.pk)
        if tenure.pk not in self.tenures:
            raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
        return self.balances[self.tenures[tenure.pk]]

    def post_settlement(self, *, tenure: BankTenure, settlement, idempotency_key: str, reference: str,
                        posted_by=None, source: str = "", cause: dict | None = None) -> Transaction:
        """``ledger_post_settlement``'s posting, kept for ``flush``: the same checks, the same
        legs, the same transaction (unsaved until ``flush``; its balances moved in memory).

        A key posted already is refused by its unique constraint when ``flush`` writes it
        (an import's keys are its hands' numbers, each the table's next: none can be).

        Raises:
            UnknownPlayer, TenureError, ValueError: as ``ledger_post_settlement``.
        """
        if not idempotency_key or not reference:
            raise ValueError("a settlement posting needs an idempotency_key and a reference")
        source = posting.source_of(posted_by, source, "console" if posted_by is not None else "settlement")
        won, lost = settlement_nets(settlement)
        betting = sorted(set(won) | set(lost))
        self._read(codes=betting, tenure_id=tenure.pk)
        if tenure.holder.code != settlement.bank_player:
            raise TenureError(_("the hand's bank is %(bank)s, but bank tenure #%(tenure)s is held by another "
                                "player"), params={"bank": settlement.bank_player, "tenure": tenure.pk})
        bank = self.tenures.get(tenure.pk)
        if bank is None:
            raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
        if not self.open[bank]:
            raise TenureError(_("bank tenure #%(tenure)s is closed: post the hand to the open tenure"),
                              params={"tenure": tenure.pk})
        missing = [code for code in betting if self.accounts[code] is None]
        need_house = settlement.commission > 0 and self.house is None
        if missing or need_house:
            # A player's first hand (or the house's first commission): the accounts created (the last
            # refusal, an unknown player, comes before), then locked. The tenure's account is the
            # batch's: a tenure a 7½ passed in memory is not written yet.
            _holder, _by_code, _bank, house = create_settlement_accounts(
                codes=missing, tenure=tenure, bank_player=settlement.bank_player, house=need_house,
                bank_account=bank)
            for code in missing:
                del self.accounts[code]
            if need_house:
                self.house, self.house_read = house, False
            self._read(codes=missing)
        legs = settlement_legs(settlement, won, lost, {code: self.accounts[code] for code in betting}, bank,
                                self.house)
        txn = Transaction(kind=KIND.HAND, reference=reference[:200], idempotency_key=idempotency_key,
                          posted_by=posted_by, source=source, detail=settlement.as_dict(),
                          cause=cause or {}, posted_at=timezone.now())
        for account_id, delta in posting.deltas(legs).items():
            self.balances[account_id] += delta
        self.pending.append((txn, legs))
        return txn

    def syndicate(self, tenure) -> list:
        """``[(Player, Decimal percent)]``: ``tenure``'s syndicate in the shares' order (read
        once per batch; a tenure ``pass_bank`` opened is known without a read)."""
        if tenure.pk not in self.members:
            self.members[tenure.pk] = [(share.player, share.percent) for share
                                       in tenure.shares.select_related("player").order_by("id")]
        return self.members[tenure.pk]

    def can_pass(self, tenure, holder) -> bool:
        """May ``pass_bank`` pass ``tenure`` to ``holder`` in memory: the tenure's account
        and every chips account it moves (its syndicate's, the taker's) exist (read and
        locked here if not yet). Otherwise the bank passes through ``bank_transfer``
        (``flush`` first)."""
        codes = [holder.code, *(player.code for player, percent in self.syndicate(tenure))]
        self._read(codes=codes, tenure_id=tenure.pk)
        return tenure.pk in self.tenures and all(self.accounts.get(code) is not None for code in codes)

    def expect_passes(self, count: int):
        """How many banks the caller expects ``pass_bank`` to pass from now on (its
        estimate, at least 1: the next ``pass_bank`` that finds no ids taken takes that
        many pairs at once; too many leaves gaps, too few costs another statement)."""
        self.passes_due = max(1, count)

    def pass_bank(self, *, tenure: BankTenure, holder: Player, capital: int, risk: int = 0, posted_by=None,
                  source: str = "") -> BankTenure:
        """A 7½ takeover in memory: ``bank_transfer(cause="natural")`` of the batch (the same
        postings, rows and AML movements, written by ``flush``). [rules.md "The bank passes"]

        The old tenure closes (``ended`` natural): its balance, as this batch holds it, goes
        back to its syndicate by shares (``tenures._distribution_posting``); the taker's
        tenure (``began`` natural, ``previous`` the old one), his 100 % share and the
        tenure's account are made with ids taken from their sequences (``casino.bulk
        .take_ids_each``: ahead, for as many banks as ``expect_passes`` said, in one
        statement), and his capital posted from his chips
        (``tenures._capital_posting``). ``can_pass`` must have said yes.

        Args:
            tenure: the open BankTenure; holder: the Player taking it (not its holder);
            capital: cents (zero or more) from his chips; risk: cents he has at risk in
            open hands (his chips less them must cover the capital); posted_by: the staff
            user, None for the system; source: as ``bank_transfer``.
        Returns:
            the new BankTenure (its id set; written by ``flush``).
        Raises:
            TenureError: ``holder`` holds it already, or it is closed. InsufficientChips:
            his chips less his risk do not cover the capital (nothing kept). AmlRefused:
            as ``_post`` for a refusable source (then the batch must be undone: ``undo``).
        """
        source = posting.source_of(posted_by, source, "cashier")
        # bank_transfer's own rules (tables.bank.tenures), on what the batch holds.
        check_new_holder(tenure=tenure, holder=holder)
        members = self.syndicate(tenure)
        bank = self.tenures[tenure.pk]
        check_tenure_open(tenure=tenure, is_open=self.open[bank])
        taker = self.accounts[holder.code]
        short = chips_shortfall(code=holder.code, balance=self.balances[taker], risk=risk, needed=capital)
        if short:
            raise InsufficientChips(short, field="capital")
        planned = distribution_posting(tenure=tenure, bank=bank, balance=self.balances[bank], members=[
            (player, percent, self.accounts[player.code]) for player, percent in members])
        if planned is not None:
            self._keep(posted_by=posted_by, source=source, patrons=[player for player, _p in members], **planned)
        tenure.closed_at, tenure.ended = timezone.now(), BankTenure.Ended.NATURAL
        self.open[bank] = False
        self.closings.append((tenure, bank))

        if not self.pass_ids:
            self.pass_ids = take_ids_each(BankTenure, Account, count=self.passes_due)
        tenure_id, account_id = self.pass_ids.pop(0)
        new = BankTenure(id=tenure_id, table=tenure.table, holder=holder, began=BankTenure.Began.NATURAL,
                         capital=euros(capital), previous=tenure, account_id=account_id)
        self.new_tenures.append(new)
        self.new_shares.append(SyndicateShare(tenure=new, player=holder, percent=Decimal(100)))
        self.new_accounts.append(Account(id=account_id, kind=Account.Kind.TENURE))
        self.members[new.pk] = [(holder, Decimal("100.00"))]  # as read back from its column (two places)
        self.tenures[new.pk], self.balances[account_id], self.open[account_id] = account_id, 0, True
        if capital:
            self._keep(posted_by=posted_by, source=source, patrons=[holder], **capital_posting(
                tenure=new, bank=account_id, capital_cents=capital, members=[(holder, Decimal(100), taker)]))
        return new

    def _keep(self, *, kind, legs, idempotency_key, reference, posted_by, source, cause, detail, patrons):
        """``_post`` in memory: the transaction kept for ``flush``, the balances moved, the
        AML movements of ``patrons`` (Players whose chips the legs move) kept by ``aml``."""
        posting.check_legs(legs)
        txn = Transaction(kind=kind, reference=reference[:200], idempotency_key=idempotency_key, posted_by=posted_by,
                          source=source, detail=detail, cause=cause, posted_at=timezone.now())
        self.checks.check(kind=kind, legs=legs, players={self.accounts[player.code]: player for player in patrons},
                       posted_by=posted_by, at=txn.posted_at, source=source, transaction=txn,
                       expect=self.players.values())
        for account_id, delta in posting.deltas(legs).items():
            self.balances[account_id] += delta
        self.pending.append((txn, legs))

    def mark(self):
        """What ``undo`` goes back to: what the batch holds now (a record about to be entered)."""
        return (len(self.pending), len(self.new_tenures), len(self.new_shares), len(self.new_accounts),
                len(self.closings), dict(self.balances), dict(self.open), dict(self.tenures), self.checks.mark())

    def undo(self, mark):
        """Forget what was kept since ``mark`` (a record refused: its postings, its bank
        passed, its AML movements); a tenure it closed is open again."""
        (pending, tenures, shares, accounts, closings, self.balances, self.open, self.tenures, aml_mark) = mark
        for tenure, _account in self.closings[closings:]:
            tenure.closed_at, tenure.ended = None, ""  # pass_bank closes only an open tenure
        del self.pending[pending:]
        del self.new_tenures[tenures:]
        del self.new_shares[shares:]
        del self.new_accounts[accounts:]
        del self.closings[closings:]
        self.checks.undo(aml_mark)

    def flush(self):
        """Write what the batch kept now (``send_all`` of ``detach``)."""
        send_all(self.detach())

    def detach(self) -> list:
        """What the batch kept, made ready to write and taken out of it: the writes
        (``casino.bulk.CopyIn``, ``Statement``), to send in order, on this thread
        (``flush``) or with the import's batch. Ids are taken and the rows
        formatted now; the balances the batch holds stay as they are.

        In order: the tenures' accounts made by ``pass_bank``, the pending postings (the
        transactions, their ids set, and their entries), each account's balance moved once
        by its total and the accounts of the tenures closed closed (with those tenures
        already written) in one statement, then the tenures made and their shares, and the
        AML movements and alerts. Every row goes through its table's triggers: an entry's
        account is open when it is copied in, a tenure opens once the table's previous one
        is closed.
        """
        if not (self.pending or self.new_accounts or self.closings):
            return []
        # A tenure's account before its tenure: the foreign key is checked at COMMIT.
        writes = [instances_copy(Account, self.new_accounts)]
        # COPY, the transactions' ids taken from their sequence first (casino.bulk), each signed and
        # chained in their order (ledger.signing), the entries as plain tuples, no model instance
        # (benchmarks/RESULTS.md, "Measurements behind the code's choices").
        head = self.head if self.head is not None else posting.lock_chain()
        for txn, legs in self.pending:
            head = sign(txn, legs, head)
        self.head = head
        writes.append(instances_copy(Transaction, [txn for txn, _legs in self.pending], ids=self.ids))
        if self.pending:
            writes.append(rows_copy(Entry._meta.db_table, ["transaction_id", "account_id", "side", "amount"],
                                    ((txn.id, account_id, side, euros(amount)) for txn, legs in self.pending
                                     for account_id, side, amount in legs)))
        moved = posting.deltas(leg for _txn, legs in self.pending for leg in legs)
        closed = {account_id for _tenure, account_id in self.closings}
        made = {tenure.pk for tenure in self.new_tenures}
        written = [tenure for tenure, _account in self.closings if tenure.pk not in made]
        ids = sorted(set(moved) | closed)
        writes.append(Statement(_MOVE_BALANCES_SQL, {
            "head": head, "last": self.pending[-1][0].pk if self.pending else None,
            "ids": ids, "deltas": [euros(moved.get(account_id, 0)) for account_id in ids],
            "closing": [account_id in closed for account_id in ids],
            "tenures": [tenure.pk for tenure in written], "closed_at": [tenure.closed_at for tenure in written],
            "ended": [tenure.ended for tenure in written]}))
        writes.append(instances_copy(BankTenure, self.new_tenures))  # after the table's previous tenure was closed
        writes.append(instances_copy(SyndicateShare, self.new_shares))
        writes += self.checks.detach()
        self.pending = []
        self.new_tenures, self.new_shares, self.new_accounts, self.closings = [], [], [], []
        return writes

    def forget(self):
        """Forget the balances read (another service posted since: they are read again,
        after ``flush``, all in the next read)."""
        if self.pending or self.new_accounts or self.closings:
            raise RuntimeError("flush the pending postings before another service posts")
        self.checks.forget()
        self.head = None
        self.stale.update(code for code, account_id in self.accounts.items() if account_id is not None)
        self.accounts.clear()
        self.tenures.clear()
        self.balances.clear()
        self.open.clear()
        self.house_read = False
