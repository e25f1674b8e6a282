"""Numbers, amounts, instants and p-values as the reader reads them: in his language's
format (es: ``1.234,56``, en: ``1,234.56``) and in the casino's time zone (``TIME_ZONE``),
the same in pages, charts, CSV and PDF.

Stored data keeps machine forms (amounts as ``"1234.56"``, instants ISO 8601 in UTC);
these functions are applied only when something is shown. Each reads the active language
(``django.utils.translation``) and Django's locale formats; none of them raises on a value
it cannot read: it returns it unchanged (as text), so a report never fails to display.
"""

import csv
import io
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.utils import formats, timezone
from django.utils.translation import gettext as _

#: A p-value below this is written ``< 0,001``: more digits say nothing to a reader.
P_FLOOR = 0.001


def _decimal(value):
    if isinstance(value, Decimal):
        return value
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def number(value, places=2, grouping=True, missing="") -> str:
    """``value`` (Decimal, int, float or its text, e.g. a report's ``"1991.38"``) with
    ``places`` decimals in the active language: es ``1 991,38`` (grouping, a no-break space, as Django's
    ``floatformat:"2g"``), ``1991,38`` without grouping (for CSV, which spreadsheets read
    as a number); rounded half up to ``places``. ``None`` or ``""`` gives ``missing`` (``""`` unless told, e.g. ``"—"``
    in a table of figures); text that is not a number is returned as it is."""
    amount = _decimal(value)
    if amount is None:
        return missing if value is None or value == "" else str(value)
    # Rounded half up here: Django's number_format cuts the digits beyond ``places`` (0.1307
    # to 3 places read 0,130; a hold of 12.345 % read 12,34).
    amount = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP) if amount.is_finite() else amount
    return formats.number_format(amount, places, use_l10n=True, force_grouping=grouping)


def count(value, grouping=True) -> str:
    """A whole number in the active language (es ``12.345``)."""
    return number(value, 0, grouping)


def money(value, grouping=True, places=2, joined=False) -> str:
    """An amount in euros with the euro sign: es ``1.991,38 €``. ``places``: 2, or None for
    none when it is whole (a note's or a coin's value: ``500 €``, ``0,50 €``); ``joined``:
    a no-break space before ``€``, where a line must not break between them (the felt)."""
    amount = _decimal(value)
    if places is None and amount is not None:
        places = 0 if amount == amount.to_integral() else 2
    text = number(value, 2 if places is None else places, grouping)
    space = "\u00a0" if joined else " "
    return f"{text}{space}€" if text and amount is not None else text


def instant(value, fmt="DATETIME_FORMAT"):
    """An instant (aware ``datetime`` or ISO 8601 text, as stored in a report) in the
    casino's time zone, in the active language's ``fmt`` (``DATETIME_FORMAT``,
    ``SHORT_DATETIME_FORMAT``…). ``None``/``""`` gives ``""``; other text is returned as
    it is."""
    if value is None or value == "":
        return ""
    moment = value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
    if not isinstance(moment, datetime):
        return str(value)
    if timezone.is_aware(moment):
        moment = timezone.localtime(moment)
    return formats.date_format(moment, fmt)


def day(value, fmt="DATE_FORMAT"):
    """A calendar day (``date`` or ``"2026-11-01"``) in the active language's ``fmt``."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value)
        except ValueError:
            return value
    return formats.date_format(value, fmt)


def p_value(value) -> str:
    """A p-value as a reader takes it in: two significant digits in the active language
    (``0,97``, ``0,012``), ``< 0,001`` below ``P_FLOOR``; ``—`` when there is none."""
    if value is None or value == "":
        return "—"
    try:
        p = float(value)
    except (TypeError, ValueError):
        return str(value)
    if p < P_FLOOR:
        return f"< {number(P_FLOOR, 3)}"
    places = 2
    while places < 6 and p < 10 ** (1 - places):
        places += 1
    return number(round(p, places), places)


def significant(value, digits=3) -> str:
    """A statistic or a probability with ``digits`` significant digits in the reader's
    format (``0,0123``, ``4,1e-05``: an alert's p and q keep their size, however small);
    ``—`` for none."""
    if value is None or value == "":
        return "—"
    try:
        text = f"{float(value):.{int(digits)}g}"
    except (TypeError, ValueError):
        return str(value)
    return text.replace(".", formats.get_format("DECIMAL_SEPARATOR"))


def percent(value, places=2) -> str:
    """A percentage (``"9.47"``) as ``9,47 %``; ``—`` when there is none."""
    if value is None or value == "":
        return "—"
    return f"{number(value, places)} %"


def csv_dialect():
    """``(delimiter, description)`` of the CSV in the active language: where the decimal
    mark is a comma (es) fields are separated by semicolons, as spreadsheets there expect;
    else by commas. The description names both, for the file's first line (in words,
    without the separator itself, so that the line is one plain field)."""
    if formats.get_format("DECIMAL_SEPARATOR") == ",":
        return ";", _("Fields separated by semicolons — decimal comma — times in the casino's time zone")
    return ",", _("Fields separated by commas — decimal point — times in the casino's time zone")


def csv_writer(buffer):
    """A ``csv.writer`` on ``buffer`` with the active language's delimiter; returns
    ``(writer, description)`` (see ``csv_dialect``). Every CSV of the back-office goes
    through it (``csv_text``, ``csv_name``): the first line is ``# `` and the description,
    the headers are in the reader's language, amounts ``number(value, 2, False)`` (no
    grouping: a spreadsheet reads it as a number), instants ``csv_instant``."""
    delimiter, description = csv_dialect()
    return csv.writer(buffer, delimiter=delimiter), description


def csv_text(blocks) -> str:
    """A CSV file's text in the reader's convention: its first line names the separator
    and the decimal mark (``csv_dialect``), then each block (a list of rows: a title line
    ``# …`` or a header then rows, as the caller makes them) after an empty line.

    Args:
        blocks: iterable of lists of rows (each row a list of cells, already formatted:
            ``csv_amount``, ``csv_instant``…; None is written as an empty cell).
    Returns:
        str.
    """
    buffer = io.StringIO()
    writer, description = csv_writer(buffer)
    writer.writerow([f"# {description}"])
    for block in blocks:
        writer.writerow([])
        writer.writerows(["" if cell is None else cell for cell in row] for row in block)
    return buffer.getvalue()


def csv_name(stem: str) -> str:
    """A CSV file's name: ``stem`` and the separator it uses (``mesa-1-hands-semicolon.csv``),
    so that a reader who opens it knows before he looks."""
    return f"{stem}-{'semicolon' if csv_dialect()[0] == ';' else 'comma'}.csv"


def csv_amount(value) -> str:
    """An amount in a CSV cell: two places, the reader's decimal mark, no grouping and no
    euro sign (es ``1991,38``); ``""`` for None."""
    return number(value, 2, False)


def csv_instant(value) -> str:
    """An instant in a CSV cell: the casino's time zone, the active language's
    ``SHORT_DATETIME_FORMAT`` (es ``28/11/2026 05:08``)."""
    return instant(value, "SHORT_DATETIME_FORMAT")
