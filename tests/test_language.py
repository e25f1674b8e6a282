"""Spanish by default at the table; English when the user chooses it."""

import pytest
from django.conf import settings
from django.urls import reverse


@pytest.mark.django_db
def test_spanish_by_default_whatever_the_browser_says(client):
    response = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    assert response["Content-Language"] == "es"
    assert "Iniciar sesión" in response.content.decode() or "Entrar" in response.content.decode()


@pytest.mark.django_db
def test_english_when_chosen(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/accounts/login/"}, follow=True)
    assert response.cookies.get(settings.LANGUAGE_COOKIE_NAME) or client.cookies.get(settings.LANGUAGE_COOKIE_NAME)
    response = client.get(reverse("login"))
    assert response["Content-Language"] == "en" and "Log in" in response.content.decode()
