"""The casino's days and periods: the gaming day (it begins at ``AML_GAMING_DAY_START``
o'clock in the casino's time zone, ``TIME_ZONE``), calendar periods, and how long a
record is kept (``AML_RETENTION_YEARS``)."""

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.utils import timezone


def gaming_day(at: datetime) -> date:
    """The gaming day of an aware datetime: the casino's date (``TIME_ZONE``) of the day
    that began at ``AML_GAMING_DAY_START`` o'clock at or before ``at``."""
    local = timezone.localtime(at, timezone.get_default_timezone())
    day = local.date()
    return day - timedelta(days=1) if local.time() < time(settings.AML_GAMING_DAY_START) else day


def gaming_day_bounds(day: date) -> tuple[datetime, datetime]:
    """The aware datetimes ``[start, end)`` of gaming day ``day`` in the casino's zone."""
    zone = timezone.get_default_timezone()
    start = time(settings.AML_GAMING_DAY_START)
    return (timezone.make_aware(datetime.combine(day, start), zone),
            timezone.make_aware(datetime.combine(day + timedelta(days=1), start), zone))


def period_bounds(date_from: date, date_to: date) -> tuple[datetime, datetime]:
    """The aware datetimes ``[start, end)`` of the calendar days ``date_from`` to
    ``date_to`` inclusive, in the casino's time zone (``TIME_ZONE``).

    Raises:
        ValueError: ``date_to`` before ``date_from``.
    """
    if date_to < date_from:
        raise ValueError("the period ends before it begins")
    zone = timezone.get_default_timezone()
    start = timezone.make_aware(datetime.combine(date_from, time.min), zone)
    end = timezone.make_aware(datetime.combine(date_to + timedelta(days=1), time.min), zone)
    return start, end


def retain_until(day: date) -> date:
    """``day`` plus ``AML_RETENTION_YEARS`` years (29 February becomes the 28th): until
    when a record of that day is kept. [Ley 10/2010 art. 25: ten years]"""
    years = settings.AML_RETENTION_YEARS
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)
