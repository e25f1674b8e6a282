"""Spanish identity documents' numbers, checked before they are kept: a DNI is eight
digits and its check letter, a NIE is X, Y or Z, seven digits and its check letter. The
letter is ``CHECK_LETTERS[n % 23]``, ``n`` the digits (for a NIE with X, Y, Z read as 0,
1, 2 in front), as the Ministry of the Interior defines the NIF's control letter. A cashier's
typo in the number would otherwise be kept, and match no exclusion on the register
(``patrons.admission``). Other documents (passports, other countries' cards) are kept as
typed: their formats are many."""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from patrons.admission import document_key

#: The check letter of a number ``n``: ``CHECK_LETTERS[n % 23]``.
CHECK_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_DNI = re.compile(r"([0-9]{8})([A-Z])")
_NIE = re.compile(r"([XYZ])([0-9]{7})([A-Z])")


def document_number_error(document_type: str, number: str) -> ValidationError | None:
    """Why ``number`` is not a valid number of a ``document_type``, or None.

    Args:
        document_type: a ``patrons.services.DOCUMENT_TYPES`` code (only ``"dni"`` and
            ``"nie"`` are checked); number: as typed or stored, its case, spaces, points and
            dashes passed over (``patrons.admission.document_key``).
    Returns:
        a ``ValidationError`` (code ``document_number``) naming the number (``%(value)s``)
        and what it should be, for the caller to raise on the field; None when it holds (or
        is not checked).
    """
    key = document_key(number)  # as the register matches it: 12.345.678-Z is 12345678Z
    if document_type == "dni":
        match = _DNI.fullmatch(key)
        if match is None or CHECK_LETTERS[int(match[1]) % 23] != match[2]:
            return ValidationError(_("%(value)s is not a DNI number: eight digits and the letter that matches them. "
                                     "Check it on the document."), code="document_number", params={"value": number})
    elif document_type == "nie":
        match = _NIE.fullmatch(key)
        if match is None or CHECK_LETTERS[int("XYZ".index(match[1]) * 10 ** 7 + int(match[2])) % 23] != match[3]:
            return ValidationError(_("%(value)s is not a NIE number: X, Y or Z, seven digits and the letter that "
                                     "matches them. Check it on the document."), code="document_number",
                                   params={"value": number})
    return None
