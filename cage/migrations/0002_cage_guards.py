"""The cage's invariants in PostgreSQL, and its two roles' groups.

- A drawer is never deleted; its opening (cashier, time, float) never changes; a closed
  drawer never changes.
- A cashier slip is inserted only against an open drawer of the cashier who issues it.
- AML movements, alerts, reviews and identity records are append-only: UPDATE refused,
  DELETE refused while their ``retain_until`` has not passed (AML_RETENTION_YEARS).
  [Directive 2015/849 art. 40; Ley 10/2010 art. 25: ten years]
"""

from django.db import migrations

AML_TABLES = ("cage_amlmovement", "cage_amlalert", "cage_amlreview", "cage_identityrecord")

FORWARD = r"""
CREATE FUNCTION cage_drawer_guard() RETURNS trigger AS $$
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
$$ LANGUAGE plpgsql;

CREATE TRIGGER cage_drawer_guard BEFORE UPDATE OR DELETE ON cage_drawer
    FOR EACH ROW EXECUTE FUNCTION cage_drawer_guard();

CREATE FUNCTION cage_slip_needs_open_drawer() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM cage_drawer d
     WHERE d.id = NEW.drawer_id AND d.closed_at IS NULL AND d.cashier_id = NEW.issued_by_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cashier slip %: no open drawer of its cashier (drawer %)', NEW.number, NEW.drawer_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER cage_slip_needs_open_drawer BEFORE INSERT ON ledger_cashierslip
    FOR EACH ROW EXECUTE FUNCTION cage_slip_needs_open_drawer();

CREATE FUNCTION cage_aml_append_only() RETURNS trigger AS $$
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
$$ LANGUAGE plpgsql;
""" + "".join(f"""
CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION cage_aml_append_only();
""" for table in AML_TABLES)

BACKWARD = "".join(f"DROP TRIGGER {table}_append_only ON {table};\n" for table in AML_TABLES) + """
DROP FUNCTION cage_aml_append_only();
DROP TRIGGER cage_slip_needs_open_drawer ON ledger_cashierslip;
DROP FUNCTION cage_slip_needs_open_drawer();
DROP TRIGGER cage_drawer_guard ON cage_drawer;
DROP FUNCTION cage_drawer_guard();
"""

ROLES = ("cage_supervisor", "compliance_officer")


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLES:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [("cage", "0001_initial"), ("ledger", "0004_slip_drawer"),
                    ("tables", "0002_role_groups")]
    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.RunPython(create_groups, migrations.RunPython.noop),
    ]
