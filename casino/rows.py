"""Model instances from rows read by hand-written SQL (the hot paths that skip the ORM's
query compiler)."""

from django.db import connection


def select_list(model, alias):
    """The model's concrete fields and the SQL that selects them from ``alias``.

    Returns:
        ``(fields, sql)``: the fields in column order, and ``'alias."column", …'`` for a
        SELECT list, in that order (what ``instance_from_row`` takes back).
    """
    fields = list(model._meta.concrete_fields)
    quote = connection.ops.quote_name
    return fields, ", ".join(f"{alias}.{quote(field.column)}" for field in fields)


def instance_from_row(model, fields, values):
    """A ``model`` instance as the ORM would load it from a row.

    Args:
        model: the model class; fields: its concrete fields, in the row's order;
        values: the row's values for them, as the database driver returned them.
    Returns:
        the instance (``Model.from_db``), each value passed through its field's
        ``from_db_value`` (a JSON field's text parsed, and so on).
    """
    values = [field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
              for field, value in zip(fields, values, strict=True)]
    return model.from_db(connection.alias, [field.attname for field in fields], values)
