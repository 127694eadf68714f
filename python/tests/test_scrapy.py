"""Scrapy on the Sieve (crawl_sieve.scrapy_sieve): real crawls of the build's
testsite on loopback, each a Scrapy process of its own. The tests:
every page fetched exactly once (the site's own request counts); a run
stopped half-way and resumed from JOBDIR fetches every page, none twice
beyond what was in flight at the stop."""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PAGES = 300
CONCURRENCY = 8


def site_binary():
    path = os.environ.get("CRAWL_TESTSITE")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("CRAWL_TESTSITE must name the build's testsite binary (scripts/test sets it)")
    return path


class Site:
    """testsite on 127.0.0.1 with an ephemeral port; counts() stops it and
    returns {path: requests} from its --counts-file."""

    def __init__(self, tmp_path, pages):
        self.counts_file = tmp_path / "counts.tsv"
        self.proc = subprocess.Popen(
            [site_binary(), "--pages", str(pages), "--port", "0", "--links-per-page", "5",
             "--counts-file", str(self.counts_file)],
            stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # "serving N pages at http://127.0.0.1:P/"
        assert " at " in line, line
        self.root = line.split(" at ")[1].strip()
        listing = subprocess.run([site_binary(), "--pages", str(pages), "--links-per-page",
                                  "5", "--list"], capture_output=True, text=True, check=True)
        self.paths = {"/" + u.split("/", 3)[3] for u in listing.stdout.split()}

    def counts(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)
        counts = {}
        for line in self.counts_file.read_text().splitlines():
            path, requests, _ = line.split("\t")
            counts[path] = int(requests)
        return counts


def crawl(tmp_path, root, name, *args):
    out = tmp_path / f"{name}.json"
    env = dict(os.environ)
    result = subprocess.run([sys.executable, str(HERE / "scrapy_crawl.py"), root, str(out),
                             "--concurrency", str(CONCURRENCY), *args],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out.read_text())


def test_a_crawl_with_the_sieve_scheduler_fetches_every_page_once(tmp_path):
    site = Site(tmp_path, PAGES)
    run = crawl(tmp_path, site.root, "full", "--sieve")
    counts = site.counts()
    assert set(counts) == site.paths  # every page, nothing else
    assert all(n == 1 for n in counts.values()), {p: n for p, n in counts.items() if n != 1}
    assert len(run["fetched"]) == len(site.paths)
    stats = run["stats"]
    assert stats["sieve/accepted"] == len(site.paths)
    assert stats["sieve/queued"] == 0
    assert stats["sieve/dropped"] > 0  # the site links back: duplicates were filtered
    assert stats["scheduler/dequeued/sieve"] == len(site.paths)


def test_a_run_stopped_half_way_resumes_from_jobdir(tmp_path):
    site = Site(tmp_path, PAGES)
    jobdir = tmp_path / "job"
    first = crawl(tmp_path, site.root, "first", "--sieve", "--jobdir", str(jobdir),
                  "--stop-after", str(PAGES // 2))
    assert first["stats"]["finish_reason"] == "closespider_pagecount"
    assert (jobdir / "sieve" / "sieve.checkpoint").exists()
    assert first["stats"]["sieve/queued"] > 0  # stopped with work left
    second = crawl(tmp_path, site.root, "second", "--sieve", "--jobdir", str(jobdir))
    assert second["stats"]["finish_reason"] == "finished"
    counts = site.counts()
    assert set(counts) == site.paths  # every page fetched over the two runs
    twice = sum(n - 1 for n in counts.values())
    # A page fetched twice was in flight at the stop (popped, not done): at
    # most the downloader's concurrency.
    assert twice <= CONCURRENCY, twice
    assert len(first["fetched"]) + len(second["fetched"]) == len(site.paths) + twice
    # The counters come back with the checkpoint: each page accepted once
    # over both runs (the ones in flight at the stop were queued again, not
    # pushed again).
    assert second["stats"]["sieve/accepted"] == len(site.paths)


def test_the_dupefilter_alone_under_scrapys_default_scheduler(tmp_path):
    site = Site(tmp_path, PAGES)
    run = crawl(tmp_path, site.root, "dupefilter", "--dupefilter-only")
    counts = site.counts()
    assert set(counts) == site.paths
    assert all(n == 1 for n in counts.values()), {p: n for p, n in counts.items() if n != 1}
    assert run["stats"]["dupefilter/filtered"] > 0
    assert run["stats"]["sieve/accepted"] == len(site.paths)
    assert run["stats"]["sieve/queued"] == 0  # a seen-set: nothing stays queued
