"""docker-compose.yml ships no secret (issue 14, "Doors"): every secret must be set
(``${VAR:?message}``), the site is HTTPS-only unless told otherwise, and the app's
services connect as the app's database role while only ``migrate`` has the owner's."""

import re

import yaml

from tests.conftest import ROOT

COMPOSE = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
SECRET = re.compile(r"SECRET|PASSWORD|KEY|TOKEN", re.I)


def services():
    return yaml.safe_load(COMPOSE)["services"]


def test_no_secret_has_a_default_and_each_must_be_set():
    variables = re.findall(r"\$\{([A-Z0-9_]+)(:?[-?])?([^}]*)\}", COMPOSE)
    secrets = {(name, operator) for name, operator, _rest in variables if SECRET.search(name)}
    assert {name for name, _operator in secrets} >= {"DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "APP_DB_PASSWORD"}
    assert all(operator == ":?" for _name, operator in secrets), secrets
    # No literal credentials either: every password in a URL is a variable.
    assert not re.search(r"://[^:/@$]+:[^$@]+@", COMPOSE)


def test_the_site_is_https_only_unless_told_otherwise():
    assert "${DJANGO_HTTPS:-true}" in COMPOSE
    for name in ("web", "worker", "beat", "migrate"):
        assert services()[name]["environment"]["DJANGO_SETTINGS_MODULE"] == "casino.settings.production"


def test_the_app_connects_as_its_role_and_only_migrate_as_the_owner():
    all_services = services()
    owner = all_services["db"]["environment"]["POSTGRES_USER"]
    for name in ("web", "worker", "beat", "migrate"):
        environment = all_services[name]["environment"]
        user = re.match(r"postgres://([^:@]+)", environment["DATABASE_URL"]).group(1)
        assert user == "casino_app" != owner
        assert ("MIGRATE_DATABASE_URL" in environment) == (name == "migrate")
    migrate = all_services["migrate"]
    assert re.match(rf"postgres://{owner}:", migrate["environment"]["MIGRATE_DATABASE_URL"])
    assert "manage.py app_role" in " ".join(migrate["command"]) and "migrate --noinput" in " ".join(migrate["command"])
