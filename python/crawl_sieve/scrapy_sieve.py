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

SieveScheduler queues the requests in the Sieve: deduplication and the
queue in one structure, the queue spilling to disk past SIEVE_QUEUE_MEMORY
bytes.
Each queued request is Scrapy's own serialization (Request.to_dict /
request_from_dict, pickled) stored as the URL's payload; the key is the
request's fingerprint, so requests that differ only by the fragment (or
whatever the fingerprinter ignores) are one request. dont_filter requests get a
unique key and are always queued. A request whose serialization is over
the Sieve's payload limit (16 KiB) is dropped with an error and counted in
the stats (sieve/refused_requests).

Order: as Scrapy's scheduler with its default SCHEDULER_PRIORITY_QUEUE
(ScrapyPriorityQueue): the highest Request.priority first, and within one
priority LIFO or FIFO as the queue class Scrapy would use says
(SCHEDULER_DISK_QUEUE with a JOBDIR, else SCHEDULER_MEMORY_QUEUE; Scrapy's
defaults are LIFO). Each priority is a lane of the Sieve; at most MAX_LANES
(1,024) distinct priorities may be queued at once (a request past the bound
is dropped with an error, sieve/refused_requests), and priorities outside
[-2**31, 2**31 - 1] are clamped to it. Any other SCHEDULER_PRIORITY_QUEUE
(DownloaderAwarePriorityQueue's per-slot fairness included) is refused at
open with a ValueError naming the setting.

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

from queuelib import queue as queuelib_queue
from scrapy import signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.job import job_dir
from scrapy.utils.misc import create_instance, load_object
from scrapy.utils.request import RequestFingerprinter, referer_str, request_from_dict

from crawl_sieve import MAX_PAYLOAD_BYTES, MAX_PRIORITY, MIN_PRIORITY, Sieve, SieveError

logger = logging.getLogger(__name__)

# Which Sieve statistics go to Scrapy's stats collector (as "sieve/<name>").
STATS_KEYS = ("accepted", "dropped", "queued", "in_flight", "refused", "estimated_count",
              "capacity", "current_fp_rate", "target_fp_rate", "filter_bytes",
              "queue_memory_bytes", "queue_disk_bytes", "spilled_segments", "lane_count")

# The one SCHEDULER_PRIORITY_QUEUE whose order the Sieve's lanes reproduce
# (Scrapy's default): one queue per priority, the highest first.
PRIORITY_QUEUE = "scrapy.pqueues.ScrapyPriorityQueue"

# queuelib's queues, which Scrapy's SCHEDULER_*_QUEUE classes derive from.
# LifoMemoryQueue derives from FifoMemoryQueue: LIFO is asked first.
_LIFO_QUEUES = (queuelib_queue.LifoMemoryQueue, queuelib_queue.LifoDiskQueue,
                queuelib_queue.LifoSQLiteQueue)
_FIFO_QUEUES = (queuelib_queue.FifoMemoryQueue, queuelib_queue.FifoDiskQueue,
                queuelib_queue.FifoSQLiteQueue)


def _sieve_from_settings(settings, jobdir_name: Optional[str], queue_memory: int,
                         lifo: bool = False) -> Sieve:
    """The Sieve the settings ask for, restored from JOBDIR/<jobdir_name> if a
    checkpoint is there (with the order, LIFO or FIFO, it was saved with)."""
    options = dict(queue_memory_budget_bytes=queue_memory,
                   spill_dir=settings.get("SIEVE_SPILL_DIR") or None)
    path = _checkpoint_dir(settings, jobdir_name)
    if path and os.path.exists(os.path.join(path, "sieve.checkpoint")):
        logger.info("Resuming the Sieve from %s", path)
        return Sieve.open(path, **options)
    return Sieve(expected_count=settings.getint("SIEVE_EXPECTED_COUNT", 10_000_000),
                 fp_rate=settings.getfloat("SIEVE_FP_RATE", 0.001),
                 overflow=settings.get("SIEVE_OVERFLOW", "warn"), lifo=lifo, **options)


def _checkpoint_dir(settings, name: Optional[str]) -> Optional[str]:
    jobdir = job_dir(settings)
    return os.path.join(jobdir, name) if jobdir and name else None


def _publish_stats(sieve: Sieve, stats) -> None:
    if stats is None:
        return
    snapshot = sieve.stats()
    for key in STATS_KEYS:
        stats.set_value(f"sieve/{key}", snapshot[key])


def _check_priority_queue(settings) -> None:
    """ValueError unless SCHEDULER_PRIORITY_QUEUE is Scrapy's default."""
    value = settings["SCHEDULER_PRIORITY_QUEUE"]
    if load_object(value) is not load_object(PRIORITY_QUEUE):
        raise ValueError(
            f"SCHEDULER_PRIORITY_QUEUE = {value!r} is not supported by SieveScheduler: "
            f"it orders requests as {PRIORITY_QUEUE} (the highest Request.priority first) "
            "in the Sieve's lanes; DownloaderAwarePriorityQueue's per-slot order is not "
            "implemented (docs/embedding.md). Leave SCHEDULER_PRIORITY_QUEUE at its default.")


def _lifo_from_settings(settings) -> bool:
    """Whether the queue Scrapy's scheduler would push to is LIFO: the disk
    queue with a JOBDIR, the memory queue without."""
    name = "SCHEDULER_DISK_QUEUE" if job_dir(settings) else "SCHEDULER_MEMORY_QUEUE"
    queue_cls = load_object(settings[name])
    if isinstance(queue_cls, type) and issubclass(queue_cls, _LIFO_QUEUES):
        return True
    if isinstance(queue_cls, type) and issubclass(queue_cls, _FIFO_QUEUES):
        return False
    raise ValueError(
        f"{name} = {settings[name]!r} is not supported by SieveScheduler: the order within "
        "a priority is taken from Scrapy's queues (scrapy.squeues' LIFO or FIFO queues, or "
        "queuelib's); another queue's order is unknown to it.")


def _lane(priority: int) -> int:
    """Request.priority (a Python int) clamped to the Sieve's 32-bit lanes."""
    return min(max(int(priority), MIN_PRIORITY), MAX_PRIORITY)


class SieveDupeFilter(BaseDupeFilter):
    """Scrapy's dupefilter on the Sieve's Bloom filter (see the module doc).

    Made as Scrapy's RFPDupeFilter is: from_crawler calls from_settings (a
    subclass overriding either is honoured); messages go to the logger
    "scrapy.dupefilters" in RFPDupeFilter's words."""

    logger = logging.getLogger("scrapy.dupefilters")

    def __init__(self, settings, fingerprinter=None, stats=None, debug: bool = False):
        self.settings = settings
        self.fingerprinter = fingerprinter or RequestFingerprinter()
        self.stats = stats
        self.debug = debug
        self.sieve: Optional[Sieve] = None
        self.shared = False  # True when a SieveScheduler owns the Sieve
        self.logdupes = True

    @classmethod
    def from_settings(cls, settings, *, fingerprinter=None):
        return cls(settings, fingerprinter, debug=settings.getbool("DUPEFILTER_DEBUG"))

    @classmethod
    def from_crawler(cls, crawler):
        dupefilter = cls.from_settings(crawler.settings,
                                       fingerprinter=crawler.request_fingerprinter)
        if dupefilter.stats is None:
            dupefilter.stats = crawler.stats
        return dupefilter

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
            self.logger.debug("Filtered duplicate request: %(request)s (referer: %(referer)s)",
                              {"request": request, "referer": referer_str(request)},
                              extra={"spider": spider})
        elif self.logdupes:
            self.logger.debug("Filtered duplicate request: %(request)s - no more duplicates "
                              "will be shown (see DUPEFILTER_DEBUG to show all duplicates)",
                              {"request": request}, extra={"spider": spider})
            self.logdupes = False
        stats = self.stats
        if stats is None:
            stats = getattr(getattr(spider, "crawler", None), "stats", None)
        if stats is not None:
            stats.inc_value("dupefilter/filtered", spider=spider)


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
        self._clamped = False  # a priority was clamped (warned once)

    @classmethod
    def from_crawler(cls, crawler):
        dupefilter_cls = load_object(crawler.settings["DUPEFILTER_CLASS"])
        scheduler = cls(crawler, create_instance(dupefilter_cls, crawler.settings, crawler))
        crawler.signals.connect(scheduler._left_downloader, signal=signals.request_left_downloader)
        return scheduler

    def open(self, spider):
        # Everything that may raise comes before the stats timer starts: a
        # failed open is not followed by close(), and a LoopingCall left on
        # the reactor would outlive the crawl.
        self.spider = spider
        _check_priority_queue(self.settings)
        lifo = _lifo_from_settings(self.settings)
        self.sieve = _sieve_from_settings(self.settings, "sieve",
                                          self.settings.getint("SIEVE_QUEUE_MEMORY", 64 << 20),
                                          lifo=lifo)
        try:
            if isinstance(self.df, SieveDupeFilter):
                self.df.share(self.sieve)
            _publish_stats(self.sieve, self.stats)
            opened = self.df.open()
        except BaseException:
            self.sieve.close()
            self.sieve = None
            raise
        interval = self.settings.getfloat("SIEVE_STATS_INTERVAL", 60.0)
        if interval > 0:
            from twisted.internet import task
            self._stats_task = task.LoopingCall(_publish_stats, self.sieve, self.stats)
            self._stats_task.start(interval, now=False)
        return opened

    def close(self, reason):
        if self._stats_task is not None and self._stats_task.running:
            self._stats_task.stop()
        self._stats_task = None
        if self.sieve is None:  # never opened, or its open failed
            return self.df.close(reason)
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
        made = []

        def serialize():
            payload = self._serialize(request)
            made.append(payload)
            return payload

        try:
            pushed = self.sieve.push_lazy(key, serialize, priority=self._priority(request))
        except SieveError as error:
            # The Sieve's bound on distinct priorities queued at once (its
            # lanes, MAX_LANES), checked before the filter: the request
            # stays unseen.
            logger.error("Request %s dropped: %s", request, error)
            self.stats.inc_value("sieve/refused_requests", spider=self.spider)
            return False
        if not pushed:
            if not made:
                self.df.log(request, self.spider)  # seen
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

    def _priority(self, request) -> int:
        lane = _lane(request.priority)
        if lane != request.priority and not self._clamped:
            self._clamped = True
            logger.warning("Request %s has priority %d, outside the Sieve's 32-bit range: "
                           "queued at %d (this warning is shown once)",
                           request, request.priority, lane)
        return lane

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
