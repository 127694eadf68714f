#!/usr/bin/env python3
"""bench/scrapy-sieve: Scrapy's default dupefilter and scheduler vs the Sieve's.

    PYTHONPATH=build/python /usr/bin/python3 bench/scrapy-sieve/run.py \
        --testsite build/bin/testsite [--counts 1e6,1e7] [--pages 10000] [--rounds 2]

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


def run_dupefilter(kind, count, fp_rate):
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(count), str(fp_rate)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_crawl(testsite, pages, sieve):
    site = subprocess.Popen([testsite, "--pages", str(pages), "--port", "0", "--no-request-log"],
                            stdout=subprocess.PIPE, text=True)
    try:
        root = site.stdout.readline().split(" at ")[1].strip()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "crawl.json"
            args = [sys.executable, str(CRAWL), root, str(out), "--concurrency", "16",
                    "--log-level", "WARNING"]
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
    return {"pages": fetched, "seconds": stats["elapsed_time_seconds"],
            "pages_per_s": fetched / stats["elapsed_time_seconds"],
            "peak_rss_mib": usage.ru_maxrss / 1024}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        dupefilter_child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("--testsite", required=True)
    parser.add_argument("--counts", default="1e6,1e7")
    parser.add_argument("--fp-rates", default="1e-2,1e-3")
    parser.add_argument("--pages", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--skip-crawl", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()

    import scrapy
    print(f"# scrapy-sieve: Scrapy {scrapy.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}\n")
    if not args.skip_memory:
        memory_table(args)
    if args.skip_crawl:
        return 0
    crawl_table(args)
    return 0


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
