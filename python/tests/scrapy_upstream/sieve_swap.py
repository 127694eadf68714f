"""A pytest plugin that runs Scrapy's own test modules against crawl_sieve's
Scrapy classes, swapped in by settings (used by run.py here).

Scrapy's tests name the classes they test in code (`Scheduler.from_crawler`,
subclasses of `RFPDupeFilter`) and in settings (the defaults). Loaded before
the test modules are imported, this plugin
- makes crawl_sieve's classes Scrapy's defaults: SCHEDULER and
  DUPEFILTER_CLASS in scrapy.settings.default_settings (a test that sets
  its own, e.g. DUPEFILTER_CLASS = BaseDupeFilter, keeps it);
- binds `scrapy.core.scheduler.Scheduler` to a stand-in whose from_crawler
  builds the scheduler the crawler's SCHEDULER setting names, and
  `scrapy.dupefilters.RFPDupeFilter` to SieveDupeFilter, so the modules'
  `from scrapy... import` lines and their subclasses get the Sieve's;
- skips the tests of behaviour crawl_sieve does not have on purpose, each
  with the reason docs/embedding.md gives ("Scrapy's own tests").
Nothing else in the tests is changed.
"""
import pytest

import scrapy.core.scheduler
import scrapy.dupefilters
from scrapy.settings import default_settings
from scrapy.utils.misc import load_object

from crawl_sieve.scrapy_sieve import SieveDupeFilter

SCHEDULER = "crawl_sieve.scrapy_sieve.SieveScheduler"
DUPEFILTER = "crawl_sieve.scrapy_sieve.SieveDupeFilter"

_DOC = "deliberate difference, docs/embedding.md (Scrapy's own tests): "
NO_SEEN_FILE = _DOC + ("no JOBDIR/requests.seen file: the seen set is the Sieve's checkpoint "
                       "in JOBDIR/sieve-dupefilter")
NO_DOWNLOADER_AWARE = _DOC + ("SCHEDULER_PRIORITY_QUEUE = DownloaderAwarePriorityQueue is "
                              "refused at open with a ValueError (no per-slot order)")

# Test ids (module::class::test, or module::class for the whole class) -> reason.
SKIPS = {
    "test_dupefilters.py::RFPDupeFilterTest::test_seenreq_newlines": NO_SEEN_FILE,
    "test_scheduler.py::TestSchedulerWithDownloaderAwareInMemory": NO_DOWNLOADER_AWARE,
    "test_scheduler.py::TestSchedulerWithDownloaderAwareOnDisk": NO_DOWNLOADER_AWARE,
    "test_scheduler.py::TestIntegrationWithDownloaderAwareInMemory": NO_DOWNLOADER_AWARE,
}


class SchedulerBySettings:
    """Stands for scrapy.core.scheduler.Scheduler in the test modules: the
    scheduler is the class the crawler's SCHEDULER setting names."""

    @staticmethod
    def from_crawler(crawler):
        return load_object(crawler.settings["SCHEDULER"]).from_crawler(crawler)


def pytest_configure(config):
    default_settings.SCHEDULER = SCHEDULER
    default_settings.DUPEFILTER_CLASS = DUPEFILTER
    # Small filters: a test makes a few requests (the default is 1e7).
    default_settings.SIEVE_EXPECTED_COUNT = 100_000
    scrapy.core.scheduler.Scheduler = SchedulerBySettings
    scrapy.dupefilters.RFPDupeFilter = SieveDupeFilter


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = item.nodeid.split("/")[-1].split("::")
        for n in range(len(parts), 1, -1):
            reason = SKIPS.get("::".join(parts[:n]))
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_report_header(config):
    return f"crawl_sieve swap: SCHEDULER = {SCHEDULER}, DUPEFILTER_CLASS = {DUPEFILTER}"
