"""What every desk's forms share: a service's refusal shown where the reader looks."""


def add_refusal(form, error, fields: dict | None = None) -> None:
    """Show a service's refusal on the form: on the field it names (``Refusal.field``, or
    each field of a ``ValidationError``'s ``message_dict``; ``fields`` renames a service's
    field to the form's), else above the form.

    Args:
        form: a bound Django form; error: the refusal (``casino.errors.Refusal`` or any
        ``ValidationError``).
    """
    fields = fields or {}
    if hasattr(error, "error_dict"):
        for name, messages in error.message_dict.items():
            name = fields.get(name, name)
            form.add_error(name if name in form.fields else None, messages)
        return
    name = getattr(error, "field", None)
    name = fields.get(name, name)
    form.add_error(name if name in form.fields else None, error)
