"""Dates and times in Spanish: one form everywhere (pages, PDFs, CSV), numeric as the
casino's papers write them: ``28/11/2026``, ``28/11/2026 05:08``; an entry's time with
its seconds (``TIME_FORMAT``). The rest (decimal mark, grouping) is Django's."""

DATE_FORMAT = SHORT_DATE_FORMAT = "d/m/Y"
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = "d/m/Y H:i"
TIME_FORMAT = "H:i:s"
