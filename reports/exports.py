"""A stored report as CSV, as PDF (reportlab) and its chart as inline SVG.

Everything is written for the reader: labels in the active language, numbers in its
format (es: ``1.991,38``), instants in the casino's time zone, p-values with two
significant digits, the rules in words (``casino.formatting``, ``tables.rules_words``).
The CSV states its separator on its first line and in its file name: in a language whose
decimal mark is a comma (es) its fields are separated by semicolons, and its amounts
carry no thousands separator, so that a spreadsheet there reads them as numbers.
"""

import io
from decimal import Decimal

from django.utils.html import escape
from django.utils.translation import gettext as _

from casino.formatting import count, csv_writer, day, instant, number, p_value, percent
from game.cards import CARD_NAME, DECKS
from reports.texts import BEGAN, BET_KINDS, ENDED, RECONCILED, RESULTS, event_text, exception_text
from tables.rules_words import deck_words, rules_words

# ---------------------------------------------------------------------------------------
# What the report's JSON holds, in reading order (whatever order jsonb kept)


def card_rows(test) -> list[tuple[str, int, int]]:
    """``[(card, dealt, in the initial deals)]`` of a stored card test, in the deck's
    order (1O, 2O … 12B), from its ``rows`` list or, in reports stored before it, from
    its ``counts`` and ``initial_counts`` (jsonb keeps object keys in its own order)."""
    if test.get("rows"):
        return [(card, int(dealt), int(first)) for card, dealt, first in test["rows"]]
    counts, initial = test.get("counts") or {}, test.get("initial_counts") or {}
    names = [CARD_NAME[code] for code in sorted(DECKS[test["deck"]])] if test.get("deck") in DECKS else list(counts)
    return [(name, int(counts.get(name, 0)), int(initial.get(name, 0))) for name in names]


def bet_kind_rows(result) -> list[tuple[str, dict]]:
    """``[(kind, figures)]`` of a shift report's kinds of bet in the order of
    ``reports.texts.BET_KINDS`` (seats, side bets, la loca)."""
    kinds = result.get("bet_kinds") or {}
    return [(kind, kinds[kind]) for kind in BET_KINDS if kind in kinds] + [
        (kind, value) for kind, value in kinds.items() if kind not in BET_KINDS]


def tenure_labels(report) -> dict:
    """``{tenure id: label}`` of a report's bank tenures, as the chart's axis shows them:
    the holder and the tenure's place in the report (``1. ana``)."""
    rows = report.result.get("tenures") or []
    return {row["id"]: f"{place}. {row['holder']}" for place, row in enumerate(rows, 1)}


# ---------------------------------------------------------------------------------------
# Sections: the same rows for the CSV and the PDF


def _summary_rows(report, amount, whole):
    result = report.result
    s = result["summary"]
    if result["kind"] == "shift":
        return [
            (_("hands"), whole(s["hands"])), (_("settled"), whole(s["settled"])), (_("voided"), whole(s["voided"])),
            (_("left open"), whole(s["open"])), (_("bets"), whole(s["bets"])),
            (_("handle (sum of stakes) €"), amount(s["handle"])),
            (_("bank's win (before commission) €"), amount(s["win"])), (_("hold %"), percent(s["hold_percent"])),
            (_("house commission €"), amount(s["commission"])), (_("bank's net takings €"), amount(s["bank_net"])),
            (_("players' net €"), amount(s["players_net"])), (_("naturals (players)"), whole(s["naturals"])),
            (_("busts (players)"), whole(s["busts"])), (_("bank naturals"), whole(s["bank_naturals"])),
            (_("bank busts"), whole(s["bank_busts"])), (_("splits"), whole(s["splits"])),
            (_("exchanges of fours"), whole(s["exchanges"])), (_("fusilados"), whole(s["fusilados"])),
            (_("muertos"), whole(s["muertos"])), (_("bets on la loca"), whole(s["loca_bets"])),
            (_("side bets"), whole(s["side_bets"])), (_("hours"), number(s["hours"], 2)),
            (_("hands per hour"), number(s["hands_per_hour"], 1) if s["hands_per_hour"] else "—"),
            (_("first hand"), whole(s["first_hand"]) if s["first_hand"] else "—"),
            (_("last hand"), whole(s["last_hand"]) if s["last_hand"] else "—"),
        ]
    return [
        (_("bank tenures"), whole(s["tenures"])), (_("holders"), whole(s["holders"])),
        (_("hands held"), whole(s["hands"])), (_("capital put in €"), amount(s["capital"])),
        (_("bank's win (before commission) €"), amount(s["win"])),
        (_("house commission €"), amount(s["commission"])), (_("net takings €"), amount(s["net_takings"])),
    ]


def _heading_rows(report):
    result = report.result
    rows = [(_("report"), report.get_kind_display()), (_("table"), result["table"]["name"]),
            (_("rules"), rules_words(result["table"]["rules"]))]
    if result["kind"] == "shift":
        shift = result["shift"]
        rows += [(_("shift"), f"#{shift['id']}"), (_("dealer"), shift["dealer"]),
                 (_("opened at"), instant(shift["opened_at"])),
                 (_("closed at"), instant(shift["closed_at"]) or _("still open"))]
        dealers = result.get("dealers") or []
        if len(dealers) > 1:  # reliefs: who dealt how long and how many hands
            rows += [(_("dealt by %(dealer)s") % {"dealer": row["dealer"] or "—"},
                      _("%(minutes)s min, %(hands)s hands") % {"minutes": row["minutes"], "hands": row["hands"]})
                     for row in dealers]
    else:
        rows += [(_("from"), day(result["period"]["from"])), (_("to"), day(result["period"]["to"]))]
    rows += [(_("computed at"), instant(result["computed_at"])), (_("exceptions"), len(result["exceptions"]))]
    if report.pk:
        rows.append((_("version"), report.version))
        if report.kind == "shift":
            rows.append((_("stored at the shift's close"), _("yes") if report.at_close else _("no")))
    seal = result.get("seal") or {}
    if seal.get("entry"):
        label = _("chain head sealed at the close") if report.at_close else _("chain head")
        rows += [(label, _("entry #%(entry)s") % {"entry": seal["entry"]}),
                 (_("its hash"), seal["hash"][:32]), ("", seal["hash"][32:])]
    return rows


def closing(row) -> tuple[str | None, str | None]:
    """``(closing balance, result)`` of a bank-rotation report's tenure row, as stored
    strings of euros: a closed tenure's balance is what it held when it closed (what it
    distributed to its syndicate; its account is then empty), its result that less the
    capital put in (and plus what voids of its hands gave its syndicate after the close,
    ``after_close``, negative when they took back); an open tenure's are its balance now
    and that less its capital.
    ``(None, None)`` when the row does not say (a closed tenure of an old report without
    a distribution)."""
    capital = Decimal(row["capital"])
    if row.get("open", row.get("closed_at") is None):
        balance = Decimal(row["balance"])
    elif row.get("distributed") is not None:
        balance = Decimal(row["distributed"])
    else:
        return None, None
    return str(balance), str(balance + Decimal(row.get("after_close") or "0") - capital)


def tenure_life(row) -> dict:
    """One tenure's life in a bank-rotation report's row, as stored strings of euros:
    ``deposited`` (capital put in, from chips or at the cage), ``rebuilt``, ``withdrawn``,
    ``paid_back`` (its distribution, or its balance now if still open), ``result``
    (withdrawn + paid back − deposited − rebuilt: what the syndicate made) and
    ``reconciled`` (the result equals its takings in the ledger plus a sale's price; None
    when the row does not say). A row of an older stored report, without these, is read
    with ``closing``: its result is then its closing balance less its capital."""
    if "paid_back" in row:
        return {"deposited": row["deposits"], "rebuilt": row["rebuilds"], "withdrawn": row["withdrawals"],
                "paid_back": row["paid_back"], "result": row["result"], "reconciled": row.get("reconciled"),
                "awaiting": row.get("awaiting") or "0.00"}
    balance, outcome = closing(row)
    return {"deposited": row["capital"], "rebuilt": row.get("rebuilds") or "0.00",
            "withdrawn": row.get("withdrawals") or "0.00", "paid_back": balance, "result": outcome,
            "reconciled": None, "awaiting": "0.00"}


def sections(report, grouping=True):
    """``[(title, header, rows)]`` of a stored report, in reading order, every cell text
    for the reader (see the module's docstring); ``grouping=False`` writes numbers
    without thousands separators (the CSV)."""
    def amount(value):
        return number(value, 2, grouping)

    def whole(value):
        return count(value, grouping) if value is not None and value != "" else ""

    result = report.result
    out = [(_("Report"), None, _heading_rows(report)),
           (_("Summary"), None, _summary_rows(report, amount, whole))]
    exceptions = [(exception_text(item),) for item in result["exceptions"]]
    out.append((_("Exceptions"), (_("exception"),), exceptions or [(_("no exception"),)]))
    if result["kind"] == "shift" and result.get("dealers"):
        still = _("dealing now")
        out.append((_("Dealers"),
                    (_("dealer"), _("at the table"), _("minutes"), _("hands"), _("settled / voided / left open"),
                     _("handle €"), _("bank's win (before commission) €")),
                    [(row["dealer"] or "—",
                      "; ".join(f"{instant(spell['from'])} – {instant(spell['to']) if spell.get('to') else still}"
                                for spell in row.get("spells") or []) or "—",
                      whole(row["minutes"]), whole(row["hands"]),
                      f"{whole(row['settled'])} / {whole(row['voided'])} / {whole(row['open'])}",
                      amount(row["handle"]), amount(row["win"]))
                     for row in result["dealers"]]))
    if result["kind"] == "shift" and result.get("house"):
        house = result["house"]
        out += [
            (_("House figures"), None,
             [(_("house commission posted €"), amount(house["commission"]["posted"])),
              (_("house commission recomputed from the rate €"), amount(house["commission"]["recomputed"])),
              (_("hands whose commission differs"), whole(house["commission"]["differ"])),
              (_("house hold % (commission / handle)"),
               amount(house["house_hold_percent"]) if house["house_hold_percent"] else "—")]),
            (_("The bank's float per tenure"),
             (_("tenure"), _("holder"), _("float at the shift's open €"), _("float at the shift's close €"),
              _("sale price received €")),
             [(f"#{row['id']}", row["holder"], amount(row["float_open"]), amount(row["float_close"]),
               amount(row["sale_price"]) if row["sale_price"] else "—")
              for row in house["tenures"]]),
        ]
    if result["kind"] == "shift":
        out += [
            (_("Payouts by multiplier"),
             (_("multiplier"), _("bets paid"), _("their stakes €"), _("paid €"), _("bets collected"),
              _("their stakes €"), _("collected €")),
             [(f"{row['multiplier']}×", whole(row["paid_count"]), amount(row["paid_stake"]), amount(row["paid"]),
               whole(row["collected_count"]), amount(row["collected_stake"]), amount(row["collected"]))
              for row in result["payouts"]]),
            (_("Results"), (_("result"), _("bets"), _("stakes €"), _("players' net €")),
             [(str(RESULTS.get(row["result"], row["result"])), whole(row["count"]), amount(row["stake"]),
               amount(row["net"])) for row in result["results"]]),
            (_("Kinds of bet"), (_("kind"), _("bets"), _("stakes €"), _("players' net €")),
             [(str(BET_KINDS.get(kind, kind)), whole(v["count"]), amount(v["stake"]), amount(v["net"]))
              for kind, v in bet_kind_rows(result)]),
            (_("The bank's takings per tenure"),
             (_("tenure"), _("holder"), _("began"), _("hands"), _("first"), _("last"), _("win €"),
              _("commission €"), _("net €"), _("ledger €")),
             [(f"#{row['id']}", row["holder"], str(BEGAN.get(row["began"], row["began"])), whole(row["hands"]),
               whole(row["first_hand"]), whole(row["last_hand"]), amount(row["win"]), amount(row["commission"]),
               amount(row["bank_net"]), amount(row.get("ledger", ""))) for row in result["tenures"]]),
            (_("Each player's result"),
             (_("player"), _("bets"), _("handle €"), _("won"), _("lost"), _("naturals"), _("busts"), _("net €"),
              _("ledger €")),
             [(row["player"], whole(row["bets"]), amount(row["handle"]), whole(row["won"]), whole(row["lost"]),
               whole(row["naturals"]), whole(row["busts"]), amount(row["net"]), amount(row.get("ledger", "")))
              for row in result["players"]]),
            (_("Reconciliation with the ledger"), (_("what"), _("report €"), _("ledger €"), _("difference €")),
             [(str(RECONCILED.get(row["what"], row["what"])), amount(row["report"]), amount(row["ledger"]),
               amount(row["difference"])) for row in result["reconciliation"]["lines"]]),
            (_("Voided hands"), (_("hand"), _("voided at"), _("by"), _("reason"), _("reversed")),
             [(f"#{row['number']}", instant(row["voided_at"]), row["voided_by"] or "—", row["reason"],
               _("yes") if row["reversal"] else (_("no") if row["posted"] else _("not posted")))
              for row in result["voids"]]),
            (_("Undone entries"), (_("hand"), _("entry"), _("undone"), _("reason"), _("by"), _("at")),
             [(f"#{row['hand']}", whole(row["sequence"]), event_text(row["undone"]), row["reason"],
               row["entered_by"] or "—", instant(row["entered_at"])) for row in result["undos"]]),
        ]
        for test in result["cards"]:
            out.append((_("Dealt cards, %(deck)s deck") % {"deck": deck_words(test["deck"])},
                        (_("card"), _("dealt"), _("in the initial deal")),
                        [(card, whole(n), whole(first)) for card, n, first in card_rows(test)]
                        + [(_("cards of the initial deals"), "", whole(test["initial"])),
                           (_("expected per card"), "", amount(test["expected"])),
                           (_("chi-square"), "", number(test["chi_square"], 2) if test["chi_square"] is not None
                            else "—"),
                           (_("degrees of freedom"), "", whole(test["df"])),
                           (_("p-value"), "", p_value(test["p_value"]))]))
        out.append((_("The bank's running balance in the shift"),
                    (_("hand"), _("net takings since the shift opened €")),
                    [(whole(hand), amount(total)) for hand, total in result["chart"]["points"]]))
    else:
        out.append((_("The chain of holders"), (_("tenure"), _("holder"), _("began"), _("ended")),
                    [(f"#{row['tenure']}", row["holder"], str(BEGAN.get(row["began"], row["began"])),
                      str(ENDED.get(row["ended"], row["ended"] or _("open")))) for row in result["chain"]]))
        tenure_rows = []
        for row in result["tenures"]:
            tenure_rows.append((
                f"#{row['id']}", row["holder"], instant(row["opened_at"]), instant(row["closed_at"]) or "—",
                str(BEGAN.get(row["began"], row["began"])), amount(row["price"]) if row["price"] else "",
                row["seller"] or "", str(ENDED.get(row["ended"], row["ended"] or "—")), whole(row["hands"]),
                amount(row["capital"]), amount(row["win"]), amount(row["commission"]), amount(row["net_takings"]),
                amount(row["ledger_takings"])))
        out.append((_("Bank tenures"),
                    (_("tenure"), _("holder"), _("opened at"), _("closed at"), _("began"), _("price €"),
                     _("seller"), _("ended"), _("hands"), _("capital €"), _("win €"), _("commission €"),
                     _("net takings €"), _("ledger €")),
                    tenure_rows))

        def optional(value):
            return amount(value) if value not in (None, "") else "—"

        life_rows = []
        for row in result["tenures"]:
            life = tenure_life(row)
            life_rows.append((f"#{row['id']}", row["holder"], optional(life["deposited"]),
                              optional(life["awaiting"]) if Decimal(life["awaiting"]) else "",
                              optional(life["rebuilt"]), optional(life["withdrawn"]),
                              optional(life["paid_back"]) + (" " + _("(if closed now)") if row["open"] else ""),
                              optional(life["result"]),
                              {True: _("yes"), False: _("no")}.get(life["reconciled"], "—")))
        out.append((_("The bank's life and its result"),
                    (_("tenure"), _("holder"), _("capital deposited €"), _("deposit awaited €"), _("rebuilt €"),
                     _("withdrawn €"), _("paid back at the end €"), _("result €"), _("reconciled with the ledger")),
                    life_rows))
        out.append((_("What each share received"),
                    (_("tenure"), _("player"), _("percent"), _("capital paid in €"), _("received €")),
                    [(f"#{row['id']}", share["player"], percent(share["percent"]), amount(share["capital"]),
                      amount(share["received"]) + ("" if not row["open"] else " " + _("(if closed now)")))
                     for row in result["tenures"] for share in row["shares"]]))
        labels = tenure_labels(report)
        out.append((_("Net takings, tenure after tenure"), (_("tenure"), _("net takings, running total €")),
                    [(labels.get(tenure, f"#{tenure}"), amount(total)) for tenure, total in result["chart"]["points"]]))
    return out


def report_csv(report) -> str:
    """The stored report as CSV text for the reader's language: a first line naming the
    separator and the decimal mark, then one block per section (a title line, a header,
    the rows), blocks separated by an empty line."""
    buffer = io.StringIO()
    writer, description = csv_writer(buffer)
    writer.writerow([f"# {description}"])
    writer.writerow([])
    for title, header, rows in sections(report, grouping=False):
        writer.writerow([f"# {title}"])
        if header:
            writer.writerow(header)
        for row in rows:
            writer.writerow(["" if value is None else value for value in row])
        writer.writerow([])
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------
# The chart


def chart_series(report):
    """``[(x, Decimal euros)]`` of the report's chart (hand number or tenure id)."""
    return [(int(x), Decimal(y)) for x, y in report.result["chart"]["points"]]


def chart_title(report) -> str:
    """What the report's chart shows, in words: the bank's running balance in the shift,
    or the net takings tenure after tenure (a bank-rotation report spans many shifts)."""
    if report.result["chart"]["unit"] == "hand":
        return _("The bank's running balance in the shift (net takings, €)")
    return _("Net takings, tenure after tenure (running total, €)")


def _x_labels(report, points):
    """``[(position, label)]`` of the chart's x axis: whole hand numbers (at most about
    eight, evenly spaced), or each tenure's label (at most about eight)."""
    n = len(points)
    if report.result["chart"]["unit"] == "hand":
        first, last = points[0][0], points[-1][0]
        step = max(1, -(-(last - first) // 7))
        ticks = list(range(first, last + 1, step))
        if ticks[-1] != last:
            ticks.append(last)
        return [(x, count(x)) for x in ticks]
    labels = tenure_labels(report)
    step = max(1, -(-n // 8))
    positions = list(range(0, n, step))
    if positions[-1] != n - 1:
        positions.append(n - 1)
    return [(i, labels.get(points[i][0], f"#{points[i][0]}")) for i in positions]


def chart_svg(report, width=720, height=230) -> str:
    """The report's chart as an inline SVG line: labels in the reader's language and
    number format; the x axis by hand number or by tenure (holder), never by id."""
    points = chart_series(report)
    if not points:
        return ""
    by_hand = report.result["chart"]["unit"] == "hand"
    pad_left, pad, bottom = 78, 10, 30
    values = [y for _x, y in points] + [Decimal(0)]
    low, high = min(values), max(values)
    span = (high - low) or Decimal(1)
    n = len(points)
    first, last = points[0][0], points[-1][0]

    def px(position):
        if by_hand:
            return pad_left + (width - pad_left - pad) * ((position - first) / (last - first) if last > first else 0.5)
        return pad_left + (width - pad_left - pad) * (position / (n - 1) if n > 1 else 0.5)

    def py(y):
        return pad + float((high - y) / span) * (height - pad - bottom)

    line = " ".join(f"{px(x if by_hand else i):.1f},{py(y):.1f}" for i, (x, y) in enumerate(points))
    zero = py(Decimal(0))
    label = escape(chart_title(report))
    unit = escape(_("hand") if by_hand else _("tenure"))
    ticks = []
    labels = _x_labels(report, points)
    for place, (position, text) in enumerate(labels):
        x = px(position)
        anchor = "start" if place == 0 and len(labels) > 1 else "end" if place == len(labels) - 1 else "middle"
        ticks.append(f'<line x1="{x:.1f}" y1="{height - bottom:.1f}" x2="{x:.1f}" y2="{height - bottom + 4:.1f}" '
                     f'stroke="#999"/><text x="{x:.1f}" y="{height - bottom + 15:.1f}" text-anchor="{anchor}" '
                     f'font-size="11">{escape(text)}</text>')
    # the zero line's label, unless it is the top or the bottom one already
    zero_label = (f'<text x="{pad_left - 6}" y="{zero + 4:.1f}" text-anchor="end" font-size="11">0</text>'
                  if low < 0 < high else "")
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{label}"><title>{label}</title>'
        f'<line x1="{pad_left}" y1="{zero:.1f}" x2="{width - pad}" y2="{zero:.1f}" stroke="#999" '
        f'stroke-dasharray="4 3"/>'
        f'<polyline fill="none" stroke="#0b6e4f" stroke-width="2" points="{line}"/>'
        f'<text x="{pad_left - 6}" y="{pad + 4}" text-anchor="end" font-size="11">'
        f'{escape(number(high, 2))} €</text>'
        f'<text x="{pad_left - 6}" y="{height - bottom}" text-anchor="end" font-size="11">'
        f'{escape(number(low, 2))} €</text>'
        + zero_label + "".join(ticks)
        + f'<text x="{width - pad}" y="{height - 2}" text-anchor="end" font-size="10" fill="#666">{unit}</text>'
        f"</svg>")


def _chart_drawing(report, width=480, height=190):
    """The chart for the PDF: a reportlab line plot whose axes are labelled like the
    page's (whole hand numbers or tenure labels on x, euros in the reader's format on y)."""
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib import colors

    points = chart_series(report)
    by_hand = report.result["chart"]["unit"] == "hand"
    drawing = Drawing(width, height)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 60, 30, width - 80, height - 45
    xs = [x for x, _y in points] if by_hand else list(range(len(points)))
    # drawing coordinates only; the figures stay Decimal
    plot.data = [[(x, float(y)) for x, (_id, y) in zip(xs, points, strict=True)]]
    plot.lines[0].strokeColor = colors.HexColor("#0b6e4f")
    plot.lines[0].strokeWidth = 1.5
    ticks = _x_labels(report, points)
    names = dict(ticks)
    plot.xValueAxis.valueSteps = [position for position, _text in ticks]
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = (xs[0], xs[-1]) if len(xs) > 1 else (xs[0] - 1, xs[0] + 1)
    plot.xValueAxis.labelTextFormat = lambda value: names.get(int(round(value)), "")
    plot.yValueAxis.valueMin = min(0.0, *(float(y) for _x, y in points))  # the zero line in view, as on the page
    plot.yValueAxis.valueMax = max(0.0, *(float(y) for _x, y in points))
    plot.yValueAxis.labelTextFormat = lambda value: number(Decimal(str(value)), 0 if abs(value) >= 100 else 2)
    plot.xValueAxis.labels.fontSize = 7
    plot.yValueAxis.labels.fontSize = 7
    drawing.add(plot)
    return drawing


# ---------------------------------------------------------------------------------------
# PDF


def report_pdf(report, on_flowable=None) -> bytes:
    """The stored report as a PDF (A4 landscape; reportlab platypus), with its chart
    drawn by reportlab. A heading never ends a page: it keeps with what follows it
    (``keepWithNext``, and a page break when less than a few lines are left). Returns
    the file's bytes (``%PDF``…). ``on_flowable(page number, flowable)``, if given, is
    called after each flowable is drawn (to check the layout)."""
    from xml.sax.saxutils import escape

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import (
        CondPageBreak,
        LongTable,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        TableStyle,
    )
    from reportlab.platypus import Table as PdfTable

    buffer = io.BytesIO()
    title = f"{report.get_kind_display()} · {report.result['table']['name']}"
    document = SimpleDocTemplate(buffer, pagesize=landscape(A4), leftMargin=1.5 * cm, rightMargin=1.5 * cm,
                                 topMargin=1.5 * cm, bottomMargin=1.5 * cm, title=title,
                                 author=_("Siete y media back-office"))
    styles = getSampleStyleSheet()
    heading = styles["Heading2"].clone("heading", keepWithNext=1)
    subheading = styles["Heading3"].clone("subheading", keepWithNext=1)
    small = styles["BodyText"].clone("small", fontSize=8, leading=10)
    story = [Paragraph(escape(title), styles["Title"])]
    grid = TableStyle([("FONTSIZE", (0, 0), (-1, -1), 8), ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                       ("VALIGN", (0, 0), (-1, -1), "TOP")])
    for place, (title_text, header, rows) in enumerate(sections(report)):
        story.append(CondPageBreak(3.5 * cm))
        story.append(Paragraph(escape(title_text), heading))
        if not rows:
            story.append(Paragraph(escape(_("none")), small))
            continue
        data = [[Paragraph(escape(str(cell)), small) for cell in header]] if header else []
        data += [[Paragraph(escape("" if cell is None else str(cell)), small) for cell in row] for row in rows]
        table = LongTable(data, repeatRows=1 if header else 0) if len(data) > 40 else PdfTable(data)
        style = TableStyle(grid.getCommands())
        if header:
            style.add("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8f1ed"))
        table.setStyle(style)
        story.append(table)
        if place == 1 and report.result["chart"]["points"]:
            story.append(Spacer(1, 0.4 * cm))
            story.append(CondPageBreak(7.5 * cm))
            story.append(Paragraph(escape(chart_title(report)), subheading))
            story.append(_chart_drawing(report))
        story.append(Spacer(1, 0.3 * cm))
    if on_flowable is not None:
        document.afterFlowable = lambda flowable: on_flowable(document.page, flowable)
    document.build(story)
    return buffer.getvalue()
