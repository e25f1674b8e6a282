"""Model instances from rows read by hand-written SQL (the hot paths that skip the ORM's
query compiler)."""

from django.db import connection


def select_list(model, alias):
    """The model's concrete fields and the SQL that selects them from ``alias``.

    Returns:
        ``(fields, sql)``: the fields in column order, and ``'alias."column", …'`` for a
        SELECT list, in that order (what ``row_loader`` takes back).
    """
    fields = list(model._meta.concrete_fields)
    quote = connection.ops.quote_name
    return fields, ", ".join(f"{alias}.{quote(field.column)}" for field in fields)


def row_loader(model, fields):
    """A function that makes a ``model`` instance of a row, as the ORM would load it.

    Worked out once per query (which fields convert their value, the attribute names),
    not once per row.

    Args:
        model: the model class; fields: its concrete fields, in the row's order (as
            ``select_list`` returns them), or some of them in the model's order (the
            others are deferred, as with ``QuerySet.only``).
    Raises:
        ValueError: ``fields`` are not in the model's order (``Model.from_db`` takes
            a subset in that order).
    Returns:
        a function ``values -> instance``: ``values`` are the row's values for ``fields``
        as the database driver returned them; the instance is ``Model.from_db``'s, each
        value passed through its field's ``from_db_value`` (a JSON field's text parsed,
        and so on).
    """
    if [field for field in model._meta.concrete_fields if field in fields] != list(fields):
        raise ValueError(f"{model.__name__}: fields not all concrete, or not in the model's order")
    attnames = [field.attname for field in fields]
    converters = [(i, field.from_db_value) for i, field in enumerate(fields) if hasattr(field, "from_db_value")]
    width = len(fields)

    def load(values):
        if len(values) != width:
            raise ValueError(f"{model.__name__}: {len(values)} values for {width} fields")
        if converters:
            values = list(values)
            for i, convert in converters:
                values[i] = convert(values[i], None, connection)
        return model.from_db(connection.alias, attnames, values)
    return load
