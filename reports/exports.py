"""A stored report as CSV, as PDF (reportlab) and its chart as inline SVG.

Labels are in the active language; amounts stay as stored (euros with two places and a
decimal point, so that a spreadsheet reads them as numbers).
"""

import csv
import io
from decimal import Decimal

from django.utils.html import escape
from django.utils.translation import gettext as _

from reports.texts import BEGAN, BET_KINDS, ENDED, RECONCILED, RESULTS, event_text, exception_text

# ---------------------------------------------------------------------------------------
# Sections: the same rows for the CSV and the PDF


def _summary_rows(report):
    result = report.result
    s = result["summary"]
    if result["kind"] == "shift":
        return [
            (_("hands"), s["hands"]), (_("settled"), s["settled"]), (_("voided"), s["voided"]),
            (_("left open"), s["open"]), (_("bets"), s["bets"]), (_("handle (sum of stakes) €"), s["handle"]),
            (_("bank's win (before commission) €"), s["win"]), (_("hold %"), s["hold_percent"] or "—"),
            (_("house commission €"), s["commission"]), (_("bank's net takings €"), s["bank_net"]),
            (_("players' net €"), s["players_net"]), (_("naturals (players)"), s["naturals"]),
            (_("busts (players)"), s["busts"]), (_("bank naturals"), s["bank_naturals"]),
            (_("bank busts"), s["bank_busts"]), (_("splits"), s["splits"]), (_("exchanges of fours"), s["exchanges"]),
            (_("fusilados"), s["fusilados"]), (_("muertos"), s["muertos"]), (_("bets on la loca"), s["loca_bets"]),
            (_("side bets"), s["side_bets"]), (_("hours"), s["hours"]),
            (_("hands per hour"), s["hands_per_hour"] or "—"),
            (_("first hand"), s["first_hand"] or "—"), (_("last hand"), s["last_hand"] or "—"),
        ]
    return [
        (_("bank tenures"), s["tenures"]), (_("holders"), s["holders"]), (_("hands held"), s["hands"]),
        (_("capital put in €"), s["capital"]), (_("bank's win (before commission) €"), s["win"]),
        (_("house commission €"), s["commission"]), (_("net takings €"), s["net_takings"]),
    ]


def _when(value, human):
    """An ISO 8601 instant as stored (CSV) or in the casino's time zone and the reader's
    language (PDF)."""
    if not human or not value:
        return value
    from datetime import datetime

    from django.utils import formats, timezone

    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return value
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def _heading_rows(report, human=False):
    result = report.result
    rows = [(_("report"), report.get_kind_display()), (_("table"), result["table"]["name"])]
    if result["kind"] == "shift":
        shift = result["shift"]
        rows += [(_("shift"), f"#{shift['id']}"), (_("dealer"), shift["dealer"]),
                 (_("opened at"), _when(shift["opened_at"], human)),
                 (_("closed at"), _when(shift["closed_at"], human) or _("still open"))]
    else:
        rows += [(_("from"), result["period"]["from"]), (_("to"), result["period"]["to"])]
    rows += [(_("computed at"), _when(result["computed_at"], human)), (_("exceptions"), len(result["exceptions"]))]
    return rows


def sections(report, human=False):
    """``[(title, header, rows)]`` of a stored report, in reading order; ``human``
    writes instants in the casino's time zone (the PDF), else as stored (the CSV)."""
    result = report.result
    out = [(_("Report"), None, _heading_rows(report, human)), (_("Summary"), None, _summary_rows(report))]
    exceptions = [(exception_text(item),) for item in result["exceptions"]]
    out.append((_("Exceptions"), (_("exception"),), exceptions or [(_("none"),)]))
    if result["kind"] == "shift":
        out += [
            (_("Payouts by multiplier"),
             (_("multiplier"), _("bets paid"), _("their stakes €"), _("paid €"), _("bets collected"),
              _("their stakes €"), _("collected €")),
             [(f"{row['multiplier']}×", row["paid_count"], row["paid_stake"], row["paid"], row["collected_count"],
               row["collected_stake"], row["collected"]) for row in result["payouts"]]),
            (_("Results"), (_("result"), _("bets"), _("stakes €"), _("players' net €")),
             [(str(RESULTS.get(row["result"], row["result"])), row["count"], row["stake"], row["net"])
              for row in result["results"]]),
            (_("Kinds of bet"), (_("kind"), _("bets"), _("stakes €"), _("players' net €")),
             [(str(BET_KINDS[kind]), v["count"], v["stake"], v["net"]) for kind, v in result["bet_kinds"].items()]),
            (_("The bank's takings per tenure"),
             (_("tenure"), _("holder"), _("began"), _("hands"), _("first"), _("last"), _("win €"),
              _("commission €"), _("net €"), _("ledger €")),
             [(f"#{row['id']}", row["holder"], str(BEGAN.get(row["began"], row["began"])), row["hands"],
               row["first_hand"], row["last_hand"], row["win"], row["commission"], row["bank_net"],
               row.get("ledger", "")) for row in result["tenures"]]),
            (_("Each player's result"),
             (_("player"), _("bets"), _("handle €"), _("won"), _("lost"), _("naturals"), _("busts"), _("net €"),
              _("ledger €")),
             [(row["player"], row["bets"], row["handle"], row["won"], row["lost"], row["naturals"], row["busts"],
               row["net"], row.get("ledger", "")) for row in result["players"]]),
            (_("Reconciliation with the ledger"), (_("what"), _("report €"), _("ledger €"), _("difference €")),
             [(str(RECONCILED.get(row["what"], row["what"])), row["report"], row["ledger"], row["difference"])
              for row in result["reconciliation"]["lines"]]),
            (_("Voided hands"), (_("hand"), _("voided at"), _("by"), _("reason"), _("reversed")),
             [(f"#{row['number']}", _when(row["voided_at"], human), row["voided_by"] or "—", row["reason"],
               _("yes") if row["reversal"] else (_("no") if row["posted"] else _("not posted")))
              for row in result["voids"]]),
            (_("Undone entries"), (_("hand"), _("entry"), _("undone"), _("reason"), _("by"), _("at")),
             [(f"#{row['hand']}", row["sequence"], event_text(row["undone"]), row["reason"], row["entered_by"] or "—",
               _when(row["entered_at"], human)) for row in result["undos"]]),
        ]
        for test in result["cards"]:
            out.append((_("Dealt cards, %(deck)s deck") % {"deck": test["deck"]},
                        (_("card"), _("dealt"), _("in the initial deal")),
                        [(card, n, test["initial_counts"][card]) for card, n in test["counts"].items()]
                        + [(_("cards of the initial deals"), "", test["initial"]),
                           (_("expected per card"), "", test["expected"]), (_("chi-square"), "", test["chi_square"]),
                           (_("degrees of freedom"), "", test["df"]), (_("p-value"), "", test["p_value"])]))
        out.append((_("The bank's running balance"), (_("hand"), _("net takings since the shift opened €")),
                    [tuple(point) for point in result["chart"]["points"]]))
    else:
        out.append((_("The chain of holders"), (_("tenure"), _("holder"), _("began"), _("ended")),
                    [(f"#{row['tenure']}", row["holder"], str(BEGAN.get(row["began"], row["began"])),
                      str(ENDED.get(row["ended"], row["ended"] or _("open")))) for row in result["chain"]]))
        out.append((_("Bank tenures"),
                    (_("tenure"), _("holder"), _("opened at"), _("closed at"), _("began"), _("price €"),
                     _("seller"), _("ended"), _("hands"), _("capital €"), _("win €"), _("commission €"),
                     _("net takings €"), _("ledger €"), _("distributed €"), _("balance €")),
                    [(f"#{row['id']}", row["holder"], _when(row["opened_at"], human),
                      _when(row["closed_at"], human) or "—",
                      str(BEGAN.get(row["began"], row["began"])), row["price"] or "", row["seller"] or "",
                      str(ENDED.get(row["ended"], row["ended"] or "—")), row["hands"], row["capital"], row["win"],
                      row["commission"], row["net_takings"], row["ledger_takings"], row["distributed"] or "",
                      row["balance"]) for row in result["tenures"]]))
        out.append((_("The bank's life: deposits, withdrawals, rebuilds"),
                    (_("tenure"), _("holder"), _("deposited €"), _("withdrawn €"), _("rebuilt €"), _("result €")),
                    [(f"#{row['id']}", row["holder"], row.get("deposits", row["capital"]), row.get("withdrawals", ""),
                      row.get("rebuilds", ""), row.get("result", "")) for row in result["tenures"]]))
        out.append((_("What each share received"),
                    (_("tenure"), _("player"), _("percent"), _("capital paid in €"), _("received €")),
                    [(f"#{row['id']}", share["player"], share["percent"], share["capital"],
                      share["received"] + ("" if not row["open"] else " " + _("(if closed now)")))
                     for row in result["tenures"] for share in row["shares"]]))
    return out


def report_csv(report) -> str:
    """The stored report as CSV text: one block per section (a title line, a header,
    the rows), blocks separated by an empty line. Amounts in euros with a point."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for title, header, rows in sections(report):
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


def chart_svg(report, width=720, height=220) -> str:
    """The bank's running balance as an inline SVG line (numbers only: safe to embed)."""
    points = chart_series(report)
    if not points:
        return ""
    pad_left, pad, bottom = 70, 10, 24
    values = [y for _x, y in points] + [Decimal(0)]
    low, high = min(values), max(values)
    span = (high - low) or Decimal(1)
    n = len(points)

    def px(i):
        return pad_left + (width - pad_left - pad) * (i / (n - 1) if n > 1 else 0.5)

    def py(y):
        return pad + float((high - y) / span) * (height - pad - bottom)

    line = " ".join(f"{px(i):.1f},{py(y):.1f}" for i, (_x, y) in enumerate(points))
    zero = py(Decimal(0))
    first, last = points[0][0], points[-1][0]
    unit = escape(_("hand") if report.result["chart"]["unit"] == "hand" else _("tenure"))
    label = escape(_("The bank's running balance"))
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{label}">'
        f'<line x1="{pad_left}" y1="{zero:.1f}" x2="{width - pad}" y2="{zero:.1f}" stroke="#999" '
        f'stroke-dasharray="4 3"/>'
        f'<polyline fill="none" stroke="#0b6e4f" stroke-width="2" points="{line}"/>'
        f'<text x="{pad_left - 6}" y="{pad + 4}" text-anchor="end" font-size="11">{high:.2f}</text>'
        f'<text x="{pad_left - 6}" y="{height - bottom}" text-anchor="end" font-size="11">{low:.2f}</text>'
        f'<text x="{pad_left - 6}" y="{zero + 4:.1f}" text-anchor="end" font-size="11">0</text>'
        f'<text x="{pad_left}" y="{height - 6}" font-size="11">{unit} {first}</text>'
        f'<text x="{width - pad}" y="{height - 6}" text-anchor="end" font-size="11">{unit} {last}</text>'
        f"</svg>")


def _chart_drawing(report, width=480, height=180):
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib import colors

    points = chart_series(report)
    drawing = Drawing(width, height)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 50, 20, width - 70, height - 35
    plot.data = [[(x, float(y)) for x, y in points]]  # drawing coordinates only; the figures stay Decimal
    plot.lines[0].strokeColor = colors.HexColor("#0b6e4f")
    plot.lines[0].strokeWidth = 1.5
    plot.xValueAxis.labels.fontSize = 7
    plot.yValueAxis.labels.fontSize = 7
    drawing.add(plot)
    return drawing


# ---------------------------------------------------------------------------------------
# PDF


def report_pdf(report) -> bytes:
    """The stored report as a PDF (A4 landscape; reportlab platypus), with the chart of
    the bank's running balance drawn by reportlab. Returns the file's bytes (``%PDF``…)."""
    from xml.sax.saxutils import escape

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, TableStyle
    from reportlab.platypus import Table as PdfTable

    buffer = io.BytesIO()
    title = f"{report.get_kind_display()} · {report.result['table']['name']}"
    document = SimpleDocTemplate(buffer, pagesize=landscape(A4), leftMargin=1.5 * cm, rightMargin=1.5 * cm,
                                 topMargin=1.5 * cm, bottomMargin=1.5 * cm, title=title,
                                 author=_("Siete y media back-office"))
    styles = getSampleStyleSheet()
    small = styles["BodyText"].clone("small", fontSize=8, leading=10)
    story = [Paragraph(escape(title), styles["Title"])]
    grid = TableStyle([("FONTSIZE", (0, 0), (-1, -1), 8), ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                       ("VALIGN", (0, 0), (-1, -1), "TOP")])
    for number, (heading, header, rows) in enumerate(sections(report, human=True)):
        story.append(Paragraph(escape(heading), styles["Heading2"]))
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
        if number == 1 and report.result["chart"]["points"]:
            story.append(Spacer(1, 0.4 * cm))
            story.append(Paragraph(escape(_("The bank's running balance (net takings, €)")), styles["Heading3"]))
            story.append(_chart_drawing(report))
        story.append(Spacer(1, 0.3 * cm))
    document.build(story)
    return buffer.getvalue()
