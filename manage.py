#!/usr/bin/env python
"""Django's command-line utility for the siete y media back-office."""
import os
import sys


def main():
    if _settle_paths_only(sys.argv):
        # ``settle`` given only paths needs no setting, database nor app: the engine's
        # command runs without Django's start-up (tables/management/commands/settle.py).
        from game.settling import main as settle

        sys.exit(settle(sys.argv[2:]))
    # The quick start and the tools run on the local settings (DATABASE_URL, else the
    # embedded PostgreSQL; Celery eager);
    # production sets DJANGO_SETTINGS_MODULE=casino.settings.production.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


def _settle_paths_only(argv):
    """``manage.py settle PATH...`` with at least one path and no option (``-`` is a path:
    standard input); an option (``--help``, ``--settings`` …) goes through Django."""
    return (len(argv) > 2 and argv[1] == "settle"
            and not any(arg.startswith("-") and arg != "-" for arg in argv[2:]))


if __name__ == "__main__":
    main()
