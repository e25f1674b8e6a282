"""The process's log: one line per record, on standard error (``LOGGING`` in production)."""

import logging


class OneLineFormatter(logging.Formatter):
    """``logging.Formatter`` writing each record on one line: the line breaks of its
    message and of its traceback (a 500's, say) written as ``\\n``, so that a log collector
    reading lines keeps a record and its traceback together."""

    def format(self, record):
        """The record formatted as ``logging.Formatter`` does, its line breaks escaped."""
        return super().format(record).replace("\r\n", "\\n").replace("\n", "\\n")
