-- The tables' guards in PostgreSQL: hands and their entries, and the bank's life.
-- Loaded by tables/migrations/0002_guards.py; listed with every app's in docs/guards.md.

-- A hand is never deleted; its table, number, bank, seats, rules and limits never change;
-- its status goes open -> settled -> voided only; a settled hand's settlement is final.
CREATE OR REPLACE FUNCTION tables_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% rows are never % (correct a mistake with a new entry)', TG_TABLE_NAME, lower(TG_OP)
        USING ERRCODE = 'check_violation';
END;
$$;

CREATE OR REPLACE FUNCTION tables_hand_update() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF (NEW.table_id, NEW.number, NEW.tenure_id, NEW.bank_id, NEW.seats, NEW.rules, NEW.min_bet, NEW.max_bet)
       IS DISTINCT FROM
       (OLD.table_id, OLD.number, OLD.tenure_id, OLD.bank_id, OLD.seats, OLD.rules, OLD.min_bet, OLD.max_bet) THEN
        RAISE EXCEPTION 'hand % cannot change its table, number, bank, seats, rules or limits', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> NEW.status AND NOT (
        (OLD.status = 'open' AND NEW.status IN ('settled', 'voided'))
        OR (OLD.status = 'settled' AND NEW.status = 'voided')) THEN
        RAISE EXCEPTION 'hand % cannot go from % to %', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'open' AND (NEW.settlement, NEW.transaction_id, NEW.splits, NEW.exchanges, NEW.fusilados,
                                 NEW.muertos, NEW.cards)
                                IS DISTINCT FROM
                                (OLD.settlement, OLD.transaction_id, OLD.splits, OLD.exchanges, OLD.fusilados,
                                 OLD.muertos, OLD.cards) THEN
        RAISE EXCEPTION 'hand % is %: its settlement is final', OLD.id, OLD.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_hand_no_delete ON tables_hand;
CREATE TRIGGER tables_hand_no_delete BEFORE DELETE ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();
DROP TRIGGER IF EXISTS tables_hand_update ON tables_hand;
CREATE TRIGGER tables_hand_update BEFORE UPDATE ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_hand_update();

-- A table's hands are numbered 1, 2, 3... without gaps (each statement's new rows checked).
CREATE OR REPLACE FUNCTION tables_hand_numbers() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.number, n.table_id, n.before INTO bad FROM (
        SELECT number, table_id, lag(number) OVER (PARTITION BY table_id ORDER BY number) AS before
        FROM new_hands) n
    WHERE CASE WHEN n.before IS NOT NULL THEN n.number <> n.before + 1
               ELSE n.number > 1 AND NOT EXISTS (
                   SELECT 1 FROM tables_hand t WHERE t.table_id = n.table_id AND t.number = n.number - 1) END
    ORDER BY n.table_id, n.number LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'hand number % at table %: the next hand is number %', bad.number, bad.table_id,
            coalesce(bad.before + 1, (SELECT coalesce(max(t.number), 0) + 1 FROM tables_hand t
                                      WHERE t.table_id = bad.table_id AND t.number < bad.number))
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS tables_hand_numbers ON tables_hand;
CREATE TRIGGER tables_hand_numbers AFTER INSERT ON tables_hand
    REFERENCING NEW TABLE AS new_hands FOR EACH STATEMENT EXECUTE FUNCTION tables_hand_numbers();

-- A settled hand is voided only once its posting is reversed in the ledger.
CREATE OR REPLACE FUNCTION tables_hand_void_reversed() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction WHERE reverses_id = NEW.transaction_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hand % cannot be voided before its posting (ledger transaction %) is reversed',
            NEW.id, NEW.transaction_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_hand_void_reversed ON tables_hand;
CREATE TRIGGER tables_hand_void_reversed BEFORE UPDATE OF status ON tables_hand
    FOR EACH ROW WHEN (NEW.status = 'voided' AND OLD.status <> 'voided' AND NEW.transaction_id IS NOT NULL)
    EXECUTE FUNCTION tables_hand_void_reversed();

-- A hand's entries and settled bets are never changed or deleted; a hand's entries are
-- numbered 1, 2, 3... without gaps; an entry's table is its hand's (one composite key,
-- checked at COMMIT like Django's: Django declares no composite foreign key).
DROP TRIGGER IF EXISTS tables_handbet_append_only ON tables_handbet;
CREATE TRIGGER tables_handbet_append_only BEFORE DELETE OR UPDATE ON tables_handbet
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();
DROP TRIGGER IF EXISTS tables_handevent_append_only ON tables_handevent;
CREATE TRIGGER tables_handevent_append_only BEFORE DELETE OR UPDATE ON tables_handevent
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();
CREATE OR REPLACE FUNCTION tables_handevent_sequences() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.sequence, n.hand_id, n.before INTO bad FROM (
        SELECT sequence, hand_id, lag(sequence) OVER (PARTITION BY hand_id ORDER BY sequence) AS before
        FROM new_entries) n
    WHERE CASE WHEN n.before IS NOT NULL THEN n.sequence <> n.before + 1
               ELSE n.sequence > 1 AND NOT EXISTS (
                   SELECT 1 FROM tables_handevent t WHERE t.hand_id = n.hand_id AND t.sequence = n.sequence - 1) END
    ORDER BY n.hand_id, n.sequence LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'entry % of hand %: the next entry is %', bad.sequence, bad.hand_id,
            coalesce(bad.before + 1, (SELECT coalesce(max(t.sequence), 0) + 1 FROM tables_handevent t
                                      WHERE t.hand_id = bad.hand_id AND t.sequence < bad.sequence))
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS tables_handevent_sequences ON tables_handevent;
CREATE TRIGGER tables_handevent_sequences AFTER INSERT ON tables_handevent
    REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION tables_handevent_sequences();
ALTER TABLE tables_handevent DROP CONSTRAINT IF EXISTS tables_event_hand_table_fk;
ALTER TABLE tables_handevent ADD CONSTRAINT tables_event_hand_table_fk
    FOREIGN KEY (hand_id, table_id) REFERENCES tables_hand (id, table_id) DEFERRABLE INITIALLY DEFERRED;

-- The bank's rows: a tenure is never deleted and only its closing is ever recorded; its
-- account is a tenure's account; its syndicate's shares, bids for the bank and rebuilds
-- are never changed or deleted; an auction changes once, when it is awarded; a tenure's
-- shares sum to 100 (checked at COMMIT).
CREATE OR REPLACE FUNCTION tables_bank_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the ledger is append-only; correct a mistake with a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE OR REPLACE FUNCTION tables_banktenure_update() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF OLD.closed_at IS NOT NULL THEN
        RAISE EXCEPTION 'bank tenure % is closed: it cannot change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.table_id, NEW.holder_id, NEW.opened_at, NEW.began, NEW.capital)
           IS DISTINCT FROM (OLD.id, OLD.table_id, OLD.holder_id, OLD.opened_at, OLD.began, OLD.capital)
       OR NEW.price IS DISTINCT FROM OLD.price
       OR NEW.seller_id IS DISTINCT FROM OLD.seller_id
       OR NEW.previous_id IS DISTINCT FROM OLD.previous_id
       OR NEW.account_id <> OLD.account_id THEN
        RAISE EXCEPTION 'bank tenure %: only its closing (closed_at, ended) may be recorded', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION tables_tenure_account_kind() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = NEW.account_id AND kind = 'tenure';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank tenure %: its account % is not a tenure''s account', NEW.id, NEW.account_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION tables_shares_sum() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    tenure bigint;
    total numeric;
BEGIN
    IF TG_TABLE_NAME = 'tables_banktenure' THEN
        tenure := NEW.id;
    ELSE
        tenure := NEW.tenure_id;
    END IF;
    SELECT coalesce(sum(percent), 0) INTO total FROM tables_syndicateshare WHERE tenure_id = tenure;
    IF total <> 100 THEN
        RAISE EXCEPTION 'the syndicate shares of bank tenure % sum to % percent, not 100', tenure, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION tables_bid_no_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION 'a bid for the bank is never changed or deleted: record a new bid'
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE OR REPLACE FUNCTION tables_auction_awarded_once() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' OR OLD.awarded_at IS NOT NULL OR NEW.table_id <> OLD.table_id
       OR NEW.sessions <> OLD.sessions OR NEW.opened_at <> OLD.opened_at OR NEW.opened_by_id <> OLD.opened_by_id THEN
        RAISE EXCEPTION 'a bank auction is only ever changed once: when it is awarded'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS tables_banktenure_no_delete ON tables_banktenure;
CREATE TRIGGER tables_banktenure_no_delete BEFORE DELETE ON tables_banktenure
    FOR EACH ROW EXECUTE FUNCTION tables_bank_refuse_change();
DROP TRIGGER IF EXISTS tables_banktenure_update ON tables_banktenure;
CREATE TRIGGER tables_banktenure_update BEFORE UPDATE ON tables_banktenure
    FOR EACH ROW EXECUTE FUNCTION tables_banktenure_update();
DROP TRIGGER IF EXISTS tables_banktenure_account_kind ON tables_banktenure;
CREATE TRIGGER tables_banktenure_account_kind BEFORE INSERT ON tables_banktenure
    FOR EACH ROW EXECUTE FUNCTION tables_tenure_account_kind();
DROP TRIGGER IF EXISTS tables_banktenure_shares ON tables_banktenure;
CREATE CONSTRAINT TRIGGER tables_banktenure_shares AFTER INSERT ON tables_banktenure
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tables_shares_sum();
DROP TRIGGER IF EXISTS tables_syndicateshare_append_only ON tables_syndicateshare;
CREATE TRIGGER tables_syndicateshare_append_only BEFORE DELETE OR UPDATE ON tables_syndicateshare
    FOR EACH ROW EXECUTE FUNCTION tables_bank_refuse_change();
DROP TRIGGER IF EXISTS tables_syndicateshare_sum ON tables_syndicateshare;
CREATE CONSTRAINT TRIGGER tables_syndicateshare_sum AFTER INSERT ON tables_syndicateshare
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tables_shares_sum();
DROP TRIGGER IF EXISTS tables_bid_no_change ON tables_bankbid;
CREATE TRIGGER tables_bid_no_change BEFORE DELETE OR UPDATE ON tables_bankbid
    FOR EACH ROW EXECUTE FUNCTION tables_bid_no_change();
DROP TRIGGER IF EXISTS tables_auction_awarded_once ON tables_bankauction;
CREATE TRIGGER tables_auction_awarded_once BEFORE DELETE OR UPDATE ON tables_bankauction
    FOR EACH ROW EXECUTE FUNCTION tables_auction_awarded_once();
DROP TRIGGER IF EXISTS tables_bankrebuild_refuse_change ON tables_bankrebuild;
CREATE TRIGGER tables_bankrebuild_refuse_change BEFORE DELETE OR UPDATE ON tables_bankrebuild
    FOR EACH ROW EXECUTE FUNCTION tables_bank_refuse_change();
