"""The headers of every answer: a Content-Security-Policy the pages live within (their
scripts and styles are the site's files: no inline <script>, <style>, style="" or
on...="" in any template), a Permissions-Policy, ``Cache-Control: no-store`` on every page
and API answer with players' data, and no server's name (gunicorn's config)."""

import re

import pytest
import requests
import yaml
from django.test import Client

from tests.conftest import ROOT
from tests.tables.conftest import mesa  # noqa: F401
from tests.test_redis_down import production_passwords, serve, static_root  # noqa: F401

INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=\"|\son[a-z]+=\"|\{% block style %\}", re.I)


def templates():
    return [path for path in ROOT.glob("**/templates/**/*.html")
            if not {".venv", "staticfiles", "var", "node_modules"} & set(path.relative_to(ROOT).parts)]


def test_no_template_has_an_inline_script_style_or_handler():
    found = templates()
    assert len(found) > 50
    inline = {str(path.relative_to(ROOT)): INLINE.findall(path.read_text()) for path in found}
    assert {path: hits for path, hits in inline.items() if hits} == {}


@pytest.mark.django_db
def test_pages_and_the_api_carry_the_policy_and_are_never_stored(mesa):  # noqa: F811
    cashier = Client()
    cashier.force_login(mesa.cashier)
    for address in ("/cage/", "/cage/players/", f"/cage/players/{mesa.players['luis'].code}/", "/"):
        response = cashier.get(address)
        assert response.status_code == 200, address
        policy = response["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy and "style-src 'self'" in policy
        assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
        assert "camera=()" in response["Permissions-Policy"] and "geolocation=()" in response["Permissions-Policy"]
        assert "no-store" in response["Cache-Control"], address
    answer = cashier.get("/api/players/")
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    swagger = cashier.get("/api/docs/swagger/")
    assert swagger.status_code == 200 and "https://cdn.jsdelivr.net" in swagger["Content-Security-Policy"]
    assert "<script>" not in swagger.content.decode()  # Swagger UI's own script is served apart


def test_gunicorn_runs_with_the_config_that_drops_its_name():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert "python:casino.gunicorn_conf" in compose["services"]["web"]["command"]
    assert '"--config", "python:casino.gunicorn_conf"' in (ROOT / "Dockerfile").read_text()


@pytest.mark.django_db(transaction=True)
def test_gunicorn_names_no_server(serve, mesa):  # noqa: F811
    from django.db import connection

    from tests.test_redis_down import database_url

    production_passwords()
    server = serve(database_url(connection.settings_dict["NAME"]))
    for address in ("/accounts/login/", "/static/casino/site.js"):
        response = requests.get(server.url + address, timeout=20)
        assert response.status_code == 200, address
        assert "Server" not in response.headers, response.headers
    page = requests.get(server.url + "/accounts/login/", timeout=20)
    assert "unsafe-inline" not in page.headers["Content-Security-Policy"] and "no-store" in page.headers["Cache-Control"]

