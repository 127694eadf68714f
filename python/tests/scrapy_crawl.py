"""A Scrapy crawl of testsite, run as its own process by test_scrapy.py and
bench/scrapy-sieve (one Twisted reactor per process).

    python3 scrapy_crawl.py ROOT_URL OUT_JSON [--sieve] [--jobdir DIR]
        [--stop-after N] [--concurrency C]

Follows every link on the root's host; writes {"fetched": [urls], "stats": {...}}.
--sieve: SCHEDULER and DUPEFILTER_CLASS are crawl_sieve's; --dupefilter-only:
DUPEFILTER_CLASS only; else Scrapy's defaults.
--stop-after N: closes the spider after N responses (CLOSESPIDER_PAGECOUNT),
as a Ctrl-C would, so that JOBDIR keeps the state.
--depth-priority D: Scrapy's DEPTH_PRIORITY; --prefer-every K: the pages
/p/N.html with N % K == 0 (a "section") are requested at priority 100;
--fifo: FIFO within a priority (Scrapy's FIFO queues), else Scrapy's LIFO.
--record: the scheduler's calls go to the output as "ops" (enqueue: ["e",
url, priority, dont_filter, accepted]; next_request: ["n", url or None]), for
bench/scrapy-sieve to replay them through another scheduler."""
import argparse
import json
import sys
from urllib.parse import urlparse

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import TextResponse


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, root, fetched, prefer_every=0, **kw):
        super().__init__(**kw)
        self.start_urls = [root]
        self.allowed_domains = [urlparse(root).hostname]
        self.fetched = fetched
        self.prefer_every = prefer_every

    def priority(self, url):
        if self.prefer_every:
            name = urlparse(url).path.rsplit("/", 1)[-1]
            if name.endswith(".html") and name[:-5].isdigit():
                return 100 if int(name[:-5]) % self.prefer_every == 0 else 0
        return 0

    def start_requests(self):
        # Filtered like any link (Scrapy's start requests are dont_filter):
        # the root is fetched once, and not again when a JOBDIR run resumes.
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response):
        self.fetched.append(response.url)
        if not isinstance(response, TextResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if url.startswith(("http://", "https://")):  # not mailto:, javascript:
                yield scrapy.Request(url, callback=self.parse, priority=self.priority(url))


def recording(scheduler_cls, ops):
    """scheduler_cls, with its calls appended to ops."""
    class Recording(scheduler_cls):
        def enqueue_request(self, request):
            accepted = super().enqueue_request(request)
            ops.append(["e", request.url, request.priority, request.dont_filter, accepted])
            return accepted

        def next_request(self):
            request = super().next_request()
            ops.append(["n", request.url if request is not None else None])
            return request
    return Recording


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("out")
    parser.add_argument("--sieve", action="store_true")
    parser.add_argument("--dupefilter-only", action="store_true")
    parser.add_argument("--jobdir")
    parser.add_argument("--stop-after", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--depth-priority", type=int, default=0)
    parser.add_argument("--prefer-every", type=int, default=0)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--fifo", action="store_true",
                        help="FIFO within a priority (Scrapy's FIFO queues), else LIFO")
    args = parser.parse_args()
    settings = {
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": args.log_level,
        "TELNETCONSOLE_ENABLED": False,
        "CONCURRENT_REQUESTS": args.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency,
        "DOWNLOAD_DELAY": 0,
        "RETRY_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "CLOSESPIDER_PAGECOUNT": args.stop_after,
        "DEPTH_PRIORITY": args.depth_priority,
    }
    if args.fifo:
        settings.update({"SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
                         "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue"})
    if args.sieve:
        settings.update({
            "SCHEDULER": "crawl_sieve.scrapy_sieve.SieveScheduler",
            "DUPEFILTER_CLASS": "crawl_sieve.scrapy_sieve.SieveDupeFilter",
            "SIEVE_EXPECTED_COUNT": 1_000_000,
            "SIEVE_FP_RATE": 1e-7,  # the test asserts every page: no false drop
        })
    if args.dupefilter_only:  # Scrapy's scheduler, the Sieve's dupefilter
        settings.update({
            "DUPEFILTER_CLASS": "crawl_sieve.scrapy_sieve.SieveDupeFilter",
            "SIEVE_EXPECTED_COUNT": 1_000_000,
            "SIEVE_FP_RATE": 1e-7,
        })
    if args.jobdir:
        settings["JOBDIR"] = args.jobdir
    ops = []
    if args.record:
        from scrapy.utils.misc import load_object
        settings["SCHEDULER"] = recording(
            load_object(settings.get("SCHEDULER", "scrapy.core.scheduler.Scheduler")), ops)
    fetched = []
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, root=args.root, fetched=fetched, prefer_every=args.prefer_every)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items()
             if isinstance(v, (int, float, str))}
    with open(args.out, "w") as f:
        json.dump({"fetched": fetched, "stats": stats, "ops": ops}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
