#!/usr/bin/env python3
"""PDF to text: webcanon against pdftotext (poppler-utils) and pypdf, on the
same PDFs, in one run, scored the same way.

Systems:
  webcanon    the conversion of `webcanon fetch --format text` (the pdf_pages
              example, release build), page markers removed before scoring
  pdftotext   `pdftotext -enc UTF-8 FILE -` (one process per file, as a
              fetcher would run it)
  pypdf       pypdf.PdfReader(FILE), page.extract_text() for every page

Sets:
  real        PDFs from Debian documentation packages (manuals, papers in
              two columns, slides, reference cards, Cyrillic and Chinese
              books): `apt-get download` into target/pdf-bench/debs and
              `dpkg-deb -x`, nothing installed. Scored against pdftotext.
  truth       the Debian licence texts (/usr/share/common-licenses) set as
              HTML paragraphs and printed to PDF by headless Chromium, in
              one column and (four of them) in two: the ground truth is the
              text itself. Also two tab-aligned listings (/etc/services,
              /etc/protocols), a numbered listing of code (the first
              lines of Python's textwrap module, line numbers in a gutter of
              their own), justified paragraphs with notes in the margin
              (on the baselines of the lines beside them), a table of
              contents (section numbers, titles, dot leaders, page
              numbers) and a table (Python's built-in functions beside
              their summaries, some wrapped in their cells). Every system
              is scored.

Score: word 4-shingle F1 per document (multiset), averaged over documents;
whitespace and page markers do not count; in CJK text each character is a
word; text is compared in Unicode's compatibility form (NFKC: the ligature
ﬁ reads as f, i). Beside it, the same F1 of single words, which ignores
their order: what is left of the shingle score's shortfall is reading
order. Speed: pages per second over the
whole set, each document timed on one thread.

  target/pdf-bench/venv/bin/python benches/pdf/compare.py [--json OUT]
"""

import argparse
import html
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "pdf-bench"
PACKAGES = [
    "gnuplot-doc",
    "octave-doc",
    "texlive-latex-base-doc",
    "texlive-lang-cyrillic",
    "texlive-lang-chinese",
    "texlive-publishers-doc",
    "texlive-science-doc",
]
# (file under usr/share/doc, kind)
REAL = [
    ("gnuplot/gnuplot.pdf", "manual, 311 pages"),
    ("octave/octave.pdf", "manual, 1158 pages"),
    ("octave/refcard-a4.pdf", "reference card, 3 columns"),
    ("texlive-doc/latex/base/usrguide.pdf", "manual"),
    ("texlive-doc/latex/base/clsguide.pdf", "manual"),
    ("texlive-doc/latex/base/source2e.pdf", "code listing, 1221 pages"),
    ("texlive-doc/latex/gfdl/gfdl.pdf", "licence"),
    ("texlive-doc/latex/acmart/samples/sample-sigconf.pdf", "paper, 2 columns"),
    ("texlive-doc/latex/revtex4-1/sample/aps/apssamp.pdf", "paper, 2 columns"),
    ("texlive-doc/latex/elsarticle/elstest-3p.pdf", "paper"),
    ("texlive-doc/latex/aastex/sample631.pdf", "paper"),
    ("texlive-doc/latex/llncs/llncsdoc.pdf", "paper"),
    ("texlive-doc/latex/ieeetran/testflow_doc.pdf", "paper, 2 columns"),
    ("texlive-doc/latex/beamer-verona/beamer-verona.pdf", "slides"),
    ("texlive-doc/latex/schule/Beispiele/bsp-beamer.pdf", "slides"),
    ("texlive-doc/latex/nwejm/french/nwejm-fr.pdf", "French"),
    ("texlive-doc/latex/lshort-ukr/lshort-ukr.pdf", "Ukrainian book"),
    ("texlive-doc/latex/lshort-bulgarian/lshort-bg.pdf", "Bulgarian book"),
    ("texlive-doc/latex/lshort-chinese/lshort-zh-cn.pdf", "Chinese book"),
    ("texlive-doc/latex/zhlipsum/zhlipsum.pdf", "Chinese"),
]
LICENCES = ["Apache-2.0", "GPL-3", "LGPL-2.1", "MPL-2.0", "Artistic", "GFDL-1.3"]
MARKER = re.compile(r"^--- page \d+ ---$", re.M)
# Words, and each character of the scripts written without spaces between
# words (CJK ideographs, kana): a run of them has no word boundary to split
# at, so a line break read one way or another would change every token.
UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN = re.compile(f"[{UNSPACED}]|[^\\W{UNSPACED}]+", re.UNICODE)


def shingles(text, n=4):
    # Compatibility forms count as their letters: the ligature ﬁ is f, i.
    tokens = TOKEN.findall(unicodedata.normalize("NFKC", text or ""))
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens[i : i + n])


def f1(reference, candidate, n=4):
    ref, cand = shingles(reference, n), shingles(candidate, n)
    tp = sum(min(c, cand.get(k, 0)) for k, c in ref.items())
    precision = tp / sum(cand.values()) if cand else 0.0
    recall = tp / sum(ref.values()) if ref else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# --- the sets ------------------------------------------------------------------


def real_set():
    folder = WORK / "real"
    if folder.is_dir() and len(list(folder.glob("*.pdf"))) == len(REAL):
        return folder
    debs, tree = WORK / "debs", WORK / "tree"
    debs.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True)
    for deb in debs.glob("*.deb"):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
    folder.mkdir(exist_ok=True)
    for path, _ in REAL:
        shutil.copy(tree / "usr/share/doc" / path, folder / Path(path).name)
    return folder


# Layouts the known text is printed in: one column, and two columns (CSS
# columns, which a reader must take one after the other, not line by line
# across the page).
LAYOUTS = {
    "": "",
    "-2col": "body{columns:2;column-gap:2.5em;font-size:11pt}",
    # Turned a quarter either way, as a landscape table is: read bottom to
    # top, and top to bottom.
    "-turned-left": "body{writing-mode:sideways-lr;font-size:11pt}",
    "-turned-right": "body{writing-mode:vertical-rl;font-size:11pt}",
}
TWO_COLUMNS = ["Apache-2.0", "GPL-3", "LGPL-2.1", "MPL-2.0"]
TURNED = ["MPL-2.0"]
# Tables of a Debian system set in columns with tabs (netbase).
LISTINGS = ["/etc/services", "/etc/protocols"]
# The lines of Python's textwrap module printed as a numbered listing.
NUMBERED_LINES = 150
# The paragraphs of the Apache licence printed with notes in the margin.
MARGIN_PARAGRAPHS = 30
# Entries of the table of contents made of the GPL's paragraphs.
CONTENTS_ENTRIES = 60
# Rows of the table of Python's built-in functions and their summaries.
TABLE_ROWS = 40


def print_to_pdf(page, pdf):
    """The HTML `page` (after its doctype) printed to `pdf` by headless
    Chromium, its HTML kept beside it."""
    source = pdf.with_suffix(".html")
    source.write_text(f"<!doctype html><meta charset=utf-8>{page}")
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
         f"--print-to-pdf={pdf}", source.as_uri()],
        check=True, capture_output=True,
    )


def truth_set():
    folder = WORK / "truth"
    folder.mkdir(parents=True, exist_ok=True)
    truth = {}
    for name in LICENCES:
        text = Path("/usr/share/common-licenses", name).read_text()
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in paragraphs)
        for suffix, style in LAYOUTS.items():
            if suffix == "-2col" and name not in TWO_COLUMNS or suffix.startswith("-turned") and name not in TURNED:
                continue
            key = name + suffix
            truth[key] = "\n\n".join(paragraphs)
            pdf = folder / f"{key}.pdf"
            if pdf.exists():
                continue
            print_to_pdf(f"<title>{name}</title><style>{style}</style><body>{body}</body>", pdf)
    # Listings: files whose columns are aligned with tabs, printed in a
    # monospaced font; each line is one record, read across.
    for path in LISTINGS:
        text = Path(path).read_text()
        key = "listing-" + Path(path).name
        truth[key] = text
        pdf = folder / f"{key}.pdf"
        if pdf.exists():
            continue
        print_to_pdf(
            f"<title>{path}</title><style>pre{{font-size:8pt;white-space:pre-wrap}}</style><pre>{html.escape(text)}</pre>",
            pdf,
        )
    # Notes in the margin beside justified paragraphs, on the baselines of
    # the lines beside them, a space or two off the text: read apart from
    # the paragraph, after it.
    key = "margin-notes"
    text = Path("/usr/share/common-licenses/Apache-2.0").read_text()
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()][:MARGIN_PARAGRAPHS]
    notes = {i: f"Note {i // 3 + 1}: {' '.join(p.split()[:4])}" for i, p in enumerate(paragraphs) if i % 3 == 1}
    truth[key] = "\n\n".join(p + (f"\n\n{notes[i]}" if i in notes else "") for i, p in enumerate(paragraphs))
    pdf = folder / f"{key}.pdf"
    if not pdf.exists():
        body = "".join(
            f"<p>{html.escape(p)}" + (f"<span>{html.escape(notes[i])}</span>" if i in notes else "") + "</p>\n"
            for i, p in enumerate(paragraphs)
        )
        style = (
            "body{font:11pt serif;width:30em}p{text-align:justify;position:relative}"
            "span{position:absolute;left:31em;top:0;width:9em;text-align:left}"
        )
        print_to_pdf(f"<title>Apache-2.0</title><style>{style}</style>{body}", pdf)
    # A table of contents: section numbers in a column of their own, the
    # titles a gap after them, dot leaders to the page numbers; each entry
    # is one line, read across.
    key = "contents"
    text = Path("/usr/share/common-licenses/GPL-3").read_text()
    # The titles: the first words of each paragraph, without the
    # paragraph's own number (`0. Definitions.`), which the entry's
    # section number stands for.
    paragraphs = [re.sub(r"^\d+\.\s+", "", p.strip()) for p in re.split(r"\n\s*\n", text) if p.strip()]
    titles = [" ".join(p.split()[:6]).rstrip(".,;:") for p in paragraphs][:CONTENTS_ENTRIES]
    entries, chapter, section = [], 0, 0
    for i, title in enumerate(titles):
        if i % 4 == 0:
            chapter, section = chapter + 1, 0
            entries.append((0, f"{chapter}", title, 3 * i + 1))
        else:
            section += 1
            entries.append((1, f"{chapter}.{section}", title, 3 * i + 1))
    truth[key] = "\n".join(f"{number} {title} {page}" for _, number, title, page in entries)
    pdf = folder / f"{key}.pdf"
    if not pdf.exists():
        rows = "".join(
            f"<div style='padding-left:{2 * level}em'><span class=n>{number}</span>"
            f"<span class=t>{html.escape(title)}</span><span class=p>{page}</span></div>\n"
            for level, number, title, page in entries
        )
        style = (
            "body{font:11pt serif;width:36em}div{display:flex;line-height:1.5}.n{width:3em;flex:none}"
            ".t{flex:1;overflow:hidden;white-space:nowrap}.t::after{content:'" + " ." * 120 + "'}"
            ".p{width:2em;flex:none;text-align:right}"
        )
        print_to_pdf(f"<title>Contents</title><style>{style}</style>{rows}", pdf)
    # A numbered listing: code with its line numbers in a gutter of their
    # own (smaller, in another font, as editors and code documentation
    # set them), each number on its code's baseline.
    key = "listing-numbered"
    lines = Path(textwrap.__file__).read_text().splitlines()[:NUMBERED_LINES]
    truth[key] = "\n".join(f"{n} {line}" for n, line in enumerate(lines, 1))
    pdf = folder / f"{key}.pdf"
    if not pdf.exists():
        rows = "".join(f"<div><span>{n}</span>{html.escape(line)}</div>\n" for n, line in enumerate(lines, 1))
        style = (
            "div{font:9pt monospace;white-space:pre}"
            "span{display:inline-block;width:3em;padding-right:2em;text-align:right;font:7pt sans-serif}"
        )
        print_to_pdf(f"<title>textwrap.py</title><style>{style}</style>{rows}", pdf)
    # A table: Python's built-in functions beside the first line of their
    # documentation, a head over them; a summary too long for its column
    # wraps within its cell. Read row by row, each row across.
    key = "table"
    import builtins
    names = sorted(n for n in dir(builtins) if n[0].islower() and callable(getattr(builtins, n)))
    rows = [("Function", "Summary")]
    for name in names:
        doc = (getattr(builtins, name).__doc__ or "").strip().splitlines()
        summary = doc[0].strip() if doc else ""
        if summary and not summary.startswith(name):
            rows.append((name, summary))
    rows = rows[: TABLE_ROWS + 1]
    truth[key] = "\n".join(f"{name} {summary}" for name, summary in rows)
    pdf = folder / f"{key}.pdf"
    if not pdf.exists():
        cells = "".join(f"<tr><td>{html.escape(n)}</td><td>{html.escape(d)}</td></tr>\n" for n, d in rows)
        style = "table{font:10pt serif;line-height:1.2;border-collapse:collapse}td{padding:0 3em 0 0;vertical-align:top}td+td{width:22em}"
        print_to_pdf(f"<title>Built-in functions</title><style>{style}</style><table>{cells}</table>", pdf)
    return folder, truth


# --- the systems -----------------------------------------------------------------


def run_webcanon(folder):
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "webcanon-extract", "--example", "pdf_pages"],
        cwd=ROOT, check=True,
    )
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=ROOT, check=True, capture_output=True, text=True
    )
    target = Path(json.loads(metadata.stdout)["target_directory"])
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run([str(target / "release/examples/pdf_pages"), str(folder), str(out)], check=True)
        result = json.loads(out.read_text())
    texts = {k: MARKER.sub("", v["content"]) for k, v in result.items()}
    return texts, {k: v["seconds"] for k, v in result.items()}, {k: v for k, v in result.items()}


def run_pdftotext(folder):
    texts, seconds = {}, {}
    for pdf in sorted(folder.glob("*.pdf")):
        started = time.perf_counter()
        done = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True)
        seconds[pdf.stem] = time.perf_counter() - started
        texts[pdf.stem] = done.stdout.decode("utf-8", "replace").replace("\f", "\n")
    return texts, seconds


def run_pypdf(folder):
    import pypdf

    texts, seconds = {}, {}
    for pdf in sorted(folder.glob("*.pdf")):
        started = time.perf_counter()
        try:
            reader = pypdf.PdfReader(str(pdf))
            texts[pdf.stem] = "\n".join(page.extract_text() or "" for page in reader.pages)
        except Exception as error:  # a failure scores 0, as it would for an agent
            print(f"pypdf failed on {pdf.name}: {error}", file=sys.stderr)
            texts[pdf.stem] = ""
        seconds[pdf.stem] = time.perf_counter() - started
    return texts, seconds


def page_counts(folder):
    counts = {}
    for pdf in sorted(folder.glob("*.pdf")):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
        counts[pdf.stem] = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    return counts


# --- the run ---------------------------------------------------------------------


def measure(folder, references):
    """Each system's texts and times on `folder`, scored against `references`
    (a function of the run's texts)."""
    pages = page_counts(folder)
    runs = {"webcanon": run_webcanon(folder)[:2], "pdftotext": run_pdftotext(folder), "pypdf": run_pypdf(folder)}
    reference = references(runs)
    rows = {}
    for name, (texts, seconds) in runs.items():
        scores = {k: f1(reference[k], texts.get(k, "")) for k in reference}
        words = {k: f1(reference[k], texts.get(k, ""), n=1) for k in reference}
        rows[name] = {
            "f1": statistics.mean(scores.values()),
            "words_f1": statistics.mean(words.values()),
            "per_document": scores,
            "seconds": sum(seconds.values()),
            "pages_per_second": sum(pages.values()) / sum(seconds.values()),
        }
    return rows, pages


def print_rows(title, rows, pages, reference_name):
    print(f"\n## {title}: {len(pages)} PDFs, {sum(pages.values())} pages; F1 against {reference_name}\n")
    print("| system | mean F1 | words F1, order ignored | total s | pages/s |")
    print("|---|---|---|---|---|")
    for name, row in rows.items():
        print(
            f"| {name} | {row['f1']:.3f} | {row['words_f1']:.3f} | {row['seconds']:.2f} | {row['pages_per_second']:.0f} |"
        )
    print("\n| document | pages | " + " | ".join(rows) + " |")
    print("|---|---|" + "---|" * len(rows))
    for key in sorted(pages):
        cells = " | ".join(f"{rows[n]['per_document'].get(key, 0):.3f}" for n in rows)
        print(f"| {key} | {pages[key]} | {cells} |")


def main():
    if not Path("/usr/share/poppler/cMap").is_dir():
        sys.exit("poppler-data is missing: without it pdftotext reads no Chinese, Japanese or Korean text")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    real_rows, real_pages = measure(real_set(), lambda runs: runs["pdftotext"][0])
    print_rows("Real PDFs (Debian documentation)", real_rows, real_pages, "pdftotext")
    folder, truth = truth_set()
    truth_rows, truth_pages = measure(folder, lambda runs: truth)
    print_rows("Printed by headless Chromium from known text", truth_rows, truth_pages, "the text")
    if args.json:
        args.json.write_text(json.dumps({"real": real_rows, "truth": truth_rows}, indent=1))


if __name__ == "__main__":
    main()
