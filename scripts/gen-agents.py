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
    ("Screaming Frog SEO Spider", "Screaming Frog", "seo", "", "Desktop SEO crawler; its product token is `Screaming`.", RFC),
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


def main():
    rows = [r for r in CURATED]
    seen = {r[0].lower() for r in rows}
    data = json.loads(CORPUS.read_text())
    for token, info in sorted(data.items(), key=lambda kv: kv[0].lower()):
        if token.lower() in seen:
            continue
        seen.add(token.lower())
        operator = clean(info.get("operator", ""))
        if operator.lower().startswith("unclear"):
            operator = ""
        description = clean(info.get("description", ""))
        if description.lower().startswith("unclear"):
            description = ""
        description = description[:200]
        rows.append((token, operator, category(info.get("function", "")), "", description,
                     "ai.robots.txt robots.json (MIT)"))
    with OUT.open("w") as out:
        out.write("# token\toperator\tcategory\tsuccessor\tdescription\tsource\n")
        for row in rows:
            out.write("\t".join(clean(c) for c in row) + "\n")
    print(f"wrote {len(rows)} agents to {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
