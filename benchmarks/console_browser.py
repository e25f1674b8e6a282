"""The console as dealers use it: ``--pages`` Chromium pages (Debian's), each a dealer at
his own table playing typical hands through the real console page, by keyboard only, at
a dealer's pace, against gunicorn (the production settings) and PostgreSQL. A script that
prints figures, never a timed test.

    .venv/bin/python benchmarks/console_browser.py [--pages 4] [--hands 4] [--think 1.5]

1. A scratch database ``console_browser_<pid>`` on the PostgreSQL server of ``PGHOST`` /
   ``PGPORT`` / ``PGUSER`` (default 127.0.0.1:5432, postgres), migrated, dropped at the
   end: a table per page (``reglamento``, 5–100 €) with its dealer on shift, its bank
   drawn for and four players with chips (``console.py``'s ``prepare``).
2. The static files collected into a scratch ``DJANGO_STATIC_ROOT``, and gunicorn on
   loopback with ``casino.settings.production`` as shipped (docker-compose.yml's:
   persistent database connections, ``DATABASE_CONN_MAX_AGE`` 600 s, or
   ``--conn-max-age``, 0 for a connection per request; sessions cached in Redis at
   ``CACHE_URL``, default the broker's; ``DJANGO_HTTPS=false`` over http on loopback);
   each worker draws the console before anything is timed.
3. Each dealer logs in, types his four seats once and opens the first hand; then, for
   ``--hands`` typical hands: the deal in the order of play (a card typed whole is
   entered at once), each seat's stake (a chip key and Enter in the first hand, Enter on
   the stake of the hand before in the others), its card, P (stands); the bank's card, P;
   Enter opens the next hand with the same seats. Before each entry he waits a pause
   (exponential, ``--think`` seconds on average); he types an entry's keys 40 ms apart.
   Before typing he checks that the focus is where the entry is typed: he never clicks.

Prints the keystrokes and clicks per typical hand (from its first deal to the key that
opens the next), and the time from the key that sends an entry (its keydown's time
stamp) to the felt redrawn (the first animation frame after the console's new body is in
the page), measured in the page, p50/p95/p99, with the machine's load (it is shared).
Goals: at most 35 keystrokes and no click per typical hand; p95 at most 100 ms.
"""

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from console import PASSWORD, free_port, percentiles, prepare, start_server, stop_server  # noqa: E402  (beside this script)
from postgres import HOST, PORT, create_scratch, database_url, drop_scratch  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
#: Pause between an entry's keys (s): a quick dealer's typing.
KEY_GAP = 0.04
#: Cards the seats get (2 keys each; no hand reaches 7½ or busts), the bank's first
#: card (a figure: 2 keys, "rE") and its draw.
SEAT_CARDS = [f"{rank}{suit}" for rank in "123" for suit in "oceb"]
BANK_FIRST = [f"{rank}{suit}" for rank in "scr" for suit in "oceb"]
BANK_DRAW = [f"{rank}{suit}" for rank in "456" for suit in "oceb"]
#: In the page: each time the console's body is put in place after a key, the time from
#: that key's keydown to the next animation frame (ms) goes into window.consoleDraws, with
#: the request's (from sent to its answer read: Resource Timing); a click of a pointer (not
#: Enter on a button) counts in window.consoleClicks.
TIMING = """(() => {
  let sent = 0;
  window.consoleDraws = [];
  window.consoleClicks = 0;
  document.addEventListener("keydown", (event) => { sent = event.timeStamp; }, true);
  document.addEventListener("click", (event) => { if (event.isTrusted && event.detail) window.consoleClicks++; }, true);
  new MutationObserver((changes) => {
    if (!sent || !changes.some((c) => Array.from(c.addedNodes).some((n) => n.id === "console"))) return;
    const from = sent;
    sent = 0;
    const fetched = performance.getEntriesByType("resource").filter((e) => e.initiatorType === "fetch").pop();
    requestAnimationFrame(() => window.consoleDraws.push(
      [performance.now() - from, fetched && fetched.startTime > from ? fetched.responseEnd - fetched.startTime : NaN]));
  }).observe(document, {childList: true, subtree: true});
})();"""


class Dealer:
    """One page: a dealer at his table. Counts his keys; checks the focus."""

    def __init__(self, page, rng, think):
        self.page, self.rng, self.think = page, rng, think
        self.keys = self.entries = 0

    async def focused(self):
        return tuple(await self.page.evaluate("""() => { const e = document.activeElement;
            return [e.form ? e.form.id : null, e.name || null, e.value]; }"""))

    async def entry(self, keys, where):
        """Pause, check the focus is in ``where`` (form id, field), type ``keys`` (a list of
        key names) and wait for the console redrawn."""
        await asyncio.sleep(self.rng.expovariate(1 / self.think))
        form, name, _value = await self.focused()
        if (form, name) != where:
            raise RuntimeError(f"the focus is in {form} {name}, not in {where}: {keys} would go astray")
        drawn = await self.page.evaluate("window.consoleDraws.length")
        for i, key in enumerate(keys):
            if i:
                await asyncio.sleep(KEY_GAP)
            await self.page.keyboard.press(key)
            self.keys += 1
        # A function, not an expression: the pages' Content-Security-Policy forbids eval.
        await self.page.wait_for_function(f"() => window.consoleDraws.length > {drawn}")
        if await self.page.locator("#refusal").count():
            raise RuntimeError(f"refused: {await self.page.inner_text('#refusal')}")
        self.entries += 1

    async def typical_hand(self, first):
        """One typical hand from its deal to the Enter that opens the next."""
        cards = self.rng.sample(SEAT_CARDS, 8)
        for card in [*cards[:4], self.rng.choice(BANK_FIRST)]:
            await self.entry(list(card), ("form-deal", "card"))
        for draw in cards[4:]:
            if first:  # no stake of his before: the 10 € chip (W), then Enter
                await self.entry(["w", "Enter"], ("form-bet", "amount"))
            else:  # his stake of the hand before, ready: Enter
                await self.entry(["Enter"], ("form-bet", "amount"))
            await self.entry(list(draw), ("form-card", "card"))
            await self.entry(["p"], ("form-card", "card"))
        await self.entry(list(self.rng.choice(BANK_DRAW)), ("form-card", "card"))
        await self.entry(["p"], ("form-card", "card"))
        if await self.page.get_attribute("#console", "data-status") != "settled":
            raise RuntimeError("the bank stood and the hand is not settled")
        await self.entry(["Enter"], ("form-open", None))  # the focus on the next hand's button


async def play(base, tables, args, load):
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        results = await asyncio.gather(*(
            dealer(browser, base, table, args, args.seed * 100 + i) for i, table in enumerate(tables)))
        await browser.close()
    per_hand = [keys for hands, _draws, _clicks, _loads in results for keys in hands]
    fetches = [fetch for _hands, draws, _clicks, _loads in results for _ms, fetch in draws if fetch == fetch]
    draws = [ms for _hands, draws, _clicks, _loads in results for ms, _fetch in draws]
    clicks = sum(clicks for *_rest, clicks, _loads in results)
    loads = sum(loads for *_rest, loads in results)
    first = [hands[0] for hands, *_rest in results]
    later = [keys for hands, *_rest in results for keys in hands[1:]]
    p = percentiles([ms / 1000 for ms in draws])
    print(f"dealers         : {args.pages} Chromium pages at 1024×768, {args.hands} typical hands each, "
          f"a pause of {args.think} s on average before each entry")
    print(f"keys per hand   : {sum(per_hand) / len(per_hand):.1f} on average ({len(per_hand)} hands); the first "
          f"hand {max(first)} (a chip key before each stake), the others {max(later) if later else '–'} "
          f"(the stakes of the hand before); clicks {clicks}; page loads after the first hand opened {loads}")
    f = percentiles([ms / 1000 for ms in fetches])
    print(f"key to redrawn  : {len(draws)} entries: p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms, "
          f"p99 {p['p99']:.1f} ms, max {max(draws):.1f} ms")
    print(f"                  of which the request (sent to answer read, the server's part): p50 {f['p50']:.1f} ms, "
          f"p95 {f['p95']:.1f} ms")
    print(f"machine         : load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after "
          f"({os.cpu_count()} cores, shared)")
    keys_ok = max(per_hand) <= 35 and clicks == 0
    print(f"goal            : at most 35 keystrokes and no click per typical hand: {'met' if keys_ok else 'missed'}; "
          f"p95 at most 100 ms: {'met' if p['p95'] <= 100 else 'missed'}")


async def dealer(browser, base, table, args, seed):
    username, table_id, _bank, seats = table
    context = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="es-ES", base_url=base)
    await context.add_init_script(TIMING)
    context.set_default_timeout(120_000)  # a shared machine may be slow: the figures tell
    page = await context.new_page()
    loads = []
    page.on("load", lambda _page: loads.append(1))
    await page.goto(f"/accounts/login/?next=/tables/console/{table_id}/")
    await page.fill("input[name=username]", username)
    await page.fill("input[name=password]", PASSWORD)
    await page.press("input[name=password]", "Enter")
    await page.wait_for_selector("#form-open")
    # Every server worker draws the console once (imports, compiled templates) before
    # anything is timed.
    await asyncio.gather(*(page.request.get(f"/tables/console/{table_id}/") for _ in range(2 * args.workers)))
    await page.keyboard.type(" ".join(seats))  # the first hand's seats, once
    await page.keyboard.press("Enter")
    await page.wait_for_selector('#console[data-status="open"]')
    loads.clear()
    await page.evaluate("window.consoleDraws = []; window.consoleClicks = 0")
    me = Dealer(page, random.Random(seed), args.think)
    hands = []
    for n in range(args.hands):
        before = me.keys
        await me.typical_hand(first=n == 0)
        hands.append(me.keys - before)
    draws, clicks = await page.evaluate("[window.consoleDraws, window.consoleClicks]")
    await context.close()
    return hands, draws, clicks, len(loads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=4, help="dealers, each a Chromium page (default 4)")
    parser.add_argument("--hands", type=int, default=4, help="typical hands each dealer plays (default 4)")
    parser.add_argument("--think", type=float, default=1.5, help="mean seconds before each entry (default 1.5)")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1,
                        help="gunicorn sync workers (default 2 × cores + 1)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--port", type=int, default=0, help="the server's port (default: a free one)")
    parser.add_argument("--conn-max-age", type=int, default=600,
                        help="seconds a server worker keeps its database connection (default 600, as shipped; "
                             "0: a connection per request)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium")

    name = f"console_browser_{os.getpid()}"
    static_root = tempfile.mkdtemp(prefix="console_browser_static_")
    needs_migrate = create_scratch(name)
    redis = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = dict(os.environ, DATABASE_URL=database_url(name), DATABASE_CONN_MAX_AGE=str(args.conn_max_age),
               DJANGO_SETTINGS_MODULE="casino.settings.production", DJANGO_SECRET_KEY="bench-only-not-a-secret", CHAIN_KEY="bench-only-chain-key-not-a-secret-0000",
               DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost", CELERY_BROKER_URL=redis,
               CACHE_URL=os.environ.get("CACHE_URL", redis), DJANGO_HTTPS="false", CELERY_TASK_ALWAYS_EAGER="true",
               DJANGO_STATIC_ROOT=static_root)
    os.environ.update(env)
    server = None
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        if needs_migrate:
            call_command("migrate", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        tables = prepare(args.pages)
        connection.close()
        port = args.port or free_port()
        server, kind = start_server(port, env, args.workers, "gunicorn")
        print(f"server          : {kind} on 127.0.0.1:{port}, casino.settings.production; PostgreSQL "
              f"{HOST}:{PORT}/{name}, conn_max_age {args.conn_max_age}")
        started = time.monotonic()
        asyncio.run(play(f"http://127.0.0.1:{port}", tables, args, os.getloadavg()))
        print(f"run             : {time.monotonic() - started:.0f} s")
    finally:
        if server is not None:
            stop_server(server)
        drop_scratch(name, static_root)


if __name__ == "__main__":
    main()
