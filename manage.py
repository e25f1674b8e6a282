#!/usr/bin/env python
"""Django's command-line utility for the siete y media back-office."""
import os
import sys


def main():
    # The quick start and the tools run on the local settings (DATABASE_URL, else the
    # embedded PostgreSQL; Celery eager);
    # production sets DJANGO_SETTINGS_MODULE=casino.settings.production.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
