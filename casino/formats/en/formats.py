"""Dates and times in English: one form everywhere (pages, PDFs, CSV), day first with the
month's abbreviation (never 11/28 against 28/11) and a 24-hour clock, as the casino runs:
``28 Nov 2026``, ``28 Nov 2026 05:08``; an entry's time with its seconds
(``TIME_FORMAT``). The rest (decimal mark, grouping) is Django's."""

DATE_FORMAT = SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = "j M Y H:i"
TIME_FORMAT = "H:i:s"
