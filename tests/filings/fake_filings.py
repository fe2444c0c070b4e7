"""Made-up filings as PDFs: a cover page and statements drawn as a printer lays them out."""

from __future__ import annotations

from pathlib import Path

Row = tuple[str, ...]

INCOME = [("Net revenues", "5,200", "4,800"), ("Cost of revenues", "3,100", "2,950"),
          ("Gross profit", "2,100", "1,850"), ("Selling, general and administrative", "900", "860"),
          ("Depreciation and amortization", "150", "140"),
          ("Operating income", "1,050", "850"), ("Interest expense", "(80)", "(75)"),
          ("Income before income taxes", "970", "775"),
          ("Provision for income taxes", "210", "170"),
          ("Net income", "760", "605")]
BALANCE = [("Cash and cash equivalents", "640", "420"), ("Accounts receivable, net", "730", "610"),
           ("Inventories", "880", "820"), ("Total current assets", "2,250", "1,850"),
           ("Property and equipment, net", "1,900", "1,750"), ("Total assets", "4,150", "3,600"),
           ("Accounts payable", "510", "470"), ("Accrued liabilities", "300", "280"),
           ("Total current liabilities", "810", "750"), ("Long-term debt", "1,200", "1,100"),
           ("Total liabilities", "2,010", "1,850"),
           ("Total stockholders' equity", "2,140", "1,750")]
CASH = [("Net income", "760", "605"), ("Depreciation and amortization", "150", "140"),
        ("Accounts receivable", "(120)", "(40)"), ("Inventories", "(60)", "(30)"),
        ("Net cash provided by operating activities", "730", "675"),
        ("Purchases of property and equipment", "(300)", "(280)"),
        ("Net cash used in investing activities", "(300)", "(280)")]


def cover_lines(company: str, form: str, year_end: str, ticker: str) -> list[str]:
    """The lines of a made-up 10-K or 10-Q cover page."""
    report = ("ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT"
              if form == "10-K" else
              "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT")
    period = ("For the fiscal year ended " if form == "10-K" else
              "For the quarterly period ended ") + year_end
    return ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "Washington, D.C. 20549",
            f"FORM {form}", report, period, "Commission File Number: 001-99999", company,
            "(Exact name of registrant as specified in its charter)",
            "Title of each class  Trading Symbol(s)  Name of each exchange",
            f"Common Stock  {ticker}  New York Stock Exchange"]


def make_filing(path: Path, lines: list[str], statements: list[tuple[str, list[Row], Row]]
                ) -> Path:
    """A PDF: ``lines`` on page 1, then one page per statement (title, rows, header)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=letter)
    y = 740
    pdf.setFont("Helvetica", 10)
    for line in lines:
        pdf.drawString(72, y, line)
        y -= 18
    pdf.showPage()
    for title, rows, header in statements:
        y = 740
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawString(72, y, title)
        pdf.setFont("Helvetica", 10)
        pdf.drawString(72, y - 16, "(in millions)")
        y -= 40
        for x, text in zip((400, 480), header, strict=False):
            pdf.drawRightString(x, y, text)
        y -= 16
        for label, *values in rows:
            pdf.drawString(72, y, label)
            for x, value in zip((400, 480), values, strict=True):
                pdf.drawRightString(x, y, value)
            y -= 14
        pdf.showPage()
    pdf.save()
    return path


def widget_10k(path: Path) -> Path:
    """A made-up 10-K of Quillfeather Instruments for fiscal 2022 (ended June 30, 2022)."""
    lines = cover_lines("Quillfeather Instruments, Inc.", "10-K", "June 30, 2022", "QFI")
    return make_filing(path, lines, [
        ("QUILLFEATHER INSTRUMENTS, INC. CONSOLIDATED STATEMENTS OF OPERATIONS", INCOME,
         ("2022", "2021")),
        ("CONSOLIDATED BALANCE SHEETS", BALANCE, ("June 30, 2022", "June 30, 2021")),
        ("CONSOLIDATED STATEMENTS OF CASH FLOWS", CASH, ("2022", "2021")),
    ])


def harbor_10q(path: Path) -> Path:
    """A made-up 10-Q of Harborline Foods for the quarter ended March 31, 2023."""
    lines = cover_lines("Harborline Foods Corporation", "10-Q", "March 31, 2023", "HBLF")
    return make_filing(path, lines, [
        ("CONDENSED CONSOLIDATED STATEMENTS OF INCOME Three Months Ended March 31,", INCOME[:6],
         ("2023", "2022")),
    ])
