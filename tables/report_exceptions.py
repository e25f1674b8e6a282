"""What the hand history needs of the auditors' stored reports (a report's exceptions, to
list the hands they name) without importing the reports app, which is above the tables:
the reports app registers how to read them (``register``, in its ``AppConfig.ready``)."""

_readers = []


def register(reader) -> None:
    """Set ``reader(*, table, report_id) -> list | None``: the exceptions of the table's
    stored report ``report_id`` (dicts with ``code`` and the hands they name), or None
    when the table has no such report."""
    _readers[:] = [reader]


def exceptions_of(*, table, report_id: int) -> list | None:
    """The exceptions of the table's report ``report_id`` (``register``'s reader), or None
    when there is no such report (or no reports app)."""
    return _readers[0](table=table, report_id=report_id) if _readers else None
