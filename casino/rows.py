"""Model instances from rows read by hand-written SQL (the hot paths that skip the ORM's
query compiler)."""

from django.db import connection
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init


def select_list(model, alias, only=None):
    """The model's concrete fields (or those named in ``only``: attribute names) and the
    SQL that selects them from ``alias``.

    Returns:
        ``(fields, sql)``: the fields in the model's order, and ``'alias."column", …'``
        for a SELECT list, in that order (what ``row_loader`` takes back).
    """
    fields = [field for field in model._meta.concrete_fields if only is None or field.attname in only]
    quote = connection.ops.quote_name
    return fields, ", ".join(f"{alias}.{quote(field.column)}" for field in fields)


def row_loader(model, fields):
    """A function that makes a ``model`` instance of a row, as the ORM would load it.

    Worked out once per query (which fields convert their value, the attribute names),
    not once per row.

    Args:
        model: the model class; fields: its concrete fields, or some of them (the
            others are deferred, as with ``QuerySet.only``), in the model's order and
            the row's (as ``select_list`` returns them).
    Raises:
        ValueError: ``fields`` are not in the model's order (``Model.from_db`` takes
            a subset in that order).
    Returns:
        a function ``values -> instance``: ``values`` are the row's values for ``fields``
        as the database driver returned them; the instance is ``Model.from_db``'s, each
        value passed through its field's ``from_db_value`` (a JSON field's text parsed,
        and so on). Where ``Model.__init__`` would only store the values (``_stores_only``),
        they are stored without it, which is five times faster.
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
        if not stores_only:
            return model.from_db(connection.alias, attnames, values)
        instance = model.__new__(model)
        instance._state = state = ModelState()
        state.adding, state.db = False, connection.alias
        instance.__dict__.update(zip(attnames, values, strict=True))
        return instance
    stores_only = _stores_only(model, fields)
    return load


#: The descriptors through which ``Model.__init__`` sets a field's value on a new
#: instance by storing it in the instance's ``__dict__`` (a foreign key's id also clears
#: a cached related object, which a new instance does not have).
_STORING = (DeferredAttribute, ForeignKeyDeferredAttribute)


def _stores_only(model, fields):
    """Would ``model.from_db`` only store these fields' values and its state in a new
    instance? True unless the model has its own ``__init__`` or ``from_db``, receivers of
    ``pre_init`` or ``post_init`` (connected as models are prepared: an image field's,
    a generic relation's), or a field set through a descriptor of its own."""
    return (model.__init__ is Model.__init__ and model.from_db.__func__ is Model.from_db.__func__
            and not pre_init.has_listeners(model) and not post_init.has_listeners(model)
            and all(type(getattr(model, field.attname, None)) in _STORING for field in fields))
