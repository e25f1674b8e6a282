"""The auditor's review page: for a table, a shift, a bank tenure, a dealer or a period,
the bank's actual result against the expected with its band, the funnel chart, the pairs
and the card tests, each with its p-value and its hands as evidence. Computed on request
(``reports.detection.review``), read only. ["Pairs",
"Card tests with power"]"""

import hashlib
import json
from datetime import date, timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from casino.periods import gaming_day
from casino.roles import AUDITOR, role_required
from game.edge import Strategy, describe_strategy
from game.profiles import Profile
from reports import statistics
from reports.charts import funnel_svg
from reports.detection import MIN_HANDS, MissingTheory, Sums, Theory, review
from reports.evidence import review_line_url
from reports.forms import check_period
from reports.models import AlertKind
from reports.pooling import latest_pooled_review, pooled_review_request
from reports.selectors import review_hands
from reports.texts import (
    CARD_TESTS,
    GROUPS,
    PAIR_KINDS,
    POOLED_GROUPS,
    POOLED_WINDOWS,
    expectation_text,
    place_words,
    pooled_who,
)
from tables.models import Hand, Table

#: The longest period reviewed on a page.
MAX_DAYS = 92
#: Card tests on a page read at most this many hands' entries (the latest).
PAGE_CARD_HANDS = 3000
#: Hands listed as evidence per line (the rest counted).
EVIDENCE_SHOWN = 60
#: A review's missing theory is asked of the worker at most once in this many seconds.
THEORY_REQUEST_SECONDS = 15 * 60
#: Lines of the latest pooled review shown (its alerts first, then by q).
POOLED_SHOWN = 20


class ReviewForm(forms.Form):
    """What to review: a table and a period (days in the casino's time zone, both
    included), optionally one shift, one bank tenure or one dealer; the funnel's groups."""

    table = forms.ModelChoiceField(queryset=Table.objects.order_by("name"), label=_("Table"),
                                   empty_label=_("choose a table"))
    date_from = forms.DateField(label=_("From"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    date_to = forms.DateField(label=_("To"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    shift = forms.IntegerField(label=_("Shift"), required=False, min_value=1)
    tenure = forms.IntegerField(label=_("Bank tenure"), required=False, min_value=1)
    dealer = forms.ModelChoiceField(queryset=get_user_model().objects.filter(Q(dealt_shifts__isnull=False) | Q(reliefs_taken__isnull=False)).distinct()
                                    .order_by("username"), label=_("Dealer"), required=False,
                                    to_field_name="username", empty_label=_("every dealer"))
    funnel = forms.ChoiceField(label=_("Funnel by"), initial="tenure",
                               choices=[("tenure", _("bank tenure")), ("dealer", _("dealer")), ("shift", _("shift"))])

    def clean(self):
        return check_period(self, super().clean(), MAX_DAYS)


def _spec(data):
    """The review ``data`` chooses (``ReviewForm.cleaned_data``) as ``review_hands``'s
    arguments, plain data (a task's too)."""
    return {"table_id": data["table"].pk, "date_from": data["date_from"].isoformat(),
            "date_to": data["date_to"].isoformat(), "shift": data.get("shift"), "tenure": data.get("tenure"),
            "dealer_id": data["dealer"].pk if data.get("dealer") else None}


def _hands(data):
    return review_hands(**{**_spec(data), "date_from": data["date_from"], "date_to": data["date_to"]})


def theory_requested(data) -> None:
    """A review refused for a missing theory (``MissingTheory``): queue the task that
    simulates and stores every edge its hands need (``reports.review_theory``), once a
    quarter of an hour per review, after the request's transaction commits. The page
    never simulates; the worker does, and the same review then answers."""
    from django.core.cache import cache
    from django.db import transaction

    from reports.tasks import review_theory

    spec = _spec(data)
    key = "review-theory:" + hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
    if cache.add(key, 1, timeout=THEORY_REQUEST_SECONDS):
        transaction.on_commit(lambda: review_theory.delay(spec))


def _links(ids_lists):
    """``{hand id: (table id, number)}`` for every id in the lists (one query)."""
    wanted = {pk for ids in ids_lists for pk in ids[:EVIDENCE_SHOWN]}
    return {pk: (table, number) for pk, table, number
            in Hand.objects.filter(pk__in=wanted).values_list("pk", "table_id", "number")}


def _with_hands(test, links, data=None):
    """A review line with ``hand_links`` (its first ``EVIDENCE_SHOWN`` hands), ``hand_count``
    and, when it has more hands than it lists, ``hands_url``: the hand history filtered to
    exactly its hands (``reports.evidence.review_line_url``; None when no filter can)."""
    ids = test.get("hand_ids") or []
    shown = [links[pk] for pk in ids[:EVIDENCE_SHOWN] if pk in links]
    count = test.get("hand_total", len(ids)) if test.get("hand_ids") is not None else test.get("hands", 0)
    url = review_line_url(data, test) if data is not None and count > len(shown) else None
    return {**test, "hand_links": shown, "hand_count": count, "hands_url": url}


def rules_label(rules):
    """A rules value in words: its profile and options (``reglamento``, ``profesional, commission_rate 0.05``)."""
    if isinstance(rules, str):
        return rules
    options = ", ".join(f"{key} {value}" for key, value in rules.items() if key != "profile")
    return f"{rules.get('profile', '?')}{', ' + options if options else ''}"


def review_figures(data):
    """The review of the hands ``data`` chooses (``ReviewForm.cleaned_data``), read only:
    the page's and the API's.

    Returns:
        dict: ``tests`` (``detection.review``'s, corrected together), ``untested`` (its
        expected-against-actual lines without a p-value: too few hands), ``hands`` (how
        many, any status), ``settled`` (settled hands with bets: those every figure
        below counts), ``bets`` (theirs), ``edge`` (the theory of the first hand's
        rules and seats, None without bets), ``funnel`` (``statistics.funnel_sums`` by
        ``data["funnel"]``, None without bets).
    Raises:
        MissingTheory: an edge these hands need is not stored (nothing is simulated here).
    """
    from reports.detection import hand_card_observations

    hands = _hands(data)
    theory = Theory(compute=False)
    sums = Sums(hands, theory)
    result = review(hands, subject="page", theory=theory, large_stake=data["table"].large_bet, sums=sums,
                    card_observations=hand_card_observations(hands, limit=PAGE_CARD_HANDS))
    edge = sums.first_edge
    funnel = None
    if not sums.empty:
        funnel = statistics.funnel_sums(sums.funnel(data["funnel"]), mean=edge["mean_per_unit"],
                                        sd=edge["sd_per_unit_hand"])
    settled, bets = sums.counts()
    return {"tests": result["tests"], "untested": result["untested"], "hands": hands.count(), "settled": settled,
            "bets": bets, "edge": edge, "funnel": funnel, "expectation": review_expectation(result)}


def review_expectation(result):
    """The expectation of all the hands reviewed, as played: ``per_unit_expected`` and
    ``per_unit_band`` (the ±3σ band's half-width per unit staked: the sampling's, the
    fit's and the simulation's), ``fit`` (``detection.fit_summary``) and ``text`` (in the
    reader's language: "expected +0.113 ± 0.020 per unit staked, for seats standing at 5½
    as observed in these 3,200 hands, …"); None without settled bets."""
    whole = next((t for t in [*result["tests"], *result["untested"]]
                  if t["kind"] == "expected" and t["code"] == "all"), None)
    if whole is None:
        return None
    return {"per_unit_expected": whole.get("per_unit_expected"), "per_unit_band": whole.get("per_unit_band"),
            "fit": whole.get("fit"), "text": expectation_text(whole)}


def missing_theory_text(missing):
    """What to do when a theory is missing (``MissingTheory``), in words."""
    if getattr(missing, "strategy", None):
        return gettext("The theory of %(rules)s with %(seats)s seats, for the play observed in these hands, is not "
                       "stored yet: run manage.py edge --rules '%(json)s' --seats %(seats)s --strategy "
                       "'%(strategy)s' --store (it is being computed now: ask again in a minute or two).") % {
            "rules": rules_label(missing.rules), "seats": missing.seats, "json": json.dumps(missing.rules),
            "strategy": json.dumps(missing.strategy, sort_keys=True)}
    return gettext("The theory of %(rules)s with %(seats)s seats is not stored yet: run manage.py edge "
                   "--rules '%(json)s' --seats %(seats)s --store (it is being computed now: ask again in a "
                   "minute or two).") % {"rules": rules_label(missing.rules), "seats": missing.seats,
                                            "json": json.dumps(missing.rules)}


def _edge_in_words(edge):
    """The stored edge with its strategy described in the reader's language (the edge
    stores it in English); an edge without its rules or strategy keeps its own words."""
    if not edge:
        return edge
    try:
        profile = Profile.from_rules(edge["rules"])
        strategy = Strategy(**edge["strategy"])
    except (KeyError, TypeError, ValueError):
        return edge
    return {**edge, "strategy_text": describe_strategy(profile, strategy, gettext)}


class PooledForm(forms.Form):
    """The pooled review asked for: the last gaming day of its windows."""

    day = forms.DateField(label=_("Last gaming day"), widget=forms.DateInput(attrs={"type": "date"},
                                                                             format="%Y-%m-%d"))

    def clean_day(self):
        day = self.cleaned_data["day"]
        if day > gaming_day(timezone.now()):
            raise forms.ValidationError(_("The last gaming day cannot be after today's."), code="future")
        return day


def pooled_figures(limit=POOLED_SHOWN):
    """The latest pooled review for the page and the API: ``None`` before the first, else
    a dict: ``id``, ``day``, ``finished_at``, ``alpha``, ``hands``, ``tested`` (its tests),
    ``repeated`` (the tests it left out: their bets tested on an earlier night),
    ``alerts``, ``lines`` (its alerts, then the lowest q, at most ``limit``: each test as
    stored), ``accumulating`` (groups still under ``MIN_HANDS`` hands to date); and
    ``waiting`` (a later run asked for and not done: its id and day, or None)."""
    done, waiting = latest_pooled_review()
    waiting_json = None if waiting is None else {"id": waiting.pk, "day": waiting.day.isoformat(),
                                                 "status": waiting.status}
    if done is None:
        return {"run": None, "waiting": waiting_json}
    result = done.result or {}
    tests = result.get("tests", [])
    lines = [t for t in tests if t.get("combined_alert")]
    lines += [t for t in tests if not t.get("combined_alert")][:max(0, limit - len(lines))]
    return {"run": {"id": done.pk, "day": done.day.isoformat(), "finished_at": done.finished_at,
                    "alpha": result.get("alpha"), "hands": result.get("hands"), "tested": len(tests),
                    "repeated": result.get("repeated", 0),
                    "alerts": done.alerts, "lines": lines, "accumulating": result.get("accumulating", [])},
            "waiting": waiting_json}


def _day(text):
    """An ISO date of a stored result as a date (None for none), for the reader's format."""
    return date.fromisoformat(text) if text else None


def _pooled_context():
    """The page's pooled section: ``pooled_figures`` with each line's label and hands."""
    figures = pooled_figures()
    run = figures["run"]
    if run is not None:
        links = _links([t.get("hand_ids") or [] for t in run["lines"]])
        tables = dict(Table.objects.filter(pk__in={t["table_id"] for t in run["lines"] if t.get("table_id")})
                      .values_list("pk", "name"))
        lines = []
        for test in run["lines"]:
            if test["kind"] == "pooled":
                label, who = POOLED_GROUPS.get(test["code"], test["code"]), pooled_who(test["code"], test)
            elif test["kind"] == "cards":
                label, who = CARD_TESTS.get(test.get("test"), test.get("test")), place_words(test.get("who"))
            elif test["kind"] == "pair":
                label, who = PAIR_KINDS.get(test["code"], test["code"]), pooled_who(test["code"], test)
            elif test["kind"] == "expected":
                label, who = GROUPS.get(test["code"], test["code"]), str(test.get("group") or "")
            elif test["kind"] == "large_losses":  # its kind's label says it all; who: the player and the holder
                label, who = "", " × ".join(str(test[k]) for k in ("player", "bank") if test.get(k))
            else:
                label, who = test["code"], test.get("subject", "")
            if test["kind"] != "exception" and test.get("report_id") is not None:  # a report's review test
                label = f"{AlertKind(test['kind']).label}: {label}" if label else AlertKind(test["kind"]).label
                # Where its report was, in words: the table and the shift (its subject, "shift:12", is a key).
                place = " · ".join(str(part) for part in (
                    tables.get(test.get("table_id")),
                    gettext("shift #%(id)s") % {"id": test["shift_id"]} if test.get("shift_id") else None) if part)
                place = place or test["subject"]
                who = f"{place} · {who}" if who and who != test["subject"] else place
            lines.append({**_with_hands(test, links), "label": label, "who": who,
                          "window_label": POOLED_WINDOWS.get(test.get("window"), test.get("window") or ""),
                          "from_day": _day(test.get("from")), "to_day": _day(test.get("to"))})
        run = {**run, "lines": lines, "day": _day(run["day"])}
    yesterday = gaming_day(timezone.now()) - timedelta(days=1)
    return {"pooled": run, "pooled_waiting": figures["waiting"],
            "pooled_form": PooledForm(initial={"day": yesterday})}


@require_POST
@role_required(AUDITOR)
def pooled_request_page(request):
    """Ask for the pooled review now (POST, the page's button): queued, then back to the
    review page, which shows it once done."""
    form = PooledForm(request.POST)
    if not form.is_valid():
        today = timezone.localdate()
        context = {"form": ReviewForm(initial={"date_from": today - timedelta(days=6), "date_to": today,
                                               "funnel": "tenure"}), **_pooled_context(), "pooled_form": form}
        return render(request, "reports/review.html", context, status=400)
    run = pooled_review_request(day=form.cleaned_data["day"], requested_by=request.user)
    messages.success(request, gettext("The pooled review of the windows ending %(day)s is queued (#%(id)s): "
                                      "it shows here once computed.") % {"day": run.day.isoformat(), "id": run.pk})
    return redirect("reports:review")


@require_GET
@role_required(AUDITOR)
def review_page(request):
    """The review of the chosen hands (GET form: nothing is written)."""
    if "table" not in request.GET:
        today = timezone.localdate()
        form = ReviewForm(initial={"date_from": today - timedelta(days=6), "date_to": today, "funnel": "tenure"})
        return render(request, "reports/review.html", {"form": form, **_pooled_context()})
    form = ReviewForm(request.GET)
    if not form.is_valid():
        return render(request, "reports/review.html", {"form": form, **_pooled_context()}, status=400)
    data = form.cleaned_data
    try:
        computed = review_figures(data)
    except MissingTheory as missing:
        theory_requested(data)
        form.add_error(None, missing_theory_text(missing))
        return render(request, "reports/review.html", {"form": form, **_pooled_context()}, status=409)
    tests = computed["tests"]
    links = _links([t.get("hand_ids") or [] for t in [*tests, *computed["untested"]]])
    # Every expected-against-actual line, tested or not (under MIN_HANDS hands it has no p-value
    # but its figures are the same hands' as the summary's and the funnel's).
    expected = [_with_hands(t, links, data) for t in [*tests, *computed["untested"]] if t["kind"] == "expected"]
    expected.sort(key=lambda t: (t["code"] != "all", t["code"], str(t["group"])))
    for test in expected:
        test["label"] = GROUPS.get(test["code"], test["code"])
    pairs = [_with_hands({**t, "label": PAIR_KINDS.get(t["code"], t["code"])}, links, data)
             for t in tests if t["kind"] == "pair"]
    cards = [_with_hands({**t, "label": CARD_TESTS.get(t["test"], t["test"])}, links)
             for t in tests if t["kind"] == "cards"]
    losses = [_with_hands(t, links) for t in tests if t["kind"] == "large_losses"]
    chart = ""
    if computed["funnel"] is not None:
        prefix = {"tenure": "#", "shift": "#", "dealer": ""}[data["funnel"]]
        chart = mark_safe(funnel_svg(computed["funnel"], {point["id"]: f"{prefix}{point['id']}"
                                                          for point in computed["funnel"]["points"]}))  # escaped
    edge_shown = _edge_in_words(computed["edge"])
    return render(request, "reports/review.html", {
        "form": form, "reviewed": True, "hand_count": computed["hands"], "settled_count": computed["settled"],
        "bet_count": computed["bets"], "min_hands": MIN_HANDS,
        "expected": expected, "pairs": pairs, "cards": cards, "losses": losses, "chart": chart,
        "edge": edge_shown, "card_limit": PAGE_CARD_HANDS, "alpha": statistics.ALPHA,
        "expectation": computed["expectation"],
        "alerts": sum(1 for t in tests if t["combined_alert"]), **_pooled_context(),
    })
