"""Summarises a CSV file; with --chart, draws a bar chart of a numeric column per category (SVG).

Standard library only, so it runs wherever python3 does.
usage: summarize.py FILE [--chart COLUMN] [--by COLUMN]
"""
import csv
import json
import sys
from html import escape


def number(text):
    try:
        return float(text.replace(",", "")) if text.strip() else None
    except ValueError:
        return None


def summarise(name, rows, header):
    columns = []
    for index, column in enumerate(header):
        cells = [row[index] for row in rows if index < len(row) and row[index].strip()]
        values = [number(cell) for cell in cells]
        numeric = len(values) > 0 and all(v is not None for v in values)
        entry = {"name": column, "numeric": numeric, "count": len(cells)}
        if numeric:
            entry.update(
                min=round(min(values), 2),
                max=round(max(values), 2),
                mean=round(sum(values) / len(values), 2),
                total=round(sum(values), 2),
            )
        columns.append(entry)
    return {"file": name, "rows": len(rows), "columns": columns}


def bars_of(rows, header, value, by):
    if value not in header:
        sys.exit(f"--chart: no column '{value}' in {header}")
    if by not in header:
        sys.exit(f"--by: no column '{by}' in {header}")
    v, b = header.index(value), header.index(by)
    totals = {}
    for row in rows:
        amount = number(row[v]) if v < len(row) else None
        if amount is not None:
            totals[row[b]] = totals.get(row[b], 0) + amount
    return [{"label": label, "total": round(total, 2)} for label, total in totals.items()]


def svg_of(bars, value, by):
    width, bar_height, gap, left = 480, 24, 8, 120
    top = max((bar["total"] for bar in bars), default=1) or 1
    height = len(bars) * (bar_height + gap) + 40
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<text x="8" y="16" font-weight="bold">{escape(value)} by {escape(by)}</text>',
    ]
    for i, bar in enumerate(bars):
        y = 28 + i * (bar_height + gap)
        length = (width - left - 60) * bar["total"] / top
        lines.append(f'<text x="8" y="{y + 16}">{escape(str(bar["label"]))}</text>')
        lines.append(f'<rect x="{left}" y="{y}" width="{length:.1f}" height="{bar_height}" fill="#4a7bd0"/>')
        lines.append(f'<text x="{left + length + 6:.1f}" y="{y + 16}">{bar["total"]:g}</text>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def main(argv):
    if not argv or argv[0].startswith("--"):
        sys.exit("usage: summarize.py FILE [--chart COLUMN] [--by COLUMN]")
    name, options = argv[0], dict(zip(argv[1::2], argv[2::2]))
    with open(name, newline="", encoding="utf-8") as handle:
        table = [row for row in csv.reader(handle) if row]
    if not table:
        sys.exit(f"{name} is empty")
    header, rows = table[0], table[1:]
    summary = summarise(name, rows, header)
    if "--chart" in options:
        value = options["--chart"]
        by = options.get("--by", header[0])
        bars = bars_of(rows, header, value, by)
        with open("chart.svg", "w", encoding="utf-8") as chart:
            chart.write(svg_of(bars, value, by))
        summary["chart"] = {"file": "chart.svg", "value": value, "by": by, "bars": bars}
    with open("summary.json", "w", encoding="utf-8") as out:
        json.dump(summary, out, indent=2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1:])
