"""The engine's errors: an illegal event, and an invalid rule profile.

Messages are English templates marked with ``gettext_noop`` (a local no-op of the same
name as Django's, so that ``makemessages`` extracts them); the Django layer translates a
template and formats it with the same parameters. The engine never imports Django.
"""


def gettext_noop(template):
    """Mark a message template for translation without translating it here."""
    return template


def show(value):
    """A value from a record or a form as a dealer reads it in a message, cut at 40 chars."""
    text = f'"{value}"' if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class EngineError(ValueError):
    """Base of the engine's errors.

    Attributes:
        rule: a short code of the rule broken ("fixed_stake", "turn", "card" …), stable
            across languages, for programs.
        template: the English message with ``{name}`` placeholders.
        params: the values of the placeholders, already formatted as text.
    """

    def __init__(self, rule, template, **params):
        self.rule = rule
        self.template = template
        self.params = params
        super().__init__(self.message)

    @property
    def message(self):
        """The English message, formatted."""
        return self.template.format(**self.params)


class InvalidRules(EngineError):
    """A rule profile or option that does not exist or has a value of the wrong type.

    [rules.md "The named profiles": an unknown profile or option, or a value of the wrong
    type, is an error, never silently ignored.]
    """


class IllegalEvent(EngineError):
    """An event (or a record) that breaks a rule; nothing of it was applied.

    Attributes:
        event: the event's number, counted from 1 in the hand; 0 for a fault outside the
            events (the record's header, or a record that ends before the hand is over).
    """

    def __init__(self, event, rule, template, **params):
        self.event = event
        super().__init__(rule, template, **params)

    def __reduce__(self):
        return (_rebuild_illegal_event, (self.event, self.rule, self.template, self.params))

    def as_dict(self):
        """``{"event": N, "message": "..."}`` as ``manage.py settle`` prints it."""
        return {"event": self.event, "message": self.message}


def _rebuild_illegal_event(event, rule, template, params):
    return IllegalEvent(event, rule, template, **params)
