"""crawl_sieve: the Sieve (a Bloom filter + a FIFO to-visit queue that spills
to disk) for Python crawlers.

    from crawl_sieve import Sieve

    with Sieve(expected_count=1_000_000) as sieve:
        sieve.push("https://example.com/", b"depth=0")
        for url, payload in sieve:          # ends when the crawl is complete
            for link in fetch(url):
                sieve.push(link, b"...")
            sieve.done(url)

A URL is enqueued the first time it is pushed and dropped afterwards (a few
new URLs are wrongly dropped at the chosen false-positive rate, never a seen
one enqueued twice). Each push may give a priority (an int, 0 by default):
pops hand out the highest priority first and, within one priority, the
oldest URL (FIFO) or, with Sieve(lifo=True), the newest. A popped URL is "in
flight" until done(url), and a pop on an empty queue waits while a URL is in
flight (its page may bring links) or a producer is open (see producer()).

Threading: every method may be called from many threads at once. The GIL is
released while the Sieve works (pops that wait, batch pushes, pushes), so
consumer threads run in parallel with the rest of the program. The log
callback runs in the thread that hit the event and must not call the Sieve.

Errors: ValueError for bad options or arguments, FileNotFoundError for a
missing checkpoint, SieveError for the rest; each carries the message.
health() raises SieveError while the Sieve cannot keep its contract (its
queue cannot spill to disk, or spilled URLs were lost) and returns None
otherwise.
"""

import contextlib
import logging
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, TypedDict

from crawl_sieve._errors import SieveError
from crawl_sieve import _sieve

__all__ = ["Sieve", "Entry", "SieveStats", "SieveError", "MAX_PAYLOAD_BYTES", "MAX_LANES", "MIN_PRIORITY",
           "MAX_PRIORITY"]

MAX_PAYLOAD_BYTES: int = _sieve.MAX_PAYLOAD_BYTES

_logger = logging.getLogger("crawl_sieve")
_LEVELS = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR}


def _to_logging(level: int, message: str) -> None:
    _logger.log(_LEVELS.get(level, logging.ERROR), message)


class SieveStats(TypedDict):
    """What Sieve.stats() returns (C++ sieve::SieveStats, one key a field)."""

    queued: int
    in_flight: int
    accepted: int
    dropped: int
    popped: int
    done: int
    deferred: int
    lost: int
    refused: int
    producers: int
    closed: bool
    estimated_count: Optional[float]  # None when filter_saturated: no estimate
    filter_saturated: bool
    capacity: int
    target_fp_rate: float
    current_fp_rate: float
    fill_ratio: float
    overflow_warnings: int
    filter_bytes: int
    queue_memory_bytes: int
    queue_disk_bytes: int
    spilled_segments: int
    spill_failures: int  # spills that failed since creation; health() says why
    lanes: Dict[int, int]  # priority -> queued URLs, the highest 16, highest first
    lane_count: int


class Entry(NamedTuple):
    """A popped URL, the payload pushed with it (b"" if none) and its priority."""

    url: str
    payload: bytes
    priority: int = 0


# Priorities are C++ int32 (a lane each; at most MAX_LANES with URLs queued).
MIN_PRIORITY: int = -(1 << 31)
MAX_PRIORITY: int = (1 << 31) - 1
MAX_LANES: int = _sieve.MAX_LANES


def _priority(priority) -> int:
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise TypeError(f"priority must be an int, not {type(priority).__name__}")
    if not MIN_PRIORITY <= priority <= MAX_PRIORITY:
        raise ValueError(f"priority {priority} is outside [{MIN_PRIORITY}, {MAX_PRIORITY}]")
    return priority


class Sieve:
    """A Sieve in this process (C++ sieve::Sieve, the in-memory one).

    expected_count: distinct URLs the filter is sized for (about 1.3 bytes
      each at fp_rate 1%: 1e7 -> 13 MB, allocated at once).
    fp_rate: the wanted rate of new URLs wrongly dropped as seen, in (0, 1).
    queue_memory_budget_bytes: queued URLs kept in RAM; past it the queue
      spills to files in spill_dir (None: $TMPDIR or /tmp).
    overflow: "warn" (a warning past expected_count, fixed memory) or "grow"
      (the filter grows, the rate stays bounded).
    log: callable(level, message) for the Sieve's messages, level an int
      0-3 (debug, info, warning, error: sieve/log.h's LogLevel, not the
      logging module's numbers); default: the "crawl_sieve" logger, at the
      matching logging level.
    lifo: within one priority, pop the newest URL first (Scrapy's default
      queues) instead of the oldest. Saved in checkpoints.
    """

    def __init__(self, expected_count: int = 10_000_000, fp_rate: float = 0.01, *,
                 queue_memory_budget_bytes: int = 64 << 20, spill_dir: Optional[str] = None,
                 overflow: str = "warn",
                 log: Optional[Callable[[int, str], None]] = None,
                 lifo: bool = False):
        self._impl = _sieve._Sieve.create(int(expected_count), float(fp_rate),
                                          int(queue_memory_budget_bytes), str(spill_dir or ""),
                                          str(overflow), _sink(log), bool(lifo))

    @classmethod
    def open(cls, directory: str, *, queue_memory_budget_bytes: int = 64 << 20,
             spill_dir: Optional[str] = None,
             log: Optional[Callable[[int, str], None]] = None) -> "Sieve":
        """Restores the Sieve saved by save(directory): the seen set, the
        queue's lanes in order (URLs in flight at the save come first in
        theirs), lifo, the counters.
        FileNotFoundError without a checkpoint, SieveError if it is damaged."""
        impl = _sieve._Sieve.open(str(directory), int(queue_memory_budget_bytes),
                                  str(spill_dir or ""), _sink(log))
        sieve = cls.__new__(cls)  # not __init__: it would build a second Sieve
        sieve._impl = impl
        return sieve

    def save(self, directory: str) -> None:
        """Writes a checkpoint into `directory` (created if missing), atomically."""
        self._impl.save(str(directory))

    # Producers and consumers.

    def push(self, url: str, payload: bytes = b"", priority: int = 0) -> bool:
        """Enqueues url with payload at priority (higher pops first); True if
        it was new, False if (probably) seen or the Sieve is closed.
        ValueError for a payload over MAX_PAYLOAD_BYTES or a priority outside
        int32; SieveError if the priority would open a lane past MAX_LANES."""
        return self._impl.push(url, _bytes(payload), _priority(priority))

    def push_lazy(self, url: str, make_payload: Callable[[], Optional[bytes]],
                  priority: int = 0) -> bool:
        """push() with the payload made only when needed: make_payload() is
        called at most once, and not at all when url was (probably) seen, so
        a costly payload (a pickled request) is built only for new URLs. It
        returns the payload, or None for "do not push" (False, and url stays
        unseen). Its exceptions propagate and url stays unseen; ValueError for
        a payload over MAX_PAYLOAD_BYTES."""
        def made() -> Optional[bytes]:
            payload = make_payload()
            if payload is None:
                return None
            payload = _bytes(payload)
            if len(payload) > MAX_PAYLOAD_BYTES:
                raise ValueError(f"payload of {len(payload)} bytes is over the limit of "
                                 f"{MAX_PAYLOAD_BYTES}")
            return payload
        return self._impl.push_lazy(url, made, _priority(priority))

    def insert_if_new(self, key: str) -> bool:
        """For a Sieve used as a seen-set alone (nothing else pops it): True
        the first time `key` is given, False after (probably seen). The key
        does not stay queued: only the filter grows, about 1.2-2.5 bytes per
        key (fp_rate 1e-2..1e-4), and the queue stays empty."""
        return self._impl.insert_if_new(key)

    def push_batch(self, urls: Iterable[str],
                   payloads: Optional[Iterable[bytes]] = None,
                   priorities: Optional[Iterable[int]] = None) -> List[bool]:
        """push() for many URLs at once (faster; the GIL is released while the
        Sieve works). Returns one bool per URL. A payload over the limit, or a
        priority past the lane bound, is refused alone (False)."""
        urls = list(urls)
        if payloads is not None:
            payloads = [_bytes(p) for p in payloads]
        if priorities is not None:
            priorities = [_priority(p) for p in priorities]
        return self._impl.push_batch(urls, payloads, priorities)

    def pop(self, timeout: Optional[float] = None) -> Optional[Entry]:
        """The next queued URL (highest priority first; the oldest within it,
        or the newest with lifo=True) as an Entry, or None when nothing more
        will come (closed, or empty with nothing in flight and no producer
        open) or, with a timeout in seconds, when it expires (is_finished()
        tells which)."""
        entry = self._impl.pop(timeout)
        return None if entry is None else Entry(*entry)

    def try_pop(self) -> Optional[Entry]:
        """pop() without waiting: None if nothing is queued right now."""
        entry = self._impl.try_pop()
        return None if entry is None else Entry(*entry)

    def done(self, url: str) -> bool:
        """A popped URL is handled; False if it was not in flight."""
        return self._impl.done(url)

    def defer(self, url: str) -> bool:
        """A popped URL goes back behind every URL of its priority, with its
        payload (with lifo=True: under them, first deferred first)."""
        return self._impl.defer(url)

    def close(self) -> None:
        """Wakes every waiting pop (they return None) and refuses further
        pushes and pops; queued URLs stay and can be saved."""
        self._impl.close()

    def is_finished(self) -> bool:
        return self._impl.is_finished()

    def add_producer(self) -> None:
        """Opens a producer: until producer_done(), pops wait on an empty queue."""
        self._impl.add_producer()

    def producer_done(self) -> None:
        self._impl.producer_done()

    @contextlib.contextmanager
    def producer(self):
        """A producer for the with-block: consumers started before it wait
        for its URLs and end once it is done and the queue is drained."""
        self.add_producer()
        try:
            yield self
        finally:
            self.producer_done()

    def stats(self) -> SieveStats:
        """The counters and sizes (C++ sieve::SieveStats) as a dict typed by
        SieveStats: queued, in_flight, accepted, dropped, estimated_count,
        filter_bytes, queue_disk_bytes, ...; "lanes" maps the highest
        priorities (at most 16) to their queued URLs, highest first;
        "lane_count" counts them all. It waits for pending spill writes, so
        health() after it sees their outcome."""
        return self._impl.stats()

    def health(self) -> None:
        """None while the Sieve keeps its contract; otherwise raises
        SieveError naming why, for an owner that must stop rather than
        degrade (C++ Sieve::Health()): the queue cannot spill to spill_dir
        (the message names the directory and errno: a full disk, a quota;
        the URLs stay in RAM past queue_memory_budget_bytes; cleared when a
        later spill succeeds), or a spilled segment could not be read back
        (the message names the file; its URLs are lost, stats()["lost"];
        stays)."""
        self._impl.health()

    # Python protocols.

    def __len__(self) -> int:
        """URLs queued now (in memory and on disk; not those in flight)."""
        return self._impl.queued()

    def __iter__(self) -> Iterator[Entry]:
        """Pops until nothing more will come; the caller marks each done()."""
        while True:
            entry = self.pop()
            if entry is None:
                return
            yield entry

    def __enter__(self) -> "Sieve":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _sink(log):
    return _to_logging if log is None else log


def _bytes(payload) -> bytes:
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise TypeError(f"payload must be bytes, not {type(payload).__name__}")
