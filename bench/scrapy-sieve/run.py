#!/usr/bin/env python3
"""bench/scrapy-sieve: Scrapy's default dupefilter and scheduler vs the Sieve's.

    PYTHONPATH=build/python /usr/bin/python3 bench/scrapy-sieve/run.py \
        --testsite build/bin/testsite [--counts 1e6,1e7] [--pages 10000] [--rounds 2] \
        [--scheduler-counts 1e6,1e7] [--max-memory-queue 1e6]

1. Memory per request seen, the dupefilter alone (no network, no engine):
   each dupefilter in a fresh process is fed N distinct fingerprints through
   request_seen (the fingerprinter is bypassed: both are given the 40-char
   hex fingerprint Scrapy would compute, so both pay the same per call and
   only the seen-set differs); the process's RSS growth / N is the cost.
   Theory: RFPDupeFilter keeps a Python set of hex str: a 40-char str is 89
   bytes, the set's slot ~8-16 more (plus the table's growth slack), so
   100-130 bytes per request. The Sieve keeps only its Bloom filter: at
   fp_rate p, 1.44 log2(1/p) bits (+~10% for the blocked layout): 1.6 bytes
   at p = 1e-2, 2.0 at 1e-3, 2.6 at 1e-4.
2. A Scrapy crawl of the synthetic testsite (--pages, loopback), with Scrapy's
   default scheduler+dupefilter and with SieveScheduler+SieveDupeFilter,
   alternated --rounds times in one run: pages/s (pages / Scrapy's
   elapsed_time_seconds) and the crawl process's peak RSS.
3. The same crawl with priorities (--priority-pages, CONCURRENT_REQUESTS 1 so
   that the order is the schedulers' alone, not the downloads' timing):
   DEPTH_PRIORITY 1 plus priority 100 on one section (every
   --prefer-every-th page), Scrapy's default vs the Sieve's. Same pages, and
   the same order: the index of the first page fetched in another order;
   where the section's pages come (their mean rank in the fetch order, and
   how many of them are in the first tenth of the crawl).
4. The scheduler's memory per request queued (--scheduler-counts, no
   network): each scheduler in a fresh process, opened as Scrapy opens it,
   is given N distinct Requests with mixed priorities (0..-5 as
   DEPTH_PRIORITY 1 gives at depths 0-5, and one in 20 at +10) through
   enqueue_request; RSS growth / N, the bytes left on disk, CPU per
   enqueue; then 1000 pops, which must all be the priority-10 requests.
   Scrapy's Scheduler with its memory queues (the default: the Request
   objects themselves stay in RAM, ~1.7 KB each: 17 GB at 1e7, so
   --max-memory-queue skips it past a count), with JOBDIR's disk queues
   (the requests pickled to disk, the dupefilter's set of fingerprints
   still in RAM), and SieveScheduler + SieveDupeFilter (the Bloom filter,
   ~2 bytes/request at fp_rate 1e-3, and at most SIEVE_QUEUE_MEMORY = 64 MiB
   of the queue in RAM, the rest spilled to disk).
Prints the tables (markdown) to stdout.
"""
import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CRAWL = ROOT / "python" / "tests" / "scrapy_crawl.py"


def rss_kib(field="VmRSS"):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(field)


def dupefilter_child(kind, count, fp_rate):
    """Runs in a child process: feeds `count` fingerprints, prints JSON."""
    from scrapy.settings import Settings
    settings = Settings({"SIEVE_EXPECTED_COUNT": count, "SIEVE_FP_RATE": fp_rate})
    identity = type("Identity", (), {"fingerprint": staticmethod(lambda r: r)})
    # Both modules imported before the baseline: only the seen-set is measured.
    from scrapy.dupefilters import RFPDupeFilter
    from crawl_sieve.scrapy_sieve import SieveDupeFilter
    before = rss_kib()
    if kind == "scrapy":
        df = RFPDupeFilter(fingerprinter=identity)
        df.request_fingerprint = lambda r: r  # r is the hex fingerprint
    else:
        df = SieveDupeFilter(settings, identity)
        df.request_fingerprint = lambda r: r
        df.open()
    start = time.perf_counter()
    new = 0
    for i in range(count):
        fp = hashlib.sha1(i.to_bytes(8, "little")).hexdigest()
        new += not df.request_seen(fp)
    elapsed = time.perf_counter() - start
    after = rss_kib()
    print(json.dumps({"kind": kind, "count": count, "fp_rate": fp_rate, "new": new,
                      "bytes_per_request": (after - before) * 1024 / count,
                      "ns_per_call": elapsed * 1e9 / count,
                      "peak_mib": rss_kib("VmHWM") / 1024}))


# Scheduler kinds of the scheduler-memory table: (label, Scrapy's own?, JOBDIR?).
SCHEDULERS = {
    "scrapy-memory": ("Scrapy's Scheduler, memory queues", True, False),
    "scrapy-jobdir": ("Scrapy's Scheduler, JOBDIR disk queues", True, True),
    "sieve": ("SieveScheduler + SieveDupeFilter", False, False),
}


def mixed_priority(i):
    """The scheduler-memory table's priorities: depth-like 0..-5, and one
    request in 20 at +10 (a preferred section)."""
    return 10 if i % 20 == 0 else -(i % 6)


def dir_bytes(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def scheduler_child(kind, count, check):
    """Runs in a child process: enqueues `count` distinct requests with
    mixed priorities into a fresh scheduler, prints JSON. Then pops `check`
    of them: all must be the priority-10 ones (the highest first)."""
    from scrapy.http import Request
    from scrapy.spiders import Spider
    from scrapy.utils.misc import load_object
    from scrapy.utils.test import get_crawler
    from crawl_sieve.scrapy_sieve import SieveScheduler  # noqa: F401 (before the baseline)

    _, scrapy_own, jobdir = SCHEDULERS[kind]
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        settings = {"REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", "LOG_LEVEL": "WARNING",
                    "SIEVE_STATS_INTERVAL": 0, "SIEVE_EXPECTED_COUNT": count,
                    "SIEVE_SPILL_DIR": tmp}
        if jobdir:
            settings["JOBDIR"] = tmp
        if not scrapy_own:
            settings.update(SCHEDULER="crawl_sieve.scrapy_sieve.SieveScheduler",
                            DUPEFILTER_CLASS="crawl_sieve.scrapy_sieve.SieveDupeFilter")
        crawler = get_crawler(Spider, settings)
        spider = Spider.from_crawler(crawler, name="memory")
        scheduler = load_object(crawler.settings["SCHEDULER"]).from_crawler(crawler)
        scheduler.open(spider)
        before = rss_kib()
        # CPU time, not wall: a shared machine's load (or a SIGSTOP) does
        # not count. Both the fingerprint and the queue are in it.
        start = time.process_time()
        accepted = 0
        for i in range(count):
            request = Request(f"http://site{i % 97}.example/s{i % 6}/page{i}.html",
                              priority=mixed_priority(i))
            accepted += bool(scheduler.enqueue_request(request))
            del request
        elapsed = time.process_time() - start
        after = rss_kib()
        queued = len(scheduler)
        disk = dir_bytes(tmp)
        popped = [scheduler.next_request() for _ in range(check)]
        order_ok = all(r is not None and r.priority == 10 for r in popped)
        scheduler.close("finished")
    print(json.dumps({"kind": kind, "count": count, "accepted": accepted, "queued": queued,
                      "bytes_per_request": (after - before) * 1024 / count,
                      "disk_bytes_per_request": disk / count,
                      "us_per_enqueue": elapsed * 1e6 / count, "order_ok": order_ok,
                      "peak_mib": rss_kib("VmHWM") / 1024}))


def run_scheduler(kind, count, check=1000):
    out = subprocess.run([sys.executable, __file__, "--scheduler-child", kind, str(count),
                          str(check)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} at {count}: exit {out.returncode}\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_dupefilter(kind, count, fp_rate):
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(count), str(fp_rate)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_crawl(testsite, pages, sieve, concurrency=16, extra=()):
    site = subprocess.Popen([testsite, "--pages", str(pages), "--port", "0", "--no-request-log"],
                            stdout=subprocess.PIPE, text=True)
    try:
        root = site.stdout.readline().split(" at ")[1].strip()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "crawl.json"
            args = [sys.executable, str(CRAWL), root, str(out), "--concurrency",
                    str(concurrency), "--log-level", "WARNING", *extra]
            if sieve:
                args.append("--sieve")
            child = subprocess.Popen(args)
            _, status, usage = os.wait4(child.pid, 0)
            if status != 0:
                raise RuntimeError(f"crawl failed: {status}")
            result = json.loads(out.read_text())
    finally:
        site.terminate()
        site.wait()
    stats = result["stats"]
    fetched = len(result["fetched"])
    port = root.rstrip("/").rsplit(":", 1)[1]
    order = [u.replace(port, "PORT", 1) for u in result["fetched"]]
    return {"pages": fetched, "seconds": stats["elapsed_time_seconds"], "order": order,
            "ops": result.get("ops", []),
            "pages_per_s": fetched / stats["elapsed_time_seconds"],
            "peak_rss_mib": usage.ru_maxrss / 1024}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        dupefilter_child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--scheduler-child":
        scheduler_child(sys.argv[2], int(float(sys.argv[3])), int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--testsite", required=True)
    parser.add_argument("--counts", default="1e6,1e7")
    parser.add_argument("--fp-rates", default="1e-2,1e-3")
    parser.add_argument("--pages", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-crawl", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--priority-pages", type=int, default=2000,
                        help="pages of the crawl with priorities (0: skip it)")
    parser.add_argument("--prefer-every", type=int, default=10)
    parser.add_argument("--scheduler-counts", default="1e6,1e7",
                        help="requests queued in the scheduler-memory table ('': skip it)")
    parser.add_argument("--schedulers", default="scrapy-memory,scrapy-jobdir,sieve")
    parser.add_argument("--max-memory-queue", type=float, default=1e6,
                        help="largest count run with Scrapy's memory queues (~1.7 KB of RAM "
                        "each: 17 GB at 1e7, too much for a 24 GiB machine others share)")
    args = parser.parse_args()

    import scrapy
    print(f"# scrapy-sieve: Scrapy {scrapy.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}\n")
    if not args.skip_memory:
        memory_table(args)
    if args.scheduler_counts:
        scheduler_table(args)
    if args.priority_pages:
        priority_table(args)
    if args.skip_crawl:
        return 0
    crawl_table(args)
    return 0


def section_rank(order, every):
    """The section's pages (/p/N.html, N % every == 0): their mean rank
    (0 = first fetched, 1 = last) and their count in the first tenth."""
    ranks = [i for i, url in enumerate(order)
             if url.endswith(".html") and int(url.rsplit("/", 1)[1][:-5]) % every == 0]
    tenth = sum(1 for i in ranks if i < len(order) / 10)
    return sum(ranks) / len(ranks) / max(1, len(order) - 1), tenth, len(ranks)


FIFO_QUEUES = {"SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
               "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue"}


def replay(ops, fifo):
    """Scrapy's scheduler calls of a crawl (scrapy_crawl.py --record), made
    again on SieveScheduler: (enqueues answered alike, enqueues, pops that
    return the same request, pops)."""
    from scrapy.http import Request
    from scrapy.spiders import Spider
    from scrapy.utils.test import get_crawler

    from crawl_sieve.scrapy_sieve import SieveScheduler
    settings = {"REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", "SIEVE_STATS_INTERVAL": 0,
                "DUPEFILTER_CLASS": "crawl_sieve.scrapy_sieve.SieveDupeFilter",
                "SIEVE_EXPECTED_COUNT": 1_000_000, "SIEVE_FP_RATE": 1e-7,
                **(FIFO_QUEUES if fifo else {})}
    crawler = get_crawler(Spider, settings)
    scheduler = SieveScheduler.from_crawler(crawler)
    scheduler.open(Spider.from_crawler(crawler, name="replay"))
    enqueues = enqueues_same = pops = pops_same = 0
    for op in ops:
        if op[0] == "e":
            accepted = scheduler.enqueue_request(Request(op[1], priority=op[2], dont_filter=op[3]))
            enqueues += 1
            enqueues_same += accepted == op[4]
        else:
            request = scheduler.next_request()
            pops += 1
            pops_same += (request.url if request is not None else None) == op[1]
    scheduler.close("finished")
    return enqueues_same, enqueues, pops_same, pops


def priority_table(args):
    extra = ("--depth-priority", "1", "--prefer-every", str(args.prefer_every))
    print(f"\n## Crawl with priorities ({args.priority_pages} pages, DEPTH_PRIORITY 1, "
          f"priority 100 on every {args.prefer_every}th page, 1 concurrent)\n")
    print("| scheduler | queue within a priority | pages | seconds | section pages | "
          "section mean rank | section in first 10% | fetch order vs the first run |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    queues = {"LIFO (Scrapy's default)": (), "FIFO": ("--fifo",)}
    replays = {}
    for queue, fifo in queues.items():
        runs = []
        for name, sieve in (("Scrapy default", False), ("Scrapy default, again", False),
                            ("SieveScheduler + SieveDupeFilter", True)):
            record = () if sieve or runs else ("--record",)
            r = run_crawl(args.testsite, args.priority_pages, sieve, 1, extra + fifo + record)
            runs.append(r)
            mean, tenth, count = section_rank(r["order"], args.prefer_every)
            first = runs[0]["order"]
            if len(runs) == 1:
                verdict = "-"
            elif r["order"] == first:
                verdict = "same"
            else:
                at = next((i for i, (a, b) in enumerate(zip(r["order"], first)) if a != b),
                          min(len(r["order"]), len(first)))
                verdict = f"differs from fetch {at}"
                same_pages = sorted(r["order"]) == sorted(first)
                verdict += ", same pages" if same_pages else ", OTHER PAGES"
            print(f"| {name} | {queue} | {r['pages']} | {r['seconds']:.1f} | {count} "
                  f"| {mean:.3f} | {tenth} | {verdict} |", flush=True)
        replays[queue] = replay(runs[0]["ops"], bool(fifo))
    print("\nScrapy's scheduler calls in the first run of each (--record), made again on "
          "SieveScheduler:\n")
    print("| queue within a priority | enqueues answered alike | pops returning the same request |")
    print("|---|---:|---:|")
    for queue, (e_same, e, p_same, p) in replays.items():
        print(f"| {queue} | {e_same} / {e} | {p_same} / {p} |")


def memory_table(args):
    import math
    print("## Memory per request seen (dupefilter alone)\n")
    print("| requests | dupefilter | fp_rate | bytes/request | theory | ratio vs default "
          "| ns/call | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for count in [int(float(c)) for c in args.counts.split(",")]:
        base = run_dupefilter("scrapy", count, 0)
        print(f"| {count:.0e} | RFPDupeFilter (set of hex) | - | {base['bytes_per_request']:.1f} "
              f"| 100-130 | 1x | {base['ns_per_call']:.0f} | {base['peak_mib']:.0f} |", flush=True)
        for p in [float(x) for x in args.fp_rates.split(",")]:
            r = run_dupefilter("sieve", count, p)
            theory = 1.1 * 1.44 * math.log2(1 / p) / 8
            print(f"| {count:.0e} | SieveDupeFilter | {p:g} | {r['bytes_per_request']:.2f} "
                  f"| {theory:.2f} | {base['bytes_per_request'] / r['bytes_per_request']:.0f}x "
                  f"| {r['ns_per_call']:.0f} | {r['peak_mib']:.0f} |", flush=True)


def scheduler_table(args):
    """The scheduler's memory with N requests queued (mixed priorities)."""
    print("\n## Scheduler memory per request queued (mixed priorities, no network)\n")
    print("| requests | scheduler | bytes/request in RAM | ratio vs memory queues "
          "| disk bytes/request | dropped as seen | CPU us/enqueue | peak RSS MiB "
          "| first 1000 pops at priority 10 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    kinds = args.schedulers.split(",")
    # The memory queues' bytes/request (Request objects: constant per
    # request), from the largest count they ran at; "(at 1e+06)" marks a
    # ratio taken against a smaller count's.
    base = base_count = None
    for count in [int(float(c)) for c in args.scheduler_counts.split(",")]:
        for kind in kinds:
            if kind == "scrapy-memory" and count > args.max_memory_queue:
                print(f"| {count:.0e} | {SCHEDULERS[kind][0]} | not run (over "
                      f"--max-memory-queue) | | | | | | |", flush=True)
                continue
            r = run_scheduler(kind, count)
            # The Sieve drops a new request as seen at its fp_rate (1e-3 at
            # the end of the fill); Scrapy's set never does.
            dropped = count - r["accepted"]
            allowed = 0 if SCHEDULERS[kind][1] else 1e-3 * count
            if r["queued"] != r["accepted"] or dropped > allowed:
                raise RuntimeError(f"{kind}: {r['accepted']} accepted, {r['queued']} queued "
                                   f"of {count} distinct requests")
            if kind == "scrapy-memory":
                base, base_count = r["bytes_per_request"], count
            ratio = f"{base / r['bytes_per_request']:.0f}x" if base else "-"
            if base and base_count != count:
                ratio += f" (at {base_count:.0e})"
            print(f"| {count:.0e} | {SCHEDULERS[kind][0]} | {r['bytes_per_request']:.1f} "
                  f"| {ratio} | {r['disk_bytes_per_request']:.0f} | {dropped} "
                  f"| {r['us_per_enqueue']:.0f} "
                  f"| {r['peak_mib']:.0f} | {'yes' if r['order_ok'] else 'NO'} |", flush=True)


def crawl_table(args):
    print(f"\n## Scrapy crawl of testsite ({args.pages} pages, loopback, 16 concurrent)\n")
    print("| round | scheduler | pages | seconds | pages/s | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|---:|")
    for round_ in range(1, args.rounds + 1):
        for sieve in (False, True):
            r = run_crawl(args.testsite, args.pages, sieve)
            name = "SieveScheduler + SieveDupeFilter" if sieve else "Scrapy default"
            print(f"| {round_} | {name} | {r['pages']} | {r['seconds']:.1f} "
                  f"| {r['pages_per_s']:.0f} | {r['peak_rss_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
