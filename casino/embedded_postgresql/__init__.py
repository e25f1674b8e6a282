"""Django's PostgreSQL backend on the embedded server (``casino.localdb``), started at the
first connection: the local settings' ``ENGINE`` when ``DATABASE_URL`` names that server."""
