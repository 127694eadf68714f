"""SieveScheduler against Scrapy's scheduler, no network.

The source of truth is Scrapy 2.8's own Scheduler with its default
SCHEDULER_PRIORITY_QUEUE, run side by side on the same requests: the Sieve's
order must be Scrapy's, request for request (Request.priority: "requests
with a higher priority value will execute earlier"; within a priority the
SCHEDULER_MEMORY_QUEUE / SCHEDULER_DISK_QUEUE class decides, LIFO by
default). The rest are our own choices, documented in docs/embedding.md:
other priority queues refused at open, priorities clamped to 32 bits, the
bound on distinct priorities, no timer left behind by a failed open.
Scrapy's own test modules run against these classes too:
python/tests/scrapy_upstream/run.py."""
import random

import pytest
from scrapy import signals
from scrapy.core.scheduler import BaseScheduler, Scheduler
from scrapy.dupefilters import BaseDupeFilter
from scrapy.http import Request
from scrapy.spiders import Spider
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler
from twisted.internet import reactor

from crawl_sieve import MAX_PRIORITY
from crawl_sieve.scrapy_sieve import SieveDupeFilter, SieveScheduler

BASE = {"REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"}
SIEVE = {"SCHEDULER": "crawl_sieve.scrapy_sieve.SieveScheduler",
         "DUPEFILTER_CLASS": "crawl_sieve.scrapy_sieve.SieveDupeFilter",
         "SIEVE_EXPECTED_COUNT": 100_000, "SIEVE_FP_RATE": 1e-6}
SCRAPY = {"SCHEDULER": "scrapy.core.scheduler.Scheduler"}


class Opened:
    """A scheduler the settings name, opened on a fresh crawler; reopen()
    closes it and opens another on the same settings (JOBDIR resumes)."""

    def __init__(self, settings):
        self.settings = dict(BASE, **settings)
        self.open()

    def open(self):
        self.crawler = get_crawler(Spider, self.settings)
        self.scheduler = load_object(self.crawler.settings["SCHEDULER"]).from_crawler(self.crawler)
        self.spider = Spider.from_crawler(self.crawler, name="spider")
        self.scheduler.open(self.spider)

    def close(self):
        self.scheduler.close("finished")

    def reopen(self):
        self.close()
        self.open()

    def enqueue(self, request):
        return self.scheduler.enqueue_request(request)

    def pop(self):
        request = self.scheduler.next_request()
        if request is not None:  # the engine's signal when its download ends
            self.crawler.signals.send_catch_log(signals.request_left_downloader,
                                                request=request, spider=self.spider)
        return request

    def drain(self):
        urls = []
        while self.scheduler.has_pending_requests():
            urls.append(self.pop().url)
        assert self.pop() is None
        return urls


PRIORITIES = [("http://foo.com/a", -2), ("http://foo.com/d", 1), ("http://foo.com/b", -1),
              ("http://foo.com/c", 0), ("http://foo.com/e", 2)]


@pytest.mark.parametrize("jobdir", [False, True])
def test_the_highest_priority_comes_first(tmp_path, jobdir):
    opened = Opened(dict(SIEVE, **({"JOBDIR": str(tmp_path)} if jobdir else {})))
    assert isinstance(opened.scheduler, BaseScheduler)
    for url, priority in PRIORITIES:
        assert opened.enqueue(Request(url, priority=priority))
    if jobdir:
        opened.reopen()  # the checkpoint keeps the lanes
    assert len(opened.scheduler) == 5
    priorities = []
    while opened.scheduler.has_pending_requests():
        priorities.append(opened.pop().priority)
    assert priorities == [2, 1, 0, -1, -2]
    opened.close()


QUEUES = {
    "memory LIFO (Scrapy's default)": {},
    "memory FIFO": {"SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue"},
    "disk LIFO (Scrapy's default)": {"JOBDIR": True},
    "disk FIFO": {"JOBDIR": True, "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue"},
    "disk FIFO, memory LIFO": {"JOBDIR": True,
                               "SCHEDULER_DISK_QUEUE": "scrapy.squeues.MarshalFifoDiskQueue",
                               "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.LifoMemoryQueue"},
}


def scenario(seed):
    """Rounds of enqueues (repeats, dont_filter, a few priorities, depth
    like DEPTH_PRIORITY's negatives) between a few dequeues."""
    rng = random.Random(seed)
    rounds = []
    for _ in range(30):
        batch = []
        for _ in range(rng.randrange(1, 40)):
            url = f"http://site{rng.randrange(3)}.test/{rng.randrange(300)}"
            batch.append(Request(url, priority=rng.choice([-3, -1, 0, 0, 0, 1, 5, 100]),
                                 dont_filter=rng.random() < 0.05))
        rounds.append((batch, rng.randrange(0, 30)))
    return rounds


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("queues", list(QUEUES))
def test_the_order_is_scrapys_own(tmp_path, queues, seed):
    settings = dict(QUEUES[queues])
    orders = {}
    for name, classes in (("scrapy", SCRAPY), ("sieve", SIEVE)):
        if settings.get("JOBDIR"):
            settings["JOBDIR"] = str(tmp_path / name)
        opened = Opened(dict(settings, **classes))
        order, accepted = [], []
        for i, (batch, pops) in enumerate(scenario(seed)):
            accepted.extend(opened.enqueue(r) for r in batch)
            for _ in range(pops):
                request = opened.pop()
                if request is not None:
                    order.append((request.url, request.priority))
            if settings.get("JOBDIR") and i % 10 == 9:
                opened.reopen()  # a pause and a resume
        order.extend((url, None) for url in opened.drain())
        opened.close()
        orders[name] = (order, accepted)
    assert orders["sieve"][1] == orders["scrapy"][1]  # the same requests filtered
    assert len(orders["sieve"][0]) > 300
    assert orders["sieve"][0] == orders["scrapy"][0]


def test_lifo_within_a_priority_by_default_fifo_when_asked():
    lifo = Opened(SIEVE)
    fifo = Opened(dict(SIEVE, SCHEDULER_MEMORY_QUEUE="scrapy.squeues.FifoMemoryQueue"))
    urls = [f"http://foo.com/{i}" for i in range(5)]
    for opened in (lifo, fifo):
        for url in urls:
            opened.enqueue(Request(url))
        opened.enqueue(Request("http://foo.com/first", priority=1))
    assert lifo.drain() == ["http://foo.com/first"] + urls[::-1]
    assert fifo.drain() == ["http://foo.com/first"] + urls
    lifo.close()
    fifo.close()


def delayed_calls():
    return {id(call) for call in reactor.getDelayedCalls()}


@pytest.mark.parametrize("setting,value", [
    ("SCHEDULER_PRIORITY_QUEUE", "scrapy.pqueues.DownloaderAwarePriorityQueue"),
    ("SCHEDULER_PRIORITY_QUEUE", "builtins.dict"),
    ("SCHEDULER_MEMORY_QUEUE", "builtins.list"),
    ("SCHEDULER_DISK_QUEUE", "builtins.list"),
])
def test_other_queues_are_refused_at_open_naming_the_setting(tmp_path, setting, value):
    before = delayed_calls()
    settings = {**BASE, **SIEVE, setting: value}
    if setting == "SCHEDULER_DISK_QUEUE":  # the queue Scrapy uses with a JOBDIR
        settings["JOBDIR"] = str(tmp_path)
    crawler = get_crawler(Spider, settings)
    scheduler = SieveScheduler.from_crawler(crawler)
    with pytest.raises(ValueError, match=setting):
        scheduler.open(Spider(name="spider"))
    assert delayed_calls() == before  # no stats timer left on the reactor
    scheduler.close("shutdown")  # harmless after a failed open


class FailingDupeFilter(BaseDupeFilter):
    def open(self):
        raise RuntimeError("the dupefilter cannot open")


def test_a_failed_open_leaves_no_timer_on_the_reactor():
    before = delayed_calls()
    crawler = get_crawler(Spider, {**BASE, **SIEVE, "DUPEFILTER_CLASS": FailingDupeFilter,
                                   "SIEVE_STATS_INTERVAL": 5})
    scheduler = SieveScheduler.from_crawler(crawler)
    with pytest.raises(RuntimeError, match="cannot open"):
        scheduler.open(Spider(name="spider"))
    assert delayed_calls() == before
    assert scheduler.sieve is None


def test_an_opened_scheduler_runs_its_stats_timer_until_close():
    before = delayed_calls()
    opened = Opened(dict(SIEVE, SIEVE_STATS_INTERVAL=5))
    assert len(delayed_calls() - before) == 1
    opened.close()
    assert delayed_calls() == before


def test_priorities_past_32_bits_are_clamped(caplog):
    opened = Opened(SIEVE)
    opened.enqueue(Request("http://foo.com/low", priority=-(2**40)))
    opened.enqueue(Request("http://foo.com/top", priority=2**40))
    opened.enqueue(Request("http://foo.com/max", priority=MAX_PRIORITY))
    opened.enqueue(Request("http://foo.com/zero"))
    popped = [opened.pop() for _ in range(4)]
    # The request keeps its own priority; only its lane is clamped (LIFO in it).
    assert [(r.url, r.priority) for r in popped] == [
        ("http://foo.com/max", MAX_PRIORITY), ("http://foo.com/top", 2**40),
        ("http://foo.com/zero", 0), ("http://foo.com/low", -(2**40))]
    assert sum("outside the Sieve's 32-bit range" in r.getMessage() for r in caplog.records) == 1
    opened.close()


def test_past_the_bound_on_distinct_priorities_a_request_is_refused(caplog):
    opened = Opened(SIEVE)
    for priority in range(1024):
        assert opened.enqueue(Request(f"http://foo.com/{priority}", priority=priority))
    assert not opened.enqueue(Request("http://foo.com/one-more", priority=-1))
    assert opened.crawler.stats.get_value("sieve/refused_requests") == 1
    assert any("priorities already have URLs queued" in r.getMessage() for r in caplog.records)
    assert opened.enqueue(Request("http://foo.com/same-lane", priority=7))  # a live lane
    assert opened.pop().priority == 1023
    # The lane of 1023 is empty now: room for one more distinct priority.
    assert opened.enqueue(Request("http://foo.com/one-more", priority=-1))
    opened.close()


def test_scrapys_scheduler_is_the_one_compared():
    scrapy, sieve = Opened(SCRAPY), Opened(SIEVE)
    assert isinstance(scrapy.scheduler, Scheduler)
    assert isinstance(sieve.scheduler, SieveScheduler)
    assert isinstance(sieve.scheduler.df, SieveDupeFilter)
    scrapy.close()
    sieve.close()
