"""Scrapy on the Sieve: a scheduler and a dupefilter (Scrapy 2.6 or later).

    # settings.py
    SCHEDULER = "crawl_sieve.scrapy_sieve.SieveScheduler"
    DUPEFILTER_CLASS = "crawl_sieve.scrapy_sieve.SieveDupeFilter"
    SIEVE_EXPECTED_COUNT = 50_000_000   # distinct requests the filter is sized for
    SIEVE_FP_RATE = 0.001               # new requests wrongly dropped as seen
    JOBDIR = "crawls/run-1"             # optional: pause/resume

SieveDupeFilter alone (with Scrapy's default scheduler) replaces the Python
set of SHA-1 fingerprints (~100+ bytes per request, all in RAM) with the
Sieve's Bloom filter (~1.8 bytes per request at SIEVE_FP_RATE 1e-3). Keys are
Scrapy's own request fingerprints (crawler.request_fingerprinter), in hex.

SieveScheduler queues the requests in the Sieve: deduplication and the FIFO
in one structure, the queue spilling to disk past SIEVE_QUEUE_MEMORY bytes.
Each queued request is Scrapy's own serialization (Request.to_dict /
request_from_dict, pickled) stored as the URL's payload; the key is the
request's fingerprint, so requests that differ only by the fragment (or
whatever the fingerprinter ignores) are one request. dont_filter requests get a
unique key and are always queued. The order is FIFO (breadth-first):
request priorities are not honoured. A request whose serialization is over
the Sieve's payload limit (16 KiB) is dropped with an error and counted in
the stats (sieve/refused_requests).

With DUPEFILTER_CLASS = SieveDupeFilter the scheduler and the dupefilter
share the scheduler's Sieve (one filter). With another DUPEFILTER_CLASS the
scheduler asks it first, then the Sieve.

JOBDIR: at close the Sieve is checkpointed to JOBDIR/sieve (requests in
flight are saved as queued, so they are fetched again on resume); at open an
existing checkpoint is restored. Stop with one Ctrl-C (or CLOSESPIDER_*) so
that Scrapy closes the scheduler.

Stats: the Sieve's counters go to Scrapy's stats collector under "sieve/"
(sieve/estimated_count, sieve/current_fp_rate, sieve/queue_disk_bytes, ...)
at open and close and every SIEVE_STATS_INTERVAL seconds.
"""

import logging
import os
import pickle
import uuid
import zlib
from typing import Optional

from scrapy import signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.job import job_dir
from scrapy.utils.misc import create_instance, load_object
from scrapy.utils.request import request_from_dict

from crawl_sieve import MAX_PAYLOAD_BYTES, Sieve

logger = logging.getLogger(__name__)

# Which Sieve statistics go to Scrapy's stats collector (as "sieve/<name>").
STATS_KEYS = ("accepted", "dropped", "queued", "in_flight", "refused", "estimated_count",
              "capacity", "current_fp_rate", "target_fp_rate", "filter_bytes",
              "queue_memory_bytes", "queue_disk_bytes", "spilled_segments")


def _sieve_from_settings(settings, jobdir_name: Optional[str], queue_memory: int) -> Sieve:
    """The Sieve the settings ask for, restored from JOBDIR/<jobdir_name> if a
    checkpoint is there."""
    options = dict(queue_memory_budget_bytes=queue_memory,
                   spill_dir=settings.get("SIEVE_SPILL_DIR") or None)
    path = _checkpoint_dir(settings, jobdir_name)
    if path and os.path.exists(os.path.join(path, "sieve.checkpoint")):
        logger.info("Resuming the Sieve from %s", path)
        return Sieve.open(path, **options)
    return Sieve(expected_count=settings.getint("SIEVE_EXPECTED_COUNT", 10_000_000),
                 fp_rate=settings.getfloat("SIEVE_FP_RATE", 0.001),
                 overflow=settings.get("SIEVE_OVERFLOW", "warn"), **options)


def _checkpoint_dir(settings, name: Optional[str]) -> Optional[str]:
    jobdir = job_dir(settings)
    return os.path.join(jobdir, name) if jobdir and name else None


def _publish_stats(sieve: Sieve, stats) -> None:
    if stats is None:
        return
    snapshot = sieve.stats()
    for key in STATS_KEYS:
        stats.set_value(f"sieve/{key}", snapshot[key])


class SieveDupeFilter(BaseDupeFilter):
    """Scrapy's dupefilter on the Sieve's Bloom filter (see the module doc)."""

    def __init__(self, settings, fingerprinter, stats=None, debug: bool = False):
        self.settings = settings
        self.fingerprinter = fingerprinter
        self.stats = stats
        self.debug = debug
        self.sieve: Optional[Sieve] = None
        self.shared = False  # True when a SieveScheduler owns the Sieve
        self.logdupes = True

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings, crawler.request_fingerprinter, crawler.stats,
                   crawler.settings.getbool("DUPEFILTER_DEBUG"))

    def share(self, sieve: Sieve) -> None:
        """Used by SieveScheduler: check requests against its Sieve."""
        self.sieve, self.shared = sieve, True

    def open(self):
        if self.sieve is None:
            # A seen-set: keys leave the queue at once, so the queue needs
            # only the Sieve's minimum budget (64 KiB), not SIEVE_QUEUE_MEMORY.
            self.sieve = _sieve_from_settings(self.settings, "sieve-dupefilter", 64 << 10)

    def request_fingerprint(self, request) -> str:
        return self.fingerprinter.fingerprint(request).hex()

    def request_seen(self, request) -> bool:
        if self.sieve is None:
            self.open()
        if self.shared:
            # The scheduler's Sieve decides when it pushes; asked directly
            # (by another component), the key goes in with no payload, which
            # the scheduler's next_request skips.
            return not self.sieve.push(self.request_fingerprint(request), b"")
        return not self.sieve.insert_if_new(self.request_fingerprint(request))

    def close(self, reason: str) -> None:
        if self.sieve is None or self.shared:
            return
        _publish_stats(self.sieve, self.stats)
        path = _checkpoint_dir(self.settings, "sieve-dupefilter")
        if path:
            self.sieve.save(path)

    def log(self, request, spider) -> None:
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s", {"request": request},
                         extra={"spider": spider})
        elif self.logdupes:
            logger.debug("Filtered duplicate request: %(request)s - no more duplicates will be "
                         "shown (see DUPEFILTER_DEBUG to show all duplicates)",
                         {"request": request}, extra={"spider": spider})
            self.logdupes = False
        if self.stats is not None:
            self.stats.inc_value("dupefilter/filtered", spider=spider)


class SieveScheduler(BaseScheduler):
    """Scrapy's scheduler on the Sieve (see the module doc)."""

    def __init__(self, crawler, dupefilter):
        self.crawler = crawler
        self.settings = crawler.settings
        self.stats = crawler.stats
        self.fingerprinter = crawler.request_fingerprinter
        self.df = dupefilter
        self.sieve: Optional[Sieve] = None
        self.spider = None
        self._stats_task = None

    @classmethod
    def from_crawler(cls, crawler):
        dupefilter_cls = load_object(crawler.settings["DUPEFILTER_CLASS"])
        scheduler = cls(crawler, create_instance(dupefilter_cls, crawler.settings, crawler))
        crawler.signals.connect(scheduler._left_downloader, signal=signals.request_left_downloader)
        return scheduler

    def open(self, spider):
        self.spider = spider
        self.sieve = _sieve_from_settings(self.settings, "sieve",
                                          self.settings.getint("SIEVE_QUEUE_MEMORY", 64 << 20))
        if isinstance(self.df, SieveDupeFilter):
            self.df.share(self.sieve)
        _publish_stats(self.sieve, self.stats)
        interval = self.settings.getfloat("SIEVE_STATS_INTERVAL", 60.0)
        if interval > 0:
            from twisted.internet import task
            self._stats_task = task.LoopingCall(_publish_stats, self.sieve, self.stats)
            self._stats_task.start(interval, now=False)
        return self.df.open()

    def close(self, reason):
        if self._stats_task is not None and self._stats_task.running:
            self._stats_task.stop()
        _publish_stats(self.sieve, self.stats)
        path = _checkpoint_dir(self.settings, "sieve")
        if path:
            self.sieve.save(path)
            logger.info("Saved the Sieve (%d requests queued) to %s", len(self.sieve), path)
        self.sieve.close()
        return self.df.close(reason)

    def has_pending_requests(self) -> bool:
        return len(self.sieve) > 0

    def __len__(self) -> int:
        return len(self.sieve)

    def enqueue_request(self, request) -> bool:
        if not request.dont_filter and not isinstance(self.df, SieveDupeFilter):
            if self.df.request_seen(request):
                self.df.log(request, self.spider)
                return False
        if request.dont_filter:
            key = "dont_filter:" + uuid.uuid4().hex  # new to the filter: always queued
        else:
            key = self.fingerprinter.fingerprint(request).hex()
        # Serialized only if new: most requests a crawl makes are of pages
        # already seen, and pickling each was ~half the scheduler's time.
        refused = []

        def serialize():
            payload = self._serialize(request)
            if payload is None:
                refused.append(True)
            return payload

        if not self.sieve.push_lazy(key, serialize):
            if not refused:
                self.df.log(request, self.spider)
            return False
        self.stats.inc_value("scheduler/enqueued/sieve", spider=self.spider)
        self.stats.inc_value("scheduler/enqueued", spider=self.spider)
        return True

    def next_request(self):
        entry = self.sieve.try_pop()
        while entry is not None and not entry.payload:
            # A key pushed by the dupefilter's request_seen: seen, not a request.
            self.sieve.done(entry.url)
            entry = self.sieve.try_pop()
        if entry is None:
            return None
        request = request_from_dict(_unpack(entry.payload), spider=self.spider)
        # The key goes with the request so that _left_downloader can mark it
        # done; until then it is in flight (queued again by a checkpoint).
        request.meta["sieve_key"] = entry.url
        self.stats.inc_value("scheduler/dequeued/sieve", spider=self.spider)
        self.stats.inc_value("scheduler/dequeued", spider=self.spider)
        return request

    def _left_downloader(self, request, spider):
        key = request.meta.get("sieve_key")
        if key is not None and self.sieve is not None:
            self.sieve.done(key)

    def _serialize(self, request) -> Optional[bytes]:
        raw = pickle.dumps(request.to_dict(spider=self.spider), protocol=4)
        payload = b"p" + raw
        if len(payload) > MAX_PAYLOAD_BYTES:
            payload = b"z" + zlib.compress(raw)
        if len(payload) > MAX_PAYLOAD_BYTES:
            logger.error("Request %s serializes to %d bytes, over the Sieve's payload limit of "
                         "%d: dropped", request, len(payload), MAX_PAYLOAD_BYTES)
            self.stats.inc_value("sieve/refused_requests", spider=self.spider)
            return None
        return payload


def _unpack(payload: bytes) -> dict:
    if payload[:1] == b"z":
        return pickle.loads(zlib.decompress(payload[1:]))
    return pickle.loads(payload[1:])
