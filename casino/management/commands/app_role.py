"""``manage.py app_role``: create the app's database role (``DATABASE_URL``'s user, with
its password) if it is missing, and grant it its privileges (``casino.dbroles``),
connected as the owner (``MIGRATE_DATABASE_URL``)."""

import environ
import psycopg
from django.conf import settings
from django.core.management import BaseCommand, CommandError
from django.db import connection

from casino.dbroles import create_app_role, grant_app_role


class Command(BaseCommand):
    help = ("Create the app's database role (DATABASE_URL's user and password) if missing and grant it "
            "its privileges, as the owner (MIGRATE_DATABASE_URL).")

    def handle(self, *args, **options):
        """Exit with an error if ``MIGRATE_DATABASE_URL`` is missing or names another
        database, or if the app's role is unsafe (a superuser, or owns tables)."""
        owner_url = getattr(settings, "MIGRATE_DATABASE_URL", "")
        if not owner_url:
            raise CommandError("MIGRATE_DATABASE_URL (the owner's connection) must be set")
        owner = environ.Env.db_url_config(owner_url)
        app = connection.settings_dict
        if owner["NAME"] != app["NAME"]:
            raise CommandError("MIGRATE_DATABASE_URL and DATABASE_URL must name the same database")
        if app["USER"] == owner.get("USER"):
            raise CommandError("DATABASE_URL must connect as another role than the owner")
        params = {"dbname": owner["NAME"], "user": owner.get("USER") or None,
                  "password": owner.get("PASSWORD") or None,
                  # A Unix socket's directory is the URL's ?host= (django-environ: OPTIONS).
                  "host": owner.get("HOST") or owner.get("OPTIONS", {}).get("host") or None,
                  "port": owner.get("PORT") or None}
        with psycopg.connect(**{k: v for k, v in params.items() if v is not None}, autocommit=True) as owner_db:
            with owner_db.cursor() as cursor:
                created = create_app_role(cursor, app["USER"], app.get("PASSWORD") or None)
                try:
                    grant_app_role(cursor, app["USER"])
                except ValueError as error:
                    raise CommandError(str(error)) from error
        verb = "created and granted" if created else "granted"
        self.stdout.write(f"The app's database role {app['USER']!r}: {verb}.")
