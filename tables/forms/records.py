"""The pit's import of hand records from a file: the upload read into records, each with
the line it came from; a line that cannot be read is refused on the file's field, worded in
the reader's language (``tables.errors.unreadable_message``) and naming its line, before
anything is imported."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from game.recordfiles import JSON_LINES, UnreadableRecord, decode_record, malformed_json
from tables.errors import unreadable_message

#: The largest file the page takes, bytes: a night's records of a busy table are well
#: under it; a larger import is ``manage.py import_hands``'s.
MAX_BYTES = 5 * 1024 * 1024


def _refused(message):
    """The file's refusal: ``message`` and that nothing of the file was written."""
    return forms.ValidationError(gettext("%(refusal)s — nothing of the file was written") % {"refusal": message})


class HandRecordFileForm(forms.Form):
    """One file: a hand record (``.json``) or JSON Lines of records (``.jsonl``,
    ``.ndjson``). ``cleaned_data["records"]``: ``[(line, record)]`` in the file's order,
    ``line`` from 1 (None for a ``.json`` file's one record)."""

    records = forms.FileField(label=_("Hand records (.json, or .jsonl with one record per line)"))

    def clean_records(self):
        upload = self.cleaned_data["records"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(
                gettext("the file has %(size)s bytes; the page takes at most %(most)s (larger imports: "
                        "manage.py import_hands)") % {"size": upload.size, "most": MAX_BYTES})
        raw = upload.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _refused(unreadable_message(malformed_json(error))) from None
        if not upload.name.lower().endswith(JSON_LINES):
            record = decode_record(text)
            if isinstance(record, UnreadableRecord):
                raise _refused(unreadable_message(record))
            return [(None, record)]
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            record = decode_record(line)
            if isinstance(record, UnreadableRecord):
                if record.params.get("line") is not None:  # the line's own "line 1": the file's line instead
                    record.params["line"] = number
                    message = unreadable_message(record)
                else:
                    message = gettext("line %(line)s: %(message)s") % {"line": number,
                                                                     "message": unreadable_message(record)}
                raise _refused(message)
            records.append((number, record))
        if not records:
            raise forms.ValidationError(gettext("the file holds no hand record"))
        return records
