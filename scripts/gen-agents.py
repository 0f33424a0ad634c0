#!/usr/bin/env python3
"""Builds crates/webcanon-core/src/agents/agents.tsv, the known-agents registry.

Sources, in order of precedence:
1. the curated list below (seed 003's token lists, seed 004 §2, operators' docs);
2. ai.robots.txt's robots.json (MIT), in ../shared/corpus/agents/, for every
   other AI token, its category mapped from the `function` field.

Run from the repository root: python3 scripts/gen-agents.py
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "agents" / "ai-robots-txt__robots.json"
OUT = ROOT / "crates" / "webcanon-core" / "src" / "agents" / "agents.tsv"

GOOGLE = "https://developers.google.com/search/docs/crawling-indexing/google-common-crawlers"
OPENAI = "https://platform.openai.com/docs/bots"
ANTHROPIC = "https://support.anthropic.com/en/articles/8896518"
APPLE = "https://support.apple.com/en-us/119829"
PERPLEXITY = "https://docs.perplexity.ai/guides/bots"
META = "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers"
RFC = "seed 003 (known user-agent tokens)"

# Operators that publish a Web Bot Auth key directory (the public keys their
# agents sign requests with, draft-meunier-http-message-signatures-directory),
# each with the public source that says so. Every agent of such an operator
# gets the directory's URL in the `key_directory` column; every other agent
# gets none: an operator is listed here only on a public source.
KEY_DIRECTORIES = {
    "OpenAI": (
        "https://chatgpt.com/.well-known/http-message-signatures-directory",
        "https://blog.castle.io/how-to-authenticate-openai-operator-requests-using-http-message-signatures",
    ),
}

# token, operator, category, successor, description, source
CURATED = [
    # Search and platform crawlers (seed 003).
    ("Googlebot", "Google", "search", "", "Google Search crawler.", GOOGLE),
    ("Googlebot-Image", "Google", "search", "", "Google Images crawler.", GOOGLE),
    ("Googlebot-News", "Google", "search", "", "Google News crawler.", GOOGLE),
    ("Googlebot-Video", "Google", "search", "", "Google video crawler.", GOOGLE),
    ("Storebot-Google", "Google", "search", "", "Google Shopping crawler.", GOOGLE),
    ("Google-InspectionTool", "Google", "search", "", "Search Console testing tools.", GOOGLE),
    ("GoogleOther", "Google", "search", "", "Catch-all for one-off Google fetches (research, development).", GOOGLE),
    ("GoogleOther-Image", "Google", "search", "", "GoogleOther for images.", GOOGLE),
    ("GoogleOther-Video", "Google", "search", "", "GoogleOther for video.", GOOGLE),
    ("Google-CloudVertexBot", "Google", "ai-search", "", "Crawls on site owners' request for Vertex AI agents.", GOOGLE),
    ("Google-Extended", "Google", "opt-out-token", "", "Not a crawler: opting out keeps content out of Gemini and Vertex AI training and grounding; Search is unaffected.", GOOGLE),
    ("APIs-Google", "Google", "search", "", "Google APIs push-notification delivery.", GOOGLE),
    ("AdsBot-Google", "Google", "search", "", "Google Ads landing-page quality checks.", GOOGLE),
    ("Mediapartners-Google", "Google", "search", "", "Google AdSense crawler.", GOOGLE),
    ("Bingbot", "Microsoft", "search", "", "Bing Search crawler; also grounds Copilot.", "seed 004 §2.6"),
    ("BingPreview", "Microsoft", "search", "", "Bing page previews.", RFC),
    ("Applebot", "Apple", "search", "", "Apple crawler for Spotlight, Siri and Safari suggestions.", APPLE),
    ("Applebot-Extended", "Apple", "opt-out-token", "", "Not a crawler: opting out keeps content out of Apple Intelligence training.", APPLE),
    ("DuckDuckBot", "DuckDuckGo", "search", "", "DuckDuckGo search index; used by DuckAssist.", "seed 004 §2.6"),
    ("Baiduspider", "Baidu", "search", "", "Baidu search crawler.", RFC),
    ("YandexBot", "Yandex", "search", "", "Yandex search crawler.", RFC),
    ("YandexImages", "Yandex", "search", "", "Yandex image search crawler.", RFC),
    ("KagiBot", "Kagi", "search", "", "Kagi search crawler.", RFC),
    ("MojeekBot", "Mojeek", "search", "", "Mojeek search crawler.", RFC),
    ("PetalBot", "Huawei", "search", "", "Petal Search crawler.", RFC),
    ("Qwantify", "Qwant", "search", "", "Qwant search crawler.", RFC),
    ("SeznamBot", "Seznam", "search", "", "Seznam search crawler.", RFC),
    ("Slurp", "Yahoo", "search", "", "Yahoo search crawler.", RFC),
    ("Sogou", "Sogou", "search", "", "Sogou search crawler.", RFC),
    ("Yeti", "Naver", "search", "", "Naver search crawler.", RFC),
    # AI crawlers (seed 003, seed 004 §2).
    ("GPTBot", "OpenAI", "ai-training", "", "OpenAI's training crawler.", OPENAI),
    ("OAI-SearchBot", "OpenAI", "ai-search", "", "Indexes pages for ChatGPT search results.", OPENAI),
    ("ChatGPT-User", "OpenAI", "ai-user-fetch", "", "Fetches a page when a ChatGPT user asks for it.", OPENAI),
    ("OAI-AdsBot", "OpenAI", "ai-search", "", "Checks landing pages of ads shown in ChatGPT.", OPENAI),
    ("ClaudeBot", "Anthropic", "ai-training", "", "Anthropic's training crawler.", ANTHROPIC),
    ("Claude-SearchBot", "Anthropic", "ai-search", "", "Indexes pages for Claude's web search.", ANTHROPIC),
    ("Claude-User", "Anthropic", "ai-user-fetch", "", "Fetches a page when a Claude user asks for it.", ANTHROPIC),
    ("anthropic-ai", "Anthropic", "legacy", "ClaudeBot", "Old Anthropic token; Anthropic now uses ClaudeBot.", "seed 004 §2.2"),
    ("Claude-Web", "Anthropic", "legacy", "Claude-User", "Old Anthropic token; Anthropic now uses Claude-User and Claude-SearchBot.", "seed 004 §2.2"),
    ("PerplexityBot", "Perplexity", "ai-search", "", "Perplexity's search index crawler.", PERPLEXITY),
    ("Perplexity-User", "Perplexity", "ai-user-fetch", "", "Fetches a page when a Perplexity user asks for it.", PERPLEXITY),
    ("CCBot", "Common Crawl", "ai-training", "", "Common Crawl's crawler; its open dataset trains most open models.", "https://commoncrawl.org/ccbot"),
    ("Bytespider", "ByteDance", "ai-training", "", "ByteDance's crawler for Doubao and other models.", "seed 004 §2.6"),
    ("meta-externalagent", "Meta", "ai-training", "", "Meta's crawler for AI training and products.", META),
    ("meta-externalfetcher", "Meta", "ai-user-fetch", "", "Fetches a page when a Meta AI user asks for it.", META),
    ("FacebookBot", "Meta", "legacy", "meta-externalagent", "Old Meta crawler for AI speech models; replaced by meta-externalagent for AI purposes.", "seed 004 §2.6"),
    ("Amazonbot", "Amazon", "ai-search", "", "Amazon crawler for Alexa answers and AI products.", "seed 004 §2.6"),
    ("Diffbot", "Diffbot", "ai-training", "", "Structured-data extraction used as a source by many AI products.", "seed 004 §2.6"),
    ("cohere-ai", "Cohere", "ai-training", "", "Cohere's crawler.", RFC),
    ("ImagesiftBot", "ImageSift", "ai-training", "", "Image crawler whose data is sold for AI.", RFC),
    ("YouBot", "You.com", "ai-search", "", "You.com's search crawler.", RFC),
    ("omgili", "Webz.io", "ai-training", "", "Webz.io crawler; data sold for AI training.", RFC),
    ("omgilibot", "Webz.io", "ai-training", "", "Webz.io crawler; data sold for AI training.", RFC),
    # SEO and commercial crawlers (seed 003).
    ("AhrefsBot", "Ahrefs", "seo", "", "Ahrefs backlink crawler.", RFC),
    ("DataForSeoBot", "DataForSEO", "seo", "", "DataForSEO crawler.", RFC),
    ("DotBot", "Moz", "seo", "", "Moz link index crawler.", RFC),
    ("MJ12bot", "Majestic", "seo", "", "Majestic link index crawler.", RFC),
    ("SemrushBot", "Semrush", "seo", "", "Semrush crawler.", RFC),
    ("Screaming", "Screaming Frog", "seo", "", "Screaming Frog SEO Spider, a desktop SEO crawler; a `User-agent: Screaming Frog SEO Spider` line names the product token `Screaming`.", RFC),
]

FUNCTION_CATEGORIES = [
    (r"ai assistants|ai agents|ai coding agents|assistant|on behalf of|user", "ai-user-fetch"),
    (r"search", "ai-search"),
    (r"train|scrap|data|llm|dataset|model", "ai-training"),
]


def clean(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text or "")
    text = " ".join(text.split())
    return text.replace("\t", " ")


def category(function):
    f = function.lower()
    if f.startswith("ai search crawlers"):
        return "ai-search"
    if f.startswith(("ai data scrapers", "ai data providers", "undocumented ai agents")):
        return "ai-training"
    for pattern, cat in FUNCTION_CATEGORIES:
        if re.search(pattern, f):
            return cat
    return "ai-training"


# robots.txt product tokens (RFC 9309 §2.2.1; the rule of
# webcanon_client::agent::ProductToken): a row whose token is not one is
# either repaired below or dropped.
PRODUCT_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")

# A version written after the token (`MistralAI-User/1.0`, `Brightbot 1.0`):
# the product token is what comes before it.
VERSION_SUFFIX = re.compile(r"^([A-Za-z0-9_-]+)(?:/| )\d[\d.]*$")

# Operators the corpus marks "Unclear", taken from its own description of
# the agent: each quote must appear in that description (checked below), so
# nothing here goes beyond the data.
OPERATOR_FROM_DESCRIPTION = {
    "AddSearchBot": ("AddSearch", "AddSearch's AI-powered site search"),
    "amazon-QBusiness": ("Amazon", "an Amazon Q Business web crawler"),
    "ApifyBot": ("Apify", "crawler by Apify"),
    "ApifyWebsiteContentCrawler": ("Apify", "crawler by Apify"),
    "Brightbot": ("Bright Data", "crawler by Bright Data"),
    "Claude-Code": ("Anthropic", "AI coding agent by Anthropic"),
    "CloudVertexBot": ("Google", "a Google-operated crawler"),
    "Code": ("GitHub", "Code (GitHub Copilot)"),
    "DuckAssistBot": ("DuckDuckGo", "DuckDuckGo's AI-assisted answers"),
    "ExaBot": ("Exa", "Exa's AI search engine"),
    "Gemini-Deep-Research": ("Google", "Google Gemini's Deep Research feature"),
    "Google-Agent": ("Google", "agents hosted on Google infrastructure"),
    "Google-Gemini-CLI": ("Google", "AI coding agent by Google"),
    "HenkBot": ("Valyu", "on behalf of Valyu"),
    "LinerBot": ("Liner", "used by Liner AI assistant"),
    "NovaAct": ("Amazon", "created by Amazon"),
    "Operator": ("OpenAI", "created by OpenAI"),
    "Shap-User": ("Parallel Web Systems", "users of Parallel Web Systems products"),
    "TavilyBot": ("Tavily", "crawler by Tavily"),
    "Trae": ("ByteDance", "developed by ByteDance"),
    "UseAI": ("Use AI", "associated with Use AI"),
    "Webzio-Extended": ("Webz.io", "used by Webz.io"),
}

# Operators the corpus gives as a documentation URL: the site's owner, as
# the URL names it.
OPERATOR_FROM_URL = {
    "Bravebot": ("Brave", "https://safe.search.brave.com/help/brave-search-crawler"),
    "Brightbot 1.0": ("Bright Data", "https://brightdata.com/brightbot"),
}

# Operators from arcjet's well-known-bots.json (the corpus's other registry),
# whose `url` for the same crawler names its operator.
OPERATOR_FROM_ARCJET = {
    "LCC": ("Leipzig University", "leipzig-lcc", "http://corpora.informatik.uni-leipzig.de/crawler_faq.html"),
}
ARCJET = ROOT.parent / "shared" / "corpus" / "agents" / "arcjet__well-known-bots.json"

# Rows of the corpus that cannot be made right from the data at hand: they
# are left out rather than shipped with a guessed operator or a token no
# crawler matches.
DROPPED = {
    # Not product tokens, and the data does not say which token the crawler matches.
    "bigsur.ai": "not a product token (a domain name)",
    "panscient.com": "not a product token (a domain name)",
    "quillbot.com": "not a product token (a domain name)",
    "ChatGPT Agent": "not a product token (two words)",
    "Datenbank Crawler": "not a product token (two words)",
    "Echobot Bot": "not a product token (two words)",
    "Kangaroo Bot": "not a product token (two words)",
    "Linguee Bot": "not a product token (two words)",
    "netEstate Imprint Crawler": "not a product token (three words)",
    "Poseidon Research Crawler": "not a product token (three words)",
    "Sidetrade indexer bot": "not a product token (three words)",
    "Terra Cotta": "not a product token (two words)",
    # No operator anywhere in the data.
    "Amzn-SearchBot": "no operator and no description in the data",
    "Aranet-SearchBot": "no operator and no description in the data",
    "AzureAI-SearchBot": "no operator and no description in the data",
    "Channel3Bot": "no operator and no description in the data",
    "ChatGLM-Spider": "no operator and no description in the data",
    "Crawl4AI": "no operator and no description in the data",
    "iAskBot": "no operator and no description in the data",
    "imageSpider": "no operator and no description in the data",
    "KunatoCrawler": "no operator and no description in the data",
    "laion-huggingface-processor": "no operator and no description in the data",
    "LinkupBot": "no operator and no description in the data",
    "Spider": "no operator and no description in the data",
    "WRTNBot": "no operator and no description in the data",
    "ZanistaBot": "no operator and no description in the data",
    "Cursor": "the description names no operator",
    "NotebookLM": "the description names no operator",
    "Google-NotebookLM": "the description names no operator",
    "opencode": "the description names no operator (open source)",
    "MyCentralAIScraperBot": "the data says its operator is unclear",
    "newsai": "the data says several sites use the name",
    "Lightpanda": "the data says anyone running the client is its operator",
}

# The name at the head of an operator field that goes on to describe
# ("Cohere to download training data…", "Ai2, a non-profit…").
OPERATOR_CLAUSE = re.compile(r"^(.+?)(?:,| that | to | \(| used ).*$")

MORE_INFO = re.compile(r"\s*More info can be found at (https?://\S+)")


def operator_name(token, raw, description):
    """The operator of a corpus row, or "" when the data does not say."""
    if token in OPERATOR_FROM_URL:
        name, url = OPERATOR_FROM_URL[token]
        assert raw == url, f"{token}: the corpus operator is {raw!r}, not {url!r}"
        return name
    if token in OPERATOR_FROM_DESCRIPTION:
        name, quote = OPERATOR_FROM_DESCRIPTION[token]
        assert quote in description, f"{token}: {quote!r} is not in its description"
        return name
    if token in OPERATOR_FROM_ARCJET:
        name, bot_id, url = OPERATOR_FROM_ARCJET[token]
        bots = {b["id"]: b for b in json.loads(ARCJET.read_text())}
        assert bots[bot_id].get("url") == url, f"{token}: arcjet {bot_id} has no url {url}"
        return name
    operator = clean(raw)
    if operator.lower().startswith("unclear"):
        return ""
    match = OPERATOR_CLAUSE.match(operator)
    return match.group(1).strip() if match else operator


def split_description(raw):
    """The description without knownagents.com's placeholder, and the URL of
    the agent's page it links to (or "")."""
    text = clean(raw)
    more = MORE_INFO.search(text)
    url = more.group(1) if more else ""
    text = MORE_INFO.sub("", text).strip()
    if text.lower().startswith(("unclear", "description unavailable")):
        text = ""
    if len(text) > 200:
        text = text[:199].rstrip() + "…"
    return text, url


def corpus_rows(seen):
    """Rows for the corpus's tokens that the curated list does not have."""
    data = json.loads(CORPUS.read_text())
    rows = {}
    for raw_token, info in sorted(data.items(), key=lambda kv: kv[0].lower()):
        if raw_token in DROPPED:
            print(f"dropped {raw_token}: {DROPPED[raw_token]}", file=sys.stderr)
            continue
        versioned = VERSION_SUFFIX.match(raw_token)
        token = versioned.group(1) if versioned else raw_token
        assert PRODUCT_TOKEN.fullmatch(token), f"{raw_token}: not a product token; repair or drop it"
        if token.lower() in seen:
            continue
        description, more = split_description(info.get("description", ""))
        operator = operator_name(raw_token, info.get("operator", ""), clean(info.get("description", "")))
        source = "ai.robots.txt robots.json (MIT)" + (f"; {more}" if more else "")
        if raw_token in OPERATOR_FROM_ARCJET:
            source += f"; arcjet well-known-bots.json (MIT): {OPERATOR_FROM_ARCJET[raw_token][2]}"
        row = [token, operator, category(info.get("function", "")), "", description, source]
        key = token.lower()
        if key in rows:
            # The same crawler listed with and without its version: one row,
            # the missing facts filled from the other.
            kept = rows[key]
            if not kept[1]:
                kept[1], kept[2] = row[1], row[2]
            kept[4] = kept[4] or row[4]
            continue
        rows[key] = row
    for row in rows.values():
        assert row[1], f"{row[0]}: no operator; find it in the data or drop the row"
    return list(rows.values())


def main():
    rows = [list(r) for r in CURATED]
    seen = {r[0].lower() for r in rows}
    rows.extend(corpus_rows(seen))
    for row in rows:
        directory, evidence = KEY_DIRECTORIES.get(row[1], ("", ""))
        if directory:
            row[5] += f"; key directory: {evidence}"
        row.append(directory)
    with OUT.open("w") as out:
        out.write("# token\toperator\tcategory\tsuccessor\tdescription\tsource\tkey_directory\n")
        for row in rows:
            out.write("\t".join(clean(c) for c in row) + "\n")
    print(f"wrote {len(rows)} agents to {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
