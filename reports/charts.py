"""The auditor's funnel chart as inline SVG: each group's result per unit staked against
its hands, with the control limits of the theory.

Drawn as the reports' other chart (``reports.exports.chart_svg``): numbers we computed and
labels we translated and escaped, safe to embed; numbers in the reader's locale.
"""

import math
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _

from casino.formatting import number


def funnel_svg(data, labels=None, width=720, height=300) -> str:
    """``statistics.funnel``'s data as an SVG: x the (effective) hands on a log scale, y
    the bank's result per unit staked (%), the expected line, the ±2σ and ±3σ limits, a
    dot per group (red beyond 3σ, amber beyond 2σ) with its label.

    Args:
        data: ``reports.statistics.funnel(...)``'s dict.
        labels: ``{group id: label}`` (default: the id).
    Returns:
        str, the ``<svg>`` element, or "" without any group.
    """
    points = data["points"]
    if not points:
        return ""
    labels = labels or {}
    pad_left, pad_right, pad_top, bottom = 64, 16, 12, 36
    xs = data["limits"]["x"]
    # Room to the right of the largest group, for its label.
    x_max = max(xs[-1], max(p["effective_hands"] for p in points), 2.0) ** 1.08
    outer = [b for b in data["limits"]["bands"] if b["k"] == max(band["k"] for band in data["limits"]["bands"])][0]
    values = [p["per_unit"] for p in points] + [data["mean"]]
    # The limits at 1 hand are very wide: the scale follows the groups, with the limits clipped.
    low = min(values + [min(outer["lower"][-1], data["mean"])])
    high = max(values + [max(outer["upper"][-1], data["mean"])])
    margin = (high - low) * 0.15 or 0.05
    low, high = low - margin, high + margin

    def px(x):
        return pad_left + (width - pad_left - pad_right) * (math.log(max(x, 1.0)) / math.log(x_max))

    def py(y):
        y = min(max(y, low), high)
        return pad_top + (high - y) / (high - low) * (height - pad_top - bottom)

    title = escape(_("Funnel chart: the bank's result per unit staked against hands played"), {'"': "&quot;"})
    parts = [f'<svg class="chart funnel" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="{title}">']
    for band in data["limits"]["bands"]:
        dash = "2 3" if band["k"] < 3 else "6 3"
        for side in ("lower", "upper"):
            line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, band[side], strict=True))
            parts.append(f'<polyline fill="none" stroke="#999" stroke-dasharray="{dash}" points="{line}"/>')
        parts.append(f'<text x="{width - pad_right}" y="{py(band["upper"][-1]) - 3:.1f}" text-anchor="end" '
                     f'font-size="10" fill="#666">+{number(band["k"], 0)}σ</text>')
    center = py(data["mean"])
    parts.append(f'<line x1="{pad_left}" y1="{center:.1f}" x2="{width - pad_right}" y2="{center:.1f}" '
                 f'stroke="#0b6e4f" stroke-width="1.5"/>')
    for y in (high - margin, data["mean"], low + margin):
        parts.append(f'<text x="{pad_left - 6}" y="{py(y) + 4:.1f}" text-anchor="end" font-size="11">'
                     f'{escape(number(100 * y, 1))} %</text>')
    for x in (1, 10, 100, 1000, 10000, 100000):
        if x <= x_max:
            parts.append(f'<text x="{px(x):.1f}" y="{height - bottom + 14}" text-anchor="middle" font-size="11">'
                         f'{escape(number(x, 0))}</text>')
    axis = escape(_("hands played"))
    parts.append(f'<text x="{(pad_left + width - pad_right) / 2:.1f}" y="{height - 4}" text-anchor="middle" '
                 f'font-size="11">{axis}</text>')
    for point in points:
        colour = "#b00020" if point["beyond"] and point["beyond"] >= 3 else "#c77700" if point["beyond"] else "#0b6e4f"
        x, y = px(point["effective_hands"]), py(point["per_unit"])
        label = escape(str(labels.get(point["id"], point["id"])))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"><title>{label}: '
                     f'{escape(number(100 * point["per_unit"], 2))} % · {point["hands"]}</title></circle>')
        anchor = "end" if x > width - pad_right - 80 else "start"
        parts.append(f'<text x="{x + (-6 if anchor == "end" else 6):.1f}" y="{y - 6:.1f}" font-size="10" '
                     f'text-anchor="{anchor}">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)
