"""The pits' rotation plans in Debian's Chromium at 1024x768 and 390x844 (issue 34, item
2): the pit supervisor makes pit A's plan on its page (a refusal first, each on its field),
then changes it (a new version, the first kept); the pit's overview shows the plan, who is
due next and who relieves him. Screenshots go to ``SCREENSHOT_DIR`` when set."""

import os

import pytest

from tables import services
from tables.models import RotationPlan
from tests.browser.test_dealer_relief import PASSWORD, fits, log_in, new_page
from tests.factories import TableFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(page, name, width):
    if os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=os.path.join(os.environ["SCREENSHOT_DIR"], f"{name}-{width}.png"), full_page=True)


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["1024x768", "390x844"])
def test_the_pit_sets_a_rotation_plan_and_sees_who_is_due(chromium, live_server, mesa, size):
    width, height = size
    mesa2 = TableFactory(name="Mesa 2")
    for name in ("dealer2", "dealer3", "dealer4"):
        UserFactory(username=name, roles=["dealer"])
    services.shift_open(table=mesa2, dealer=UserFactory(username="dealer5", roles=["dealer"]),
                        opened_by=mesa.supervisor)
    mesa.supervisor.set_password(PASSWORD)
    mesa.supervisor.save()

    context, pit = new_page(chromium, live_server, width, height)
    log_in(pit, "pit1", "/tables/pit/rotation/")
    assert "Ningún pit tiene aún plan de rotación." in pit.inner_text("main")
    pit.click("main a[href='/tables/pit/rotation/new/']")
    pit.wait_for_url("**/tables/pit/rotation/new/")
    pit.fill("input[name=name]", "Pit A")
    pit.fill("input[name=minutes]", "45")
    pit.fill("input[name=dealers]", "dealer2, nadie")
    pit.click("main form button[type=submit]")
    pit.wait_for_selector("main .errorlist")
    errors = " ".join(pit.inner_text("main form").split())
    assert "Minutos: como mucho 40." in errors and "nadie no es un crupier activo" in errors, errors
    assert "Elija al menos una mesa del pit." in errors, errors
    assert fits(pit, width)
    shot(pit, "rotation-refused", width)
    assert not RotationPlan.objects.exists()

    pit.fill("input[name=minutes]", "20")
    pit.check("main form label:has-text('Mesa 1') input[name=tables]")
    pit.check("main form label:has-text('Mesa 2') input[name=tables]")
    pit.fill("input[name=dealers]", "dealer3, dealer2")
    pit.click("main form button[type=submit]")
    pit.wait_for_url("**/tables/pit/rotation/")
    text = " ".join(pit.inner_text("main").split())
    assert "El plan de rotación de Pit A es ahora la versión 1." in text, text
    assert "plan v1 · relevo cada 20 min" in text and "dealer3 → dealer2" in text, text

    pit.click("main a:has-text('Cambiar el plan de Pit A')")
    pit.wait_for_selector("p.in-force")
    assert "En vigor: versión 1" in pit.inner_text("p.in-force")
    assert pit.input_value("input[name=dealers]") == "dealer3, dealer2"
    pit.fill("input[name=minutes]", "30")
    pit.fill("input[name=dealers]", "dealer4 dealer3")
    pit.fill("input[name=note]", "dealer2 sale antes")
    pit.click("main form button[type=submit]")
    pit.wait_for_url("**/tables/pit/rotation/")
    history = [" ".join(row.split()) for row in pit.locator("table.history tbody tr").all_inner_texts()]
    assert len(history) == 2 and "dealer4 → dealer3" in history[0] and "dealer3 → dealer2" in history[1], history
    assert fits(pit, width)
    shot(pit, "rotation-plans", width)

    pit.goto("/tables/pit/")
    due = " ".join(pit.inner_text("section.pit-rotation p.due-next").split())
    # Mesa 1's shift opened first: due first, relieved by the first free dealer of the order
    assert due.startswith("Le toca después:") and "dealer4 releva a dealer1 en Mesa 1" in due, due
    assert "Pit A" in pit.inner_text("table.tables")
    assert fits(pit, width)
    shot(pit, "pit-rotation", width)
    context.close()
