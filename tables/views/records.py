"""The pit's import of hand records from a file (``/tables/pit/import/``): a pit
supervisor uploads a hand record (``.json``) or JSON Lines of them (``.jsonl``); each is
recorded and settled at the table it names, as ``manage.py import_hands`` does, but all or
nothing (``tables.importing.hand_import_whole``): a line that cannot be read or a record
refused is shown on the form, worded in the reader's language and naming its line, its
event and its field, and nothing of the file is written. An auditor reads the page and
posts nothing (403)."""

from collections import Counter

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tables.forms.records import HandRecordFileForm
from tables.importing import hand_import_whole
from tables.views.pit import can_change, pit_page


def refusal_words(error, line) -> str:
    """A refused record's message with where it is: its ``line`` in the file (None for a
    ``.json`` file's one record), its event (``error.event``, 0 outside the events) and
    the field it names (``error.field``) unless the message already says it."""
    message = " ".join(error.messages)
    where = []
    if line is not None:
        where.append(_("line %(line)s") % {"line": line})
    if getattr(error, "event", 0):
        where.append(_("event %(event)s") % {"event": error.event})
    field = getattr(error, "field", None)
    if field and field not in message:
        where.append(_("field %(field)s") % {"field": field})
    text = f"{', '.join(where)}: {message}" if where else message
    return _("%(refusal)s — nothing of the file was written") % {"refusal": text}


@pit_page
def hand_import(request):
    """GET: the upload form. POST (pit supervisor): the file's records imported whole, then
    back here with how many hands at which tables; refused: the form again with why."""
    form = HandRecordFileForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        if not can_change(request):
            raise PermissionDenied
        if form.is_valid():
            lines = form.cleaned_data["records"]
            try:
                hands = hand_import_whole(records=[record for _line, record in lines], imported_by=request.user)
            except ValidationError as error:
                index = getattr(error, "index", None)
                form.add_error("records", refusal_words(error, lines[index][0] if index is not None else None))
            else:
                tables = Counter(hand.table.name for hand in hands)
                messages.success(request, ngettext("%(count)s hand imported", "%(count)s hands imported", len(hands))
                                 % {"count": len(hands)} + ": " + ", ".join(
                                     f"{name} ({count})" for name, count in sorted(tables.items())))
                return redirect("tables:hand_import")
    return render(request, "tables/pit/import.html", {"form": form, "can_change": can_change(request)})


urlpatterns = [
    path("pit/import/", hand_import, name="hand_import"),
]
