-- The cage's guards in PostgreSQL: drawers, slips, the AML records, and the bank's money
-- deposited at the cage before it plays. Loaded by cage/migrations/0002_guards.py; listed
-- with every app's in docs/guards.md.

-- A drawer is never deleted; its opening never changes; a closed drawer never changes.
CREATE OR REPLACE FUNCTION cage_drawer_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'cage drawer %: a drawer is never deleted', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.closed_at IS NOT NULL THEN
        RAISE EXCEPTION 'cage drawer %: a closed drawer never changes', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.cashier_id <> OLD.cashier_id OR NEW.opened_at <> OLD.opened_at
       OR NEW.float_amount <> OLD.float_amount OR NEW.float_count <> OLD.float_count THEN
        RAISE EXCEPTION 'cage drawer %: its opening never changes', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS cage_drawer_guard ON cage_drawer;
CREATE TRIGGER cage_drawer_guard BEFORE DELETE OR UPDATE ON cage_drawer
    FOR EACH ROW EXECUTE FUNCTION cage_drawer_guard();

-- A slip and its void are never changed or deleted; a slip is booked only against an open
-- drawer of the cashier who issues it.
CREATE OR REPLACE FUNCTION cage_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the ledger is append-only; correct a mistake with a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE OR REPLACE FUNCTION cage_slip_needs_open_drawer() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM cage_drawer d
     WHERE d.id = NEW.drawer_id AND d.closed_at IS NULL AND d.cashier_id = NEW.issued_by_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cashier slip %: no open drawer of its cashier (drawer %)', NEW.number, NEW.drawer_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS cage_cashierslip_append_only ON cage_cashierslip;
CREATE TRIGGER cage_cashierslip_append_only BEFORE DELETE OR UPDATE ON cage_cashierslip
    FOR EACH ROW EXECUTE FUNCTION cage_refuse_change();
DROP TRIGGER IF EXISTS cage_slipvoid_append_only ON cage_slipvoid;
CREATE TRIGGER cage_slipvoid_append_only BEFORE DELETE OR UPDATE ON cage_slipvoid
    FOR EACH ROW EXECUTE FUNCTION cage_refuse_change();
DROP TRIGGER IF EXISTS cage_slip_needs_open_drawer ON cage_cashierslip;
CREATE TRIGGER cage_slip_needs_open_drawer BEFORE INSERT ON cage_cashierslip
    FOR EACH ROW EXECUTE FUNCTION cage_slip_needs_open_drawer();

-- The AML records never change, and are kept until their retention ends (their gaming day
-- + AML_RETENTION_YEARS). [EU Directive 2015/849 art. 40; Ley 10/2010 art. 25]
CREATE OR REPLACE FUNCTION cage_aml_append_only() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION '%: an AML record never changes (add a new one)', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.retain_until >= current_date THEN
        RAISE EXCEPTION '%: an AML record is kept until %', TG_TABLE_NAME, OLD.retain_until
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN OLD;
END;
$$;

DROP TRIGGER IF EXISTS cage_amlmovement_append_only ON cage_amlmovement;
CREATE TRIGGER cage_amlmovement_append_only BEFORE DELETE OR UPDATE ON cage_amlmovement
    FOR EACH ROW EXECUTE FUNCTION cage_aml_append_only();
DROP TRIGGER IF EXISTS cage_amlalert_append_only ON cage_amlalert;
CREATE TRIGGER cage_amlalert_append_only BEFORE DELETE OR UPDATE ON cage_amlalert
    FOR EACH ROW EXECUTE FUNCTION cage_aml_append_only();
DROP TRIGGER IF EXISTS cage_amlrefusal_append_only ON cage_amlrefusal;
CREATE TRIGGER cage_amlrefusal_append_only BEFORE DELETE OR UPDATE ON cage_amlrefusal
    FOR EACH ROW EXECUTE FUNCTION cage_aml_append_only();
DROP TRIGGER IF EXISTS cage_amlreview_append_only ON cage_amlreview;
CREATE TRIGGER cage_amlreview_append_only BEFORE DELETE OR UPDATE ON cage_amlreview
    FOR EACH ROW EXECUTE FUNCTION cage_aml_append_only();

-- A bank's deposits at the cage: at most its capital (or its rebuild's amount), into an
-- open tenure that takes them; a deposit is voided only before its bank has played; a
-- hand opens only on a bank whose capital and latest rebuild are deposited; a rebuild is
-- ordered only on an open tenure whose earlier rebuild was deposited. [Melilla casino
-- rules 2014 art. 52: "the bank's money is deposited at the cage before play"]
CREATE OR REPLACE FUNCTION cage_live_deposits(tenure bigint) RETURNS numeric
    LANGUAGE sql STABLE
AS $$
    SELECT COALESCE(SUM(s.amount), 0) FROM cage_cashierslip s
     WHERE s.tenure_id = tenure AND s.kind = 'bank_deposit' AND s.rebuild_id IS NULL
       AND NOT EXISTS (SELECT 1 FROM cage_slipvoid v WHERE v.slip_id = s.id);
$$;

CREATE OR REPLACE FUNCTION cage_rebuild_deposits(rebuild bigint) RETURNS numeric
    LANGUAGE sql STABLE
AS $$
    SELECT COALESCE(SUM(s.amount), 0) FROM cage_cashierslip s
     WHERE s.rebuild_id = rebuild AND s.kind = 'bank_deposit'
       AND NOT EXISTS (SELECT 1 FROM cage_slipvoid v WHERE v.slip_id = s.id);
$$;

CREATE OR REPLACE FUNCTION cage_bank_deposit_check() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    t tables_banktenure%ROWTYPE;
    r tables_bankrebuild%ROWTYPE;
BEGIN
    SELECT * INTO t FROM tables_banktenure WHERE id = NEW.tenure_id;
    IF NEW.rebuild_id IS NOT NULL THEN
        SELECT * INTO r FROM tables_bankrebuild WHERE id = NEW.rebuild_id;
        IF t.closed_at IS NOT NULL OR r.tenure_id <> NEW.tenure_id THEN
            RAISE EXCEPTION 'bank deposit slip %: rebuild % is not of the open tenure %', NEW.number,
                NEW.rebuild_id, NEW.tenure_id USING ERRCODE = 'check_violation';
        END IF;
        IF cage_rebuild_deposits(r.id) + NEW.amount > r.amount THEN
            RAISE EXCEPTION 'bank deposit slip %: the deposits would exceed rebuild %''s amount of %',
                NEW.number, r.id, r.amount USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF t.closed_at IS NOT NULL OR NOT t.deposit_required THEN
        RAISE EXCEPTION 'bank deposit slip %: tenure % is closed or takes no deposit', NEW.number, NEW.tenure_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF cage_live_deposits(NEW.tenure_id) + NEW.amount > t.capital THEN
        RAISE EXCEPTION 'bank deposit slip %: the deposits would exceed tenure %''s capital of %',
            NEW.number, NEW.tenure_id, t.capital USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION cage_deposit_void_before_play() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM cage_cashierslip s JOIN tables_hand h ON h.tenure_id = s.tenure_id
                LEFT JOIN tables_bankrebuild r ON r.id = s.rebuild_id
                WHERE s.id = NEW.slip_id AND s.kind = 'bank_deposit'
                  AND (r.id IS NULL OR h.opened_at >= r.ordered_at)) THEN
        RAISE EXCEPTION 'slip %: a bank deposit is not voided once its bank has played', NEW.slip_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION cage_hand_needs_deposited_bank() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    t tables_banktenure%ROWTYPE;
    r tables_bankrebuild%ROWTYPE;
BEGIN
    SELECT * INTO t FROM tables_banktenure WHERE id = NEW.tenure_id;
    IF t.deposit_required AND cage_live_deposits(t.id) < t.capital THEN
        RAISE EXCEPTION 'hand % at table %: bank tenure % awaits its deposits at the cage (% of %)',
            NEW.number, NEW.table_id, t.id, cage_live_deposits(t.id), t.capital
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT * INTO r FROM tables_bankrebuild WHERE tenure_id = t.id ORDER BY number DESC LIMIT 1;
    IF FOUND AND cage_rebuild_deposits(r.id) < r.amount THEN
        RAISE EXCEPTION 'hand % at table %: bank tenure % awaits the deposits of its rebuild % at the cage (% of %)',
            NEW.number, NEW.table_id, t.id, r.number, cage_rebuild_deposits(r.id), r.amount
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION cage_rebuild_order_check() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM tables_banktenure t WHERE t.id = NEW.tenure_id AND t.closed_at IS NOT NULL) THEN
        RAISE EXCEPTION 'bank rebuild %: tenure % is closed', NEW.number, NEW.tenure_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF EXISTS (SELECT 1 FROM tables_bankrebuild r WHERE r.tenure_id = NEW.tenure_id
                  AND cage_rebuild_deposits(r.id) < r.amount) THEN
        RAISE EXCEPTION 'bank rebuild %: an earlier rebuild of tenure % awaits its deposits', NEW.number,
            NEW.tenure_id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS cage_bank_deposit_check ON cage_cashierslip;
CREATE TRIGGER cage_bank_deposit_check BEFORE INSERT ON cage_cashierslip
    FOR EACH ROW WHEN (NEW.kind = 'bank_deposit') EXECUTE FUNCTION cage_bank_deposit_check();
DROP TRIGGER IF EXISTS cage_deposit_void_before_play ON cage_slipvoid;
CREATE TRIGGER cage_deposit_void_before_play BEFORE INSERT ON cage_slipvoid
    FOR EACH ROW EXECUTE FUNCTION cage_deposit_void_before_play();
DROP TRIGGER IF EXISTS cage_hand_needs_deposited_bank ON tables_hand;
CREATE TRIGGER cage_hand_needs_deposited_bank BEFORE INSERT ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION cage_hand_needs_deposited_bank();
DROP TRIGGER IF EXISTS cage_rebuild_order_check ON tables_bankrebuild;
CREATE TRIGGER cage_rebuild_order_check BEFORE INSERT ON tables_bankrebuild
    FOR EACH ROW EXECUTE FUNCTION cage_rebuild_order_check();
