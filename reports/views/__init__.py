"""The auditors' pages: reports (``reports``), the statistical review (``review``), the
alerts (``alerts``)."""
