"""The image holds every directory the application needs: the Dockerfile's COPY lines (and
the build context's .dockerignore) against what the settings name — each app of the
project, the templates' directories, the catalogues (``locale/``, compiled), the static
files — and what installing and running it needs."""

from pathlib import Path

from django.apps import apps
from django.conf import settings

from tests.conftest import ROOT
from tests.image import copies, ignored, image_paths


def _in_project(path):
    """``path`` relative to the project, or None outside it (an installed package's)."""
    path = Path(path).resolve()
    if not path.is_relative_to(ROOT) or "site-packages" in path.parts:
        return None
    return path.relative_to(ROOT).as_posix()


def needed():
    """Directories and files of the project, relative to it, that the settings name."""
    wanted = {"pyproject.toml", "README.md", "manage.py", settings.ROOT_URLCONF.split(".")[0],
              settings.WSGI_APPLICATION.split(".")[0], settings.SETTINGS_MODULE.split(".")[0]}
    for app in apps.get_app_configs():
        wanted.add(_in_project(app.path))
        for part in ("static", "templates", "locale"):
            if (Path(app.path) / part).is_dir():
                wanted.add(_in_project(Path(app.path) / part))
    for engine in settings.TEMPLATES:
        wanted.update(_in_project(directory) for directory in engine["DIRS"])
    wanted.update(_in_project(directory) for directory in settings.LOCALE_PATHS)
    wanted.update(_in_project(directory) for directory in getattr(settings, "STATICFILES_DIRS", ()))
    return sorted(path for path in wanted if path)


def test_the_image_holds_every_directory_the_settings_need():
    files = image_paths()
    wanted = needed()
    assert {"tables", "ledger", "reports", "api", "casino", "templates", "templates/jinja2", "locale",
            "tables/static"} <= set(wanted)
    missing = [path for path in wanted if path not in files and not any(file.startswith(path + "/") for file in files)]
    assert missing == []


def test_the_catalogues_are_copied_compiled():
    files = image_paths()
    for directory in settings.LOCALE_PATHS:
        compiled = Path(directory) / "es" / "LC_MESSAGES" / "django.mo"
        assert compiled.exists() and _in_project(compiled) in files


def test_the_copy_lines_are_read_and_the_build_context_leaves_out_what_it_should():
    assert ("locale", "locale") in copies() and ("manage.py", "manage.py") in copies()
    assert ignored("tests/test_image_files.py") and ignored("tables/__pycache__/models.cpython-311.pyc")
    assert not ignored("tables/models.py")
