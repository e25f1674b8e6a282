"""The console's entry form, without a database: what it parses, and that parsing one
entry leaves the next form as declared."""

import uuid

from tables.forms.console import EntryForm


def _post(**typed):
    data = {"action": "card", "seat": "ana", "card": "", "amount": "", "player": "", "hand": "",
            "number": "3", "version": "7", "token": uuid.uuid4().hex}
    data.update(typed)
    return data


def _declared():
    """What the declared fields say, to see that parsing changed none of them."""
    return {name: (type(field), field.required, str(field.label), type(field.widget), dict(field.widget.attrs),
                   list(getattr(field, "choices", ())))
            for name, field in EntryForm.base_fields.items()}


def test_an_entry_parses_into_its_engine_event():
    form = EntryForm(_post(action="card-down", card="11c"))
    assert form.is_valid(), form.errors
    assert form.event == {"do": "card", "seat": "ana", "card": "11C", "down": True}
    form = EntryForm(_post(action="bet", amount="12,50", player="luis"))
    assert form.is_valid(), form.errors
    assert form.event == {"do": "bet", "seat": "ana", "amount": "12.50", "player": "luis"}


def test_parsing_entries_changes_none_of_the_declared_fields():
    before = _declared()
    first, second = EntryForm(_post(card="7O")), EntryForm(_post(card="no card", action="nothing"))
    assert first.is_valid()
    assert not second.is_valid()
    assert set(second.errors) == {"action"}
    third = EntryForm(_post(card="9X"))
    assert not third.is_valid() and "card" in third.errors
    str(third["card"])  # drawn by Django, as a refused form could be
    assert _declared() == before
    assert EntryForm(_post(card="7o")).is_valid()
