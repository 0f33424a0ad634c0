#!/usr/bin/env python3
"""Main-text extraction: webcanon against the extractors people use, on the
same pages, in one run, scored the same way.

Systems:
  webcanon      the conversion of `webcanon fetch` (the extract_pages example,
                release build), Markdown
  trafilatura   trafilatura.extract(..., output_format="markdown")
  readability   readability-lxml: Document(html).summary(), its text
  mcp_fetch     the reference MCP fetch server's pipeline: readabilipy
                (Readability.js under Node) then markdownify, ATX headings
  resiliparse   resiliparse's extract_plain_text(main_content=True), the
                page decoded by its own encoding detector
  justext       jusText's paragraphs that are not boilerplate, with the
                stop words of every language it ships (the pages are in
                many languages; trafilatura's jusText fallback does the same)

Page sets:
  --dev DIR     pages/KEY.html.gz and snippets.json (KEY -> {url, with,
                without}): a `with` snippet found is a true positive, missing
                a false negative; a `without` snippet found is a false
                positive, missing a true negative. (Default:
                ../shared/corpus/extraction.)
  --truth DIR   html/KEY.html.gz and ground-truth.json (KEY -> {url,
                articleBody}), full main text: precision and recall of word
                4-shingles per page, averaged over pages.

Short pages: every figure is reported again for the pages whose main text
is under 150 words (SHORT_WORDS). On the full-text set that is the ground
truth's article body (words as the shingles count them). The development
set has no full text, only snippets, so there a page is short when the
median word count of the peers' outputs is under 150: the peers only, so
that webcanon's own output cannot move a page in or out of the subset, and
the median, so that one peer that fails (nothing) or takes the whole page
(menus and footers) does not decide it. The peers are those of the run:
compare subsets of runs with the same --systems.

Every output is normalised the same way before scoring: Markdown link and
image targets dropped (their text kept), emphasis and heading markers
removed, whitespace collapsed. Times are per page, on one thread, in this
run; the ratios are what to quote.

  target/bench-venv/bin/python benches/extraction/compare.py [--truth DIR]
      [--systems webcanon,trafilatura,...] [--reuse-peers] [--json OUT]
      [--before OLD/extract_pages]   # an earlier build, measured in the same run
      [--webcanon BUILD/extract_pages]  # this binary as webcanon, not a release build
"""

import argparse
import gzip
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "target" / "extraction-cache"
ALL_SYSTEMS = ["webcanon", "trafilatura", "readability", "mcp_fetch", "resiliparse", "justext"]
# A page's main text is short under this many words.
SHORT_WORDS = 150


# --- normalisation and scoring ------------------------------------------------

IMAGE = re.compile(r"!\[([^\]]*)\]\((?:<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\)")
LINK = re.compile(r"\[([^\]]*)\]\((?:<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\)")
REF_LINK = re.compile(r"\[([^\]]+)\]\[\d+\]")
REF_DEF = re.compile(r"^\s*\[\d+\]:\s+\S+.*$", re.M)
EMPHASIS = re.compile(r"(\*\*|__|\*|(?<!\w)_|_(?!\w)|~~|`)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.M)
SPACE = re.compile(r"\s+")


def normalise(text):
    text = text or ""
    text = IMAGE.sub(r"\1", text)
    text = LINK.sub(r"\1", text)
    text = REF_LINK.sub(r"\1", text)
    text = REF_DEF.sub("", text)
    text = HEADING.sub("", text)
    text = EMPHASIS.sub("", text)
    return SPACE.sub(" ", text).strip()


def snippet_counts(outputs, snippets):
    tp = fn = fp = tn = 0
    for key, spec in snippets.items():
        text = normalise(outputs.get(key, ""))
        for s in spec.get("with", []):
            if normalise(s) in text:
                tp += 1
            else:
                fn += 1
        for s in spec.get("without", []):
            if normalise(s) in text:
                fp += 1
            else:
                tn += 1
    return tp, fn, fp, tn


def prf(tp, fn, fp, tn):
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = (tp + tn) / (tp + fn + fp + tn) if tp + fn + fp + tn else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": accuracy}


TOKEN = re.compile(r"\w+", re.UNICODE)


def shingles(text, n=4):
    tokens = TOKEN.findall(text or "")
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens[i : i + n])


def shingle_scores(outputs, truth):
    precisions, recalls = [], []
    for key, spec in truth.items():
        true = shingles(spec.get("articleBody", ""))
        pred = shingles(normalise(outputs.get(key, "")))
        tp = sum(min(c, pred.get(k, 0)) for k, c in true.items())
        fp = sum(pred.values()) - tp
        fn = sum(true.values()) - tp
        total = tp + fp + fn
        if total == 0:
            continue
        tp, fp, fn = tp / total, fp / total, fn / total
        if tp + fp > 0:
            precisions.append(1.0 if fp == fn == 0 else tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    precision, recall = statistics.mean(precisions), statistics.mean(recalls)
    return {"precision": precision, "recall": recall, "f1": 2 * precision * recall / (precision + recall)}


# --- the systems -------------------------------------------------------------


def read_pages(folder):
    pages = {}
    for path in sorted(Path(folder).iterdir()):
        name = path.name
        if name.endswith(".html.gz"):
            pages[name[: -len(".html.gz")]] = gzip.decompress(path.read_bytes())
        elif name.endswith(".html"):
            pages[name[: -len(".html")]] = path.read_bytes()
    return pages


def run_webcanon(folder, urls, binary=None):
    if binary is None:
        subprocess.run(
            ["cargo", "build", "--quiet", "--release", "-p", "webcanon-extract", "--example", "extract_pages"],
            cwd=ROOT,
            check=True,
        )
        binary = ROOT / "target" / "release" / "examples" / "extract_pages"
    with tempfile.TemporaryDirectory() as tmp:
        urls_file, out_file = Path(tmp) / "urls.json", Path(tmp) / "out.json"
        urls_file.write_text(json.dumps(urls))
        subprocess.run([str(binary), str(folder), str(urls_file), str(out_file)], check=True)
        result = json.loads(out_file.read_text())
    return {k: v["content"] for k, v in result.items()}, {k: v["seconds"] for k, v in result.items()}


def peer_function(name):
    if name == "trafilatura":
        import trafilatura

        return lambda html, url: trafilatura.extract(html, url=url, output_format="markdown") or ""
    if name == "readability":
        import lxml.html
        from readability import Document

        def readability(html, url):
            summary = Document(html, url=url).summary(html_partial=True)
            return lxml.html.fromstring(summary).text_content() if summary.strip() else ""

        return readability
    if name == "mcp_fetch":
        import markdownify
        import readabilipy.simple_json
        from trafilatura.utils import decode_file

        def mcp_fetch(html, url):
            text = decode_file(html) if isinstance(html, bytes) else html
            result = readabilipy.simple_json.simple_json_from_html_string(text, use_readability=True)
            if not result.get("content"):
                return ""
            return markdownify.markdownify(result["content"], heading_style=markdownify.ATX)

        return mcp_fetch
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        from resiliparse.parse.html import HTMLTree

        def resiliparse(html, url):
            text = html if isinstance(html, str) else bytes_to_str(html, detect_encoding(html))
            return extract_plain_text(HTMLTree.parse(text), main_content=True)

        return resiliparse
    if name == "justext":
        import justext

        stop_words = frozenset().union(*(justext.get_stoplist(lang) for lang in justext.get_stoplists()))

        def jus_text(html, url):
            paragraphs = justext.justext(html, stop_words)
            return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

        return jus_text
    raise SystemExit(f"unknown system {name}")


def run_peer(name, pages, urls, reuse):
    digest = hashlib.sha1("\n".join(sorted(pages)).encode()).hexdigest()[:12]
    cache = CACHE / f"{name}-{digest}.json"
    if reuse and cache.exists():
        stored = json.loads(cache.read_text())
        return stored["outputs"], stored["seconds"]
    extract = peer_function(name)
    outputs, seconds = {}, {}
    for key, html in pages.items():
        start = time.perf_counter()
        try:
            outputs[key] = extract(html, urls.get(key))
        except Exception as err:  # a peer failing on a page scores as empty
            print(f"{name}: {key}: {err}", file=sys.stderr)
            outputs[key] = ""
        seconds[key] = time.perf_counter() - start
    CACHE.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"outputs": outputs, "seconds": seconds}))
    return outputs, seconds


def word_count(text):
    return len(TOKEN.findall(normalise(text)))


def peer_consensus_short(rows, pages):
    """The development set's short pages: the median word count of the
    peers' outputs (not webcanon's) under SHORT_WORDS."""
    peers = [name for name in rows if not name.startswith("webcanon")]
    if not peers:
        return set()
    return {
        key
        for key in pages
        if statistics.median(word_count(rows[name]["outputs"].get(key, "")) for name in peers) < SHORT_WORDS
    }


def score_subset(rows, keys, score):
    """The rows scored again on the pages `keys` only (none when there are none)."""
    subset = {}
    if not keys:
        return subset
    for name, r in rows.items():
        outputs = {k: v for k, v in r["outputs"].items() if k in keys}
        seconds = sorted(r["seconds"][k] for k in keys if k in r["seconds"])
        subset[name] = {
            **score(outputs, keys),
            "seconds_total": sum(seconds),
            "seconds_median": statistics.median(seconds) if seconds else 0.0,
            "seconds_max": seconds[-1] if seconds else 0.0,
            "output_chars": sum(len(v) for v in outputs.values()),
        }
    return subset


def run_set(label, folder, pages, urls, systems, reuse, score, before=None, webcanon=None):
    rows = {}
    for name in systems:
        print(f"[{label}] {name} on {len(pages)} pages ...", file=sys.stderr)
        if name == "webcanon":
            outputs, seconds = run_webcanon(folder, urls, webcanon)
        elif name == "webcanon_before":
            outputs, seconds = run_webcanon(folder, urls, before)
        else:
            outputs, seconds = run_peer(name, pages, urls, reuse)
        times = sorted(seconds.values())
        chars = sum(len(outputs.get(k, "")) for k in pages)
        rows[name] = {
            **score(outputs),
            "seconds_total": sum(times),
            "seconds_median": statistics.median(times),
            "seconds_max": times[-1],
            "output_chars": chars,
            "outputs": outputs,
            "seconds": seconds,
        }
    return rows


def print_table(label, rows, with_accuracy):
    print(f"\n{label}")
    head = f"{'system':<12} {'F1':>6} {'prec':>6} {'recall':>6}"
    head += f" {'acc':>6}" if with_accuracy else ""
    head += f" {'ms/page med':>11} {'max ms':>8} {'time vs traf.':>13} {'chars':>10}"
    print(head)
    base = rows.get("trafilatura", {}).get("seconds_total")
    for name, r in rows.items():
        line = f"{name:<12} {r['f1']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f}"
        line += f" {r['accuracy']:6.3f}" if with_accuracy else ""
        ratio = f"{r['seconds_total'] / base:.2f}x" if base else "-"
        line += f" {r['seconds_median'] * 1000:11.1f} {r['seconds_max'] * 1000:8.0f} {ratio:>13} {r['output_chars']:>10}"
        print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dev", type=Path, default=ROOT.parent / "shared" / "corpus" / "extraction")
    parser.add_argument("--truth", type=Path, help="a folder with html/ and ground-truth.json")
    parser.add_argument("--systems", default=",".join(ALL_SYSTEMS))
    parser.add_argument("--reuse-peers", action="store_true", help="reuse peer outputs of an earlier run (no timing)")
    parser.add_argument("--json", type=Path, help="write scores and outputs here")
    parser.add_argument("--before", type=Path, help="an extract_pages binary of an earlier webcanon, run as webcanon_before")
    parser.add_argument("--webcanon", type=Path,
                        help="the extract_pages binary run as webcanon (default: built in release mode); "
                             "scores do not depend on the build, times do")
    args = parser.parse_args()
    systems = [s for s in args.systems.split(",") if s]
    if args.before:
        systems.insert(0, "webcanon_before")
    report = {}

    snippets = json.loads((args.dev / "snippets.json").read_text())
    pages = read_pages(args.dev / "pages")
    urls = {k: v.get("url") for k, v in snippets.items()}
    snippets = {k: v for k, v in snippets.items() if k in pages}
    rows = run_set("dev", args.dev / "pages", pages, urls, systems, args.reuse_peers,
                   lambda out: prf(*snippet_counts(out, snippets)), args.before, args.webcanon)
    print_table(f"Development set: {len(pages)} pages, snippets in/out", rows, True)
    short = peer_consensus_short(rows, pages)
    short_rows = score_subset(rows, short, lambda out, keys: prf(*snippet_counts(out, {k: snippets[k] for k in keys if k in snippets})))
    print_table(f"Development set, short pages (peers' median under {SHORT_WORDS} words): {len(short)} pages", short_rows, True)
    report["dev"] = rows
    report["dev_short"] = {"pages": sorted(short), "rows": short_rows}

    if args.truth:
        truth = json.loads((args.truth / "ground-truth.json").read_text())
        pages = read_pages(args.truth / "html")
        urls = {k: v.get("url") for k, v in truth.items()}
        truth = {k: v for k, v in truth.items() if k in pages}
        rows = run_set("truth", args.truth / "html", pages, urls, systems, args.reuse_peers,
                       lambda out: shingle_scores(out, truth), args.before, args.webcanon)
        print_table(f"Full-text set: {len(pages)} pages, word 4-shingles", rows, False)
        short = {k for k, v in truth.items() if len(TOKEN.findall(v.get("articleBody", ""))) < SHORT_WORDS}
        short_rows = score_subset(rows, short, lambda out, keys: shingle_scores(out, {k: truth[k] for k in keys}))
        print_table(f"Full-text set, short pages (article body under {SHORT_WORDS} words): {len(short)} pages", short_rows, False)
        report["truth"] = rows
        report["truth_short"] = {"pages": sorted(short), "rows": short_rows}

    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
