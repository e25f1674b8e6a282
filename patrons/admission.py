"""Admission: a patron is identified and of age before he plays, and is not on the
exclusion register (Spain's RGIAJ, Ley 13/2011 art. 22 and RD 1614/2011; France's
interdits de jeux, Code de la sécurité intérieure art. R.320-1; the casino's own
self-exclusions).

Checked (``admission_check``) at every buy-in (the cage's and a table's), at a bank
deposit at the cage, and at a patron's first bet of a gaming day (``admit_for_the_day``,
from the tables' entries); a registration or an identity recorded that matches the
register is refused too (``registration_check``). A refusal is an ``AdmissionRefused``
naming the reason; nothing of the attempt is written, only the refusal
(``AdmissionRefusal``: who, when, where, why, the entry matched), after the refused
service's transaction was rolled back (``casino.errors.attempts_recorded``).

Identity: a name, a document (type and number), a nationality and a date of birth, 18
years old or more on the gaming day. A casino may seat patrons without identity
(``settings.ADMISSION_WITHOUT_IDENTITY``, default False); never a minor, nor a patron on
the register (matched on what identity there is).

Matching (``match``): the document's number upper-case without spaces, dashes or other
signs (``document_key``), exactly; or the name case-folded without accents, signs or
double spaces (``name_key``) with the same date of birth. An entry is in force from its
``valid_from`` to its ``valid_until`` inclusive on the gaming day; a file's entries are
in force while their load is its source's latest (``exclusion_load``); a self-exclusion
entered by hand (``self_exclusion_add``) while it is valid.
"""

import csv
import hashlib
import io
import unicodedata
from datetime import date, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction as db
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import formatting
from casino.periods import gaming_day
from casino.sql import xact_lock
from patrons.errors import AdmissionRefused, ExclusionLoadError
from patrons.models import (
    AdmissionRefusal,
    DayAdmission,
    ExclusionEntry,
    ExclusionLoad,
    ExclusionSource,
    Player,
    validate_date_of_birth,
)

WHERE = AdmissionRefusal.Where
REASON = AdmissionRefusal.Reason


def allows_play_without_identity() -> bool:
    """``settings.ADMISSION_WITHOUT_IDENTITY``: may a patron without identity on file buy
    in and play (default False)."""
    return bool(getattr(settings, "ADMISSION_WITHOUT_IDENTITY", False))


# ---------------------------------------------------------------------------------------
# Matching


def document_key(number) -> str:
    """A document's number as the register matches it: upper-case letters and digits
    only (``12.345.678-z`` → ``12345678Z``)."""
    return "".join(ch for ch in str(number or "").upper() if ch.isalnum())


def name_key(name) -> str:
    """A name as the register matches it: case-folded, accents stripped, every sign a
    space, single spaces (``"García-López,  Mª"`` → ``"garcia lopez ma"``)."""
    text = unicodedata.normalize("NFKD", str(name or "").casefold())
    text = "".join(ch if ch.isalnum() else " " for ch in text if not unicodedata.combining(ch))
    return " ".join(text.split())


def in_force(day: date, *, started_by: date | None = None):
    """The register's entries in force on gaming day ``day``: valid that day, each file's
    of its source's latest load, and every self-exclusion entered by hand.
    ``started_by``: the calendar date now (``timezone.localdate``), for a check at an
    instant: an entry valid from it already binds, though the gaming day (which began at
    ``AML_GAMING_DAY_START`` the day before, before that hour) is still the day before —
    a patron excluded at half past midnight is refused at once (default: ``day``)."""
    latest = ExclusionLoad.objects.filter(source=OuterRef("source")).order_by("-id").values("pk")[:1]
    return (ExclusionEntry.objects.filter(Q(load__isnull=True) | Q(load_id=Subquery(latest)),
                                          valid_from__lte=max(day, started_by or day))
            .filter(Q(valid_until__isnull=True) | Q(valid_until__gte=day)))


def match(*, document_number: str = "", name: str = "", date_of_birth: date | None = None,
          day: date | None = None, started_by: date | None = None) -> ExclusionEntry | None:
    """The register's entry in force on ``day`` (default: now: today's gaming day, and the
    entries valid from today's calendar date, ``in_force``'s ``started_by``) that this
    identity matches: by document (``document_key``), else by name and date of birth
    (``name_key``); the oldest such entry, or None. Two indexed reads at most."""
    if day is None:
        now = timezone.now()
        day, started_by = gaming_day(now), timezone.localdate(now)
    entries = in_force(day, started_by=started_by).order_by("id")
    key = document_key(document_number)
    if key:
        found = entries.filter(document_key=key).first()
        if found is not None:
            return found
    key = name_key(name)
    if key and date_of_birth is not None:
        return entries.filter(name_key=key, date_of_birth=date_of_birth).first()
    return None


def matched_by(entry: ExclusionEntry, *, document_number: str = "") -> str:
    """How an identity matched ``entry``, in the reader's language."""
    if entry.document_key and entry.document_key == document_key(document_number):
        return _("document %(number)s") % {"number": entry.document_key}
    return _("name and date of birth")


# ---------------------------------------------------------------------------------------
# The checks


def missing_identity(player: Player) -> list[str]:
    """The identity fields a player lacks, in the reader's language (empty when his
    identity is on file): name, document, nationality, date of birth."""
    missing = []
    if not player.name:
        missing.append(str(_("name")))
    if not (player.document_type and player.document_number):
        missing.append(str(_("document")))
    if not player.nationality:
        missing.append(str(_("nationality")))
    if player.date_of_birth is None:
        missing.append(str(_("date of birth")))
    return missing


def _is_minor(date_of_birth, day) -> bool:
    try:
        validate_date_of_birth(date_of_birth, today=day)
    except ValidationError as error:
        return error.code == "minor"
    return False


def _attempt(*, player, where, place, by, at, day, reason, entry=None, missing=(), identity=None):
    identity = identity or {"player_code": player.code, "name": player.name,
                            "document_number": player.document_number, "date_of_birth": player.date_of_birth}
    return {"player": player, "where": where, "place": place or "", "attempted_by": by, "at": at,
            "gaming_day": day, "reason": reason, "entry": entry, "missing": list(missing), **identity}


def _excluded(who: str, entry: ExclusionEntry, how: str, attempt: dict, field: str) -> AdmissionRefused:
    return AdmissionRefused(
        _("refused: %(player)s is on the exclusion register (%(source)s, entry #%(entry)s, matched by %(how)s): "
          "he may not be admitted to play; the refusal is recorded for the compliance officer"),
        params={"player": who, "source": entry.get_source_display(), "entry": entry.pk, "how": how},
        field=field, reason=REASON.EXCLUDED, attempt=attempt)


def admission_check(*, player: Player, where: str, by, place: str = "", at: datetime | None = None) -> None:
    """Refuse a patron who may not be admitted to play, on his record as the database
    holds it now. Writes nothing.

    Args:
        player: the Player (read again by its id); where: ``AdmissionRefusal.Where``
        (``cage_buy_in``, ``table_buy_in``, ``bank_deposit``, ``first_bet``); by: the
        staff user attempting it; place: a table's name, or ""; at: when (default now).
    Raises:
        AdmissionRefused (field ``player``), its attempt to record, naming the reason:
        ``excluded`` (an entry in force matches him: its source and number named),
        ``minor`` (under 18 on the gaming day), ``no_identity`` (the fields missing named;
        unless ``allows_play_without_identity()``).
    """
    at = at or timezone.now()
    day = gaming_day(at)
    player = Player.objects.get(pk=player.pk)
    entry = match(document_number=player.document_number, name=player.name, date_of_birth=player.date_of_birth,
                  day=day, started_by=timezone.localdate(at))
    if entry is not None:
        raise _excluded(player.code, entry, matched_by(entry, document_number=player.document_number),
                        _attempt(player=player, where=where, place=place, by=by, at=at, day=day,
                                 reason=REASON.EXCLUDED, entry=entry), "player")
    if player.date_of_birth is not None and _is_minor(player.date_of_birth, day):
        raise AdmissionRefused(
            _("refused: %(player)s is under 18 (born %(born)s): minors may not play"),
            params={"player": player.code, "born": formatting.day(player.date_of_birth)}, field="player",
            reason=REASON.MINOR, attempt=_attempt(player=player, where=where, place=place, by=by, at=at, day=day,
                                                  reason=REASON.MINOR))
    missing = missing_identity(player)
    if missing and not allows_play_without_identity():
        raise AdmissionRefused(
            _("refused: %(player)s's identity is not on file (missing: %(missing)s); record his document, "
              "nationality and date of birth before he buys in or plays"),
            params={"player": player.code, "missing": ", ".join(missing)}, field="player",
            reason=REASON.NO_IDENTITY, attempt=_attempt(player=player, where=where, place=place, by=by, at=at,
                                                        day=day, reason=REASON.NO_IDENTITY, missing=missing))


def registration_check(*, code: str, name: str, document_number: str, date_of_birth: date | None, by,
                       where: str = WHERE.REGISTRATION, player: Player | None = None) -> None:
    """Refuse to register (or record the identity of) a patron on the exclusion register.
    Writes nothing.

    Args:
        code: the player id given; name, document_number, date_of_birth: the identity
        given; by: the staff user; where: ``registration`` or ``identity``; player: the
        Player whose identity is recorded (None at a registration).
    Raises:
        AdmissionRefused (reason ``excluded``; field ``document_number`` if the document
        matched, else ``name``), its attempt to record.
    """
    at = timezone.now()
    day = gaming_day(at)
    entry = match(document_number=document_number, name=name, date_of_birth=date_of_birth, day=day,
                  started_by=timezone.localdate(at))
    if entry is None:
        return
    how = matched_by(entry, document_number=document_number)
    field = "document_number" if entry.document_key and entry.document_key == document_key(document_number) else "name"
    identity = {"player_code": code or "", "name": name or "", "document_number": document_key(document_number),
                "date_of_birth": date_of_birth}
    raise _excluded(name or code, entry, how, _attempt(player=player, where=where, place="", by=by, at=at, day=day,
                                                       reason=REASON.EXCLUDED, entry=entry, identity=identity),
                    field)


def admit_for_the_day(*, codes, by, place: str = "", at: datetime | None = None) -> list[DayAdmission]:
    """Admit the patrons ``codes`` (player ids) for the gaming day at their first bet of
    it: those not yet admitted that day are checked (``admission_check``, ``first_bet``)
    and their ``DayAdmission`` written; the others cost this one read. Call inside the
    entry's transaction: a refusal rolls it back.

    Returns:
        the DayAdmissions written (empty when every one was admitted already).
    Raises:
        AdmissionRefused: as ``admission_check``.
    """
    at = at or timezone.now()
    day = gaming_day(at)
    due = list(Player.objects.filter(code__in=list(codes)).exclude(admissions__gaming_day=day))
    for player in due:
        admission_check(player=player, where=WHERE.FIRST_BET, by=by, place=place, at=at)
    admissions = [DayAdmission(player=player, gaming_day=day, at=at, place=place or "", admitted_by=by)
                  for player in due]
    if admissions:  # two tables' first bets at once: the first one's stands
        DayAdmission.objects.bulk_create(admissions, ignore_conflicts=True)
    return admissions


def admission_refusal_record(**attempt) -> AdmissionRefusal:
    """Write a refused attempt (``AdmissionRefusal``; its fields as ``AdmissionRefused``'s
    ``attempt``). Returns it."""
    with db.atomic():
        return AdmissionRefusal.objects.create(**attempt)


# ---------------------------------------------------------------------------------------
# The register: loads and self-exclusions


def _check_role(user):
    from casino.roles import ADMIN, COMPLIANCE, has_role

    if user is None or not has_role(user, COMPLIANCE, ADMIN):
        raise PermissionError("only a compliance officer or an administrator changes the exclusion register")


#: The columns a register's file may name (header words compared after ``_header``).
COLUMNS = {
    "document": ("documento", "numero_documento", "num_documento", "n_documento", "numero_de_documento", "dni",
                 "nie", "nif", "dni_nie", "pasaporte", "document", "document_number", "numero_piece", "numero"),
    "name": ("nombre_completo", "nombre_y_apellidos", "apellidos_y_nombre", "full_name", "name", "nom_complet"),
    "first_name": ("nombre", "first_name", "prenom", "given_name"),
    "surnames": ("apellidos", "apellido1", "primer_apellido", "apellido2", "segundo_apellido", "surname",
                 "surnames", "last_name", "nom", "nom_de_naissance"),
    "date_of_birth": ("fecha_nacimiento", "fecha_de_nacimiento", "f_nacimiento", "nacimiento", "date_of_birth",
                      "birth_date", "dob", "date_naissance", "date_de_naissance"),
    "valid_from": ("fecha_alta", "fecha_inicio", "fecha_inscripcion", "desde", "valido_desde", "valid_from",
                   "date_debut"),
    "valid_until": ("fecha_baja", "fecha_fin", "hasta", "valido_hasta", "valid_until", "date_fin"),
}
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%d-%m-%Y", "%d.%m.%Y", "%Y%m%d")
#: The most line errors a refused file's message names.
ERRORS_SHOWN = 5


def _header(word) -> str:
    return name_key(word).replace(" ", "_")


def _columns(header) -> dict:
    """``{role: [column index]}`` of a file's header row. ``name``: the full name's column,
    else the first name's then the surnames' (``nombre`` alone is the full name)."""
    words = [_header(word) for word in header]

    def indexes(role):
        return [i for i, word in enumerate(words) if word in COLUMNS[role]]

    found = {role: indexes(role) for role in ("document", "date_of_birth", "valid_from", "valid_until")}
    full, firsts, surnames = indexes("name"), indexes("first_name"), indexes("surnames")
    found["name"] = full[:1] if full else (firsts + surnames if surnames else firsts[:1])
    return found


def _date(text):
    text = (text or "").strip()
    if not text:
        return None
    for pattern in DATE_FORMATS:
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    raise ValueError(text)


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("latin-1")


def _delimiter(first_line: str) -> str:
    counts = {sign: first_line.count(sign) for sign in ";,\t|"}
    return max(counts, key=counts.get) if any(counts.values()) else ","


def parse_register(content: bytes, *, today: date) -> list[dict]:
    """The entries of a register's CSV file: a header row naming its columns (``COLUMNS``:
    the document's number; the full name, or first name and surnames; the date of birth;
    optionally from and until when), then a row per patron; ``;``, ``,``, tab or ``|``
    separated; UTF-8 (else Latin-1); dates ``YYYY-MM-DD`` or ``DD/MM/YYYY``.

    Returns:
        ``[{"line", "document_number", "name", "date_of_birth", "valid_from",
        "valid_until"}]`` (dates ``date``; ``valid_from`` ``today`` when not given).
    Raises:
        ExclusionLoadError: no header naming a document or a name and date of birth, no
        row, or rows that do not read (the first ``ERRORS_SHOWN`` named by line).
    """
    text = _decode(content)
    lines = text.splitlines()
    if not lines:
        raise ExclusionLoadError(_("the file is empty"), field="file")
    rows = list(csv.reader(io.StringIO(text), delimiter=_delimiter(lines[0])))
    columns = _columns(rows[0])
    if not columns["document"] and not (columns["name"] and columns["date_of_birth"]):
        raise ExclusionLoadError(
            _("the file's first line names no document column, nor a name and a date of birth column "
              "(e.g. documento;nombre;apellidos;fecha_nacimiento)"), field="file")
    entries, errors = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue

        def cell(role, row=row):
            return " ".join(row[i].strip() for i in columns[role] if i < len(row) and row[i].strip())

        try:
            born, since, until = _date(cell("date_of_birth")), _date(cell("valid_from")), _date(cell("valid_until"))
        except ValueError as error:
            errors.append(_("line %(line)s: %(value)s is not a date (YYYY-MM-DD or DD/MM/YYYY)")
                          % {"line": line, "value": error})
            continue
        number, name = cell("document"), cell("name")
        if not document_key(number) and not (name_key(name) and born):
            errors.append(_("line %(line)s: neither a document nor a name with a date of birth") % {"line": line})
            continue
        since = since or today
        if until is not None and until < since:
            errors.append(_("line %(line)s: valid until %(until)s, before it is valid from %(since)s")
                          % {"line": line, "until": formatting.day(until), "since": formatting.day(since)})
            continue
        entries.append({"line": line, "document_number": number, "name": name, "date_of_birth": born,
                        "valid_from": since, "valid_until": until})
    if errors:
        shown = "; ".join(errors[:ERRORS_SHOWN])
        raise ExclusionLoadError(_("the file is refused, nothing was loaded: %(errors)s%(more)s"),
                                 params={"errors": shown, "more": _(" (and %(n)s more)") % {"n": len(errors) - ERRORS_SHOWN}
                                         if len(errors) > ERRORS_SHOWN else ""}, field="file")
    if not entries:
        raise ExclusionLoadError(_("the file has no entry: a register in force is never emptied by a load"),
                                 field="file")
    return entries


def exclusion_load(*, content: bytes, file_name: str, source: str, loaded_by) -> ExclusionLoad:
    """Load a regulator's register file (``parse_register``) as ``source``'s register in
    force: a new ``ExclusionLoad`` (its name, SHA-256, rows, who, when) with an entry per
    row. The earlier loads and their entries are kept as they were; from now on only this
    load's entries of ``source`` are in force (``in_force``), with every self-exclusion.

    Args:
        content: the file's bytes; file_name: its name; source: ``ExclusionSource``;
        loaded_by: a compliance officer or an administrator.
    Returns:
        the ExclusionLoad.
    Raises:
        ExclusionLoadError (field ``file``; ``source`` for an unknown source): the file
        does not read (``parse_register``), or it is the source's load in force already
        (same SHA-256). PermissionError: ``loaded_by`` holds neither role.
    """
    _check_role(loaded_by)
    if source not in ExclusionSource.values:
        raise ExclusionLoadError(_("unknown source %(source)s"), params={"source": source}, field="source")
    digest = hashlib.sha256(content).hexdigest()
    now = timezone.now()
    rows = parse_register(content, today=timezone.localdate(now))
    with db.atomic():
        # (the app's role may not lock the append-only loads' rows: an advisory lock per source)
        xact_lock("patrons_exclusionload", ExclusionSource.values.index(source))
        latest = ExclusionLoad.objects.filter(source=source).order_by("-id").first()
        if latest is not None and latest.sha256 == digest:
            raise ExclusionLoadError(_("this file is already the register in force of %(source)s (load #%(load)s "
                                       "of %(at)s): nothing was loaded"),
                                     params={"source": latest.get_source_display(), "load": latest.pk,
                                             "at": formatting.instant(latest.loaded_at)}, field="file")
        load = ExclusionLoad.objects.create(source=source, file_name=(file_name or "")[:255], sha256=digest,
                                            rows=len(rows), loaded_by=loaded_by, loaded_at=now)
        ExclusionEntry.objects.bulk_create(
            [ExclusionEntry(source=source, load=load, line=row["line"], document_number=row["document_number"][:64],
                            document_key=document_key(row["document_number"])[:64], name=row["name"][:200],
                            name_key=name_key(row["name"])[:200], date_of_birth=row["date_of_birth"],
                            valid_from=row["valid_from"], valid_until=row["valid_until"], entered_by=loaded_by,
                            entered_at=now)
             for row in rows], batch_size=2000)
        return load


def self_exclusion_add(*, entered_by, document_number: str = "", name: str = "", date_of_birth: date | None = None,
                       valid_from: date | None = None, valid_until: date | None = None,
                       note: str = "") -> ExclusionEntry:
    """Enter a patron's self-exclusion from this casino by hand (the compliance officer,
    with the patron's signed request).

    Args:
        entered_by: a compliance officer or an administrator; document_number, name,
        date_of_birth: the patron's (a document, or a name with a date of birth);
        valid_from: default today; valid_until: None for indefinitely; note: free text.
    Returns:
        the ExclusionEntry (source ``self``, no load).
    Raises:
        ExclusionLoadError naming the field: neither a document nor a name with a date
        of birth; ``valid_until`` before ``valid_from``. PermissionError: as
        ``exclusion_load``.
    """
    _check_role(entered_by)
    name, number = (name or "").strip(), (document_number or "").strip()
    if not document_key(number) and not (name_key(name) and date_of_birth):
        raise ExclusionLoadError(_("a self-exclusion needs the patron's document, or his name and date of birth"),
                                 field="document_number")
    valid_from = valid_from or timezone.localdate()
    if valid_until is not None and valid_until < valid_from:
        raise ExclusionLoadError(_("valid until %(until)s, before it is valid from %(since)s"),
                                 params={"until": formatting.day(valid_until), "since": formatting.day(valid_from)},
                                 field="valid_until")
    with db.atomic():
        return ExclusionEntry.objects.create(
            source=ExclusionSource.SELF, document_number=number[:64], document_key=document_key(number)[:64],
            name=name[:200], name_key=name_key(name)[:200], date_of_birth=date_of_birth, valid_from=valid_from,
            valid_until=valid_until, note=(note or "").strip()[:500], entered_by=entered_by, entered_at=timezone.now())
