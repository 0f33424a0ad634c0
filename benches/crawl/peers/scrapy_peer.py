"""Scrapy crawling the synthetic web: a CrawlSpider seeded with every
site's home page, following links within the page's own origin, breadth
first, with ROBOTSTXT_OBEY = True and Scrapy's default robots.txt parser
(Protego), at most CONCURRENCY requests at once and one per host.

    python scrapy_peer.py SEEDS_FILE AGENT CONCURRENCY MAX_DEPTH

Prints one line: pages=N seconds=S.
"""

import sys
import time
from urllib.parse import urlsplit

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


def same_origin(request, response):
    """Keep a followed link only if it stays on the page's origin."""
    if urlsplit(request.url).netloc == urlsplit(response.url).netloc:
        return request
    return None


class SyntheticWebSpider(CrawlSpider):
    name = "synthetic_web"
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True, process_request=same_origin),)
    pages = 0

    def parse_start_url(self, response):
        return self.parse_page(response)

    def parse_page(self, response):
        SyntheticWebSpider.pages += 1
        yield {"url": response.url, "title": response.css("title::text").get()}


def main():
    seeds_file, agent, concurrency, max_depth = sys.argv[1:5]
    with open(seeds_file) as seeds:
        start_urls = [line.strip() for line in seeds if line.strip()]
    process = CrawlerProcess(
        settings={
            "USER_AGENT": f"{agent}/1.0",
            "ROBOTSTXT_OBEY": True,
            "ROBOTSTXT_USER_AGENT": agent,
            "CONCURRENT_REQUESTS": int(concurrency),
            "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
            "DEPTH_LIMIT": int(max_depth),
            # Breadth first, as Scrapy's documentation sets it.
            "DEPTH_PRIORITY": 1,
            "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
        }
    )
    started = time.monotonic()
    process.crawl(SyntheticWebSpider, start_urls=start_urls)
    process.start()
    print(f"pages={SyntheticWebSpider.pages} seconds={time.monotonic() - started:.3f}")


if __name__ == "__main__":
    main()
