"""trafilatura's focused crawler on the synthetic web: one
`focused_crawler` per site (it crawls one website from its home page,
reading robots.txt with urllib.robotparser), CONCURRENCY sites at once on
threads. Its default pause between pages (SLEEP_TIME, 5 s where robots.txt
sets no Crawl-delay) is set to 0, as the other crawlers have none; it has
no depth limit, so each site's crawl stops after twice the site's pages.
Its SSRF guard is turned off for loopback, as webcanon's is with
--allow-private.

    python trafilatura_peer.py SEEDS_FILE AGENT CONCURRENCY PAGES_PER_SITE

Prints one line: pages=N seconds=S.
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from copy import deepcopy

from trafilatura.settings import DEFAULT_CONFIG
from trafilatura.spider import focused_crawler


def main():
    seeds_file, agent, concurrency, pages_per_site = sys.argv[1:5]
    with open(seeds_file) as seeds:
        homepages = [line.strip() for line in seeds if line.strip()]
    config = deepcopy(DEFAULT_CONFIG)
    config.set("DEFAULT", "USER_AGENTS", f"{agent}/1.0")
    config.set("DEFAULT", "SLEEP_TIME", "0")
    # The synthetic web is on loopback, which its SSRF guard refuses.
    config.set("DEFAULT", "SSRF_PROTECTION", "off")
    max_seen = 2 * int(pages_per_site)

    def crawl(homepage):
        to_visit, known = focused_crawler(homepage, max_seen_urls=max_seen, config=config)
        return len(known) - len(to_visit)

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=int(concurrency)) as pool:
        pages = sum(pool.map(crawl, homepages))
    print(f"pages={pages} seconds={time.monotonic() - started:.3f}")


if __name__ == "__main__":
    main()
