"""``manage.py migrate`` as the database's owner when ``MIGRATE_DATABASE_URL`` is set,
then the app's role (``DATABASE_URL``'s) given its privileges (``casino.dbroles``).
Without ``MIGRATE_DATABASE_URL``, Django's ``migrate`` unchanged."""

import environ
from django.conf import settings
from django.core.management import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from casino.dbroles import grant_app_role

#: The keys of a connection's settings the owner's URL replaces.
OWNER_KEYS = ("USER", "PASSWORD", "HOST", "PORT")


class Command(DjangoMigrate):
    help = (DjangoMigrate.help + " With MIGRATE_DATABASE_URL set, runs as that role (the owner) and then "
            "grants DATABASE_URL's role (the app's) its privileges.")

    def handle(self, *args, **options):
        """Django's migrate, connected as the owner if ``MIGRATE_DATABASE_URL`` is set.

        Raises ``CommandError`` if the owner's URL names another database than the app's,
        or the app's role is unsafe (a superuser, or owns tables)."""
        owner_url = getattr(settings, "MIGRATE_DATABASE_URL", "")
        if not owner_url:
            return super().handle(*args, **options)
        connection = connections[options["database"]]
        owner = environ.Env.db_url_config(owner_url)
        if owner["NAME"] != connection.settings_dict["NAME"]:
            raise CommandError(f"MIGRATE_DATABASE_URL names the database {owner['NAME']!r}, DATABASE_URL "
                               f"{connection.settings_dict['NAME']!r}: they must be the same database")
        app_role = connection.settings_dict["USER"]
        saved = {key: connection.settings_dict.get(key) for key in OWNER_KEYS}
        connection.close()
        connection.settings_dict.update({key: owner.get(key, "") for key in OWNER_KEYS})
        try:
            super().handle(*args, **options)
            if app_role and app_role != owner.get("USER"):
                with connection.cursor() as cursor:
                    try:
                        grant_app_role(cursor, app_role)
                    except ValueError as error:
                        raise CommandError(str(error)) from error
                if options["verbosity"]:
                    self.stdout.write(f"Privileges of the app's role {app_role!r} granted.")
        finally:
            connection.close()
            connection.settings_dict.update(saved)
