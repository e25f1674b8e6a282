"""``manage.py load_exclusions FILE --source rgiaj|interdits|self --user NAME``: load a
regulator's register file (CSV) as its source's register in force
(``patrons.admission.exclusion_load``); the earlier loads are kept."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from patrons.admission import exclusion_load
from patrons.errors import ExclusionLoadError
from patrons.models import ExclusionSource


class Command(BaseCommand):
    help = "Load the exclusion register's file (CSV) of a regulator: its rows become that register's list in force."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the CSV file (header: documento;nombre;apellidos;fecha_nacimiento…)")
        parser.add_argument("--source", required=True, choices=ExclusionSource.values,
                            help="whose register: rgiaj (Spain), interdits (France), self (the casino's)")
        parser.add_argument("--user", required=True,
                            help="the compliance officer (or administrator) loading it, by user name")

    def handle(self, *args, file, source, user, **options):
        path = Path(file)
        try:
            content = path.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}") from None
        loader = get_user_model().objects.filter(username=user).first()
        if loader is None:
            raise CommandError(f"no user {user!r}")
        try:
            load = exclusion_load(content=content, file_name=path.name, source=source, loaded_by=loader)
        except ExclusionLoadError as error:
            raise CommandError(str(error)) from None
        except PermissionError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"load #{load.pk}: {load.file_name} ({load.sha256}), {load.rows} entries, "
                          f"now the register in force of {source}")
