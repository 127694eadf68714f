"""SieveDupeFilter as Scrapy 2.8's RFPDupeFilter behaves, no
network: made through from_crawler -> from_settings (a subclass overriding
either is honoured), DUPEFILTER_DEBUG, the request fingerprinter the
settings name, JOBDIR persistence (in JOBDIR/sieve-dupefilter, not
requests.seen: docs/embedding.md), and the log lines in RFPDupeFilter's
words under its logger "scrapy.dupefilters"."""
import hashlib
import logging

from scrapy.http import Request
from scrapy.spiders import Spider
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

from crawl_sieve.scrapy_sieve import SieveDupeFilter

BASE = {"REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "SCHEDULER": "crawl_sieve.scrapy_sieve.SieveScheduler",
        "DUPEFILTER_CLASS": "crawl_sieve.scrapy_sieve.SieveDupeFilter",
        "SIEVE_EXPECTED_COUNT": 100_000}


class FromCrawler(SieveDupeFilter):
    @classmethod
    def from_crawler(cls, crawler):
        dupefilter = super().from_crawler(crawler)
        dupefilter.method = "from_crawler"
        return dupefilter


class FromSettings(SieveDupeFilter):
    @classmethod
    def from_settings(cls, settings, *, fingerprinter=None):
        dupefilter = super().from_settings(settings, fingerprinter=fingerprinter)
        dupefilter.method = "from_settings"
        return dupefilter


class Direct:
    method = "n/a"


def scheduler(settings=None, spidercls=Spider):
    crawler = get_crawler(spidercls, dict(BASE, **(settings or {})))
    return crawler, load_object(crawler.settings["SCHEDULER"]).from_crawler(crawler)


def dupefilter(settings=None):
    crawler, made = scheduler(settings)
    made.df.open()
    return crawler, made.df


def test_the_scheduler_makes_its_dupefilter_as_scrapy_does():
    for cls, method in ((FromCrawler, "from_crawler"), (FromSettings, "from_settings")):
        _, made = scheduler({"DUPEFILTER_DEBUG": True, "DUPEFILTER_CLASS": cls})
        assert made.df.debug
        assert made.df.method == method
    _, made = scheduler({"DUPEFILTER_CLASS": Direct})
    assert made.df.method == "n/a"


def test_filter():
    _, df = dupefilter()
    r1, r2 = Request("http://scrapytest.org/1"), Request("http://scrapytest.org/2")
    assert not df.request_seen(r1)
    assert df.request_seen(r1)
    assert not df.request_seen(r2)
    assert df.request_seen(Request("http://scrapytest.org/2"))
    df.close("finished")


def test_jobdir_keeps_the_seen_set(tmp_path):
    r1, r2 = Request("http://scrapytest.org/1"), Request("http://scrapytest.org/2")
    _, df = dupefilter({"JOBDIR": str(tmp_path)})
    assert not df.request_seen(r1)
    df.close("finished")
    assert (tmp_path / "sieve-dupefilter" / "sieve.checkpoint").exists()
    assert not (tmp_path / "requests.seen").exists()
    _, df2 = dupefilter({"JOBDIR": str(tmp_path)})
    assert df2.request_seen(r1)
    assert not df2.request_seen(r2)
    df2.close("finished")


def test_the_settings_request_fingerprinter_decides():
    r1 = Request("http://scrapytest.org/index.html")
    r2 = Request("http://scrapytest.org/INDEX.html")
    _, df = dupefilter()
    assert not df.request_seen(r1)
    assert not df.request_seen(r2)

    class CaseInsensitive:
        def fingerprint(self, request):
            return hashlib.sha1(request.url.lower().encode()).digest()

    _, df = dupefilter({"REQUEST_FINGERPRINTER_CLASS": CaseInsensitive})
    assert not df.request_seen(r1)
    assert df.request_seen(r2)


class NamedSpider(Spider):
    name = "named"


def logged(caplog):
    return [(r.name, r.levelname, r.getMessage()) for r in caplog.records
            if r.name == "scrapy.dupefilters"]


def test_log_once_without_debug(caplog):
    caplog.set_level(logging.DEBUG, logger="scrapy.dupefilters")
    crawler, df = dupefilter({"DUPEFILTER_CLASS": FromCrawler})
    spider = NamedSpider.from_crawler(crawler)
    df.log(Request("http://scrapytest.org/index.html"), spider)
    df.log(Request("http://scrapytest.org/index.html"), spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 2
    assert logged(caplog) == [(
        "scrapy.dupefilters", "DEBUG",
        "Filtered duplicate request: <GET http://scrapytest.org/index.html> - no more "
        "duplicates will be shown (see DUPEFILTER_DEBUG to show all duplicates)")]


def test_log_every_duplicate_with_its_referer_with_debug(caplog):
    caplog.set_level(logging.DEBUG, logger="scrapy.dupefilters")
    crawler, df = dupefilter({"DUPEFILTER_DEBUG": True})
    spider = NamedSpider.from_crawler(crawler)
    df.log(Request("http://scrapytest.org/index.html"), spider)
    df.log(Request("http://scrapytest.org/index.html",
                   headers={"Referer": "http://scrapytest.org/INDEX.html"}), spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 2
    assert logged(caplog) == [
        ("scrapy.dupefilters", "DEBUG",
         "Filtered duplicate request: <GET http://scrapytest.org/index.html> (referer: None)"),
        ("scrapy.dupefilters", "DEBUG",
         "Filtered duplicate request: <GET http://scrapytest.org/index.html>"
         " (referer: http://scrapytest.org/INDEX.html)")]


def test_made_from_settings_alone_it_counts_in_the_spiders_crawler_stats():
    crawler = get_crawler(NamedSpider, BASE)
    spider = NamedSpider.from_crawler(crawler)
    df = SieveDupeFilter.from_settings(crawler.settings)  # no crawler, no fingerprinter
    df.log(Request("http://scrapytest.org/1"), spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 1
    assert not df.request_seen(Request("http://scrapytest.org/1"))
    assert df.request_seen(Request("http://scrapytest.org/1"))
    df.close("finished")
