#!/usr/bin/env python3
"""Tables of bench/crawl-vs-peers: one markdown table per site.

usage: table.py --since UTC --sites a,b --conc C --results DIR --work DIR
                --harness DIR [--crawl-bin PATH] [--out FILE]

Reads RESULTS/runs.tsv (rows written by the shared harness's run-peer.sh) and
RESULTS/ceilings.txt (ceilings.sh).  Rows at or after --since are "this run".
A peer that was not run this time (the slow ones without --full) is taken
from the latest earlier run in RESULTS/runs.tsv, else from the harness's own
results (HARNESS/runs.tsv), and its row says where it came from.

Per site it prints: pages/s (median [min-max] of the reps), peak RSS, pages
fetched (GET 200) and HTML pages, duplicate fetches (same URI / same path),
CPU, and the ratios of the targets: crawl / Gumbo one-core ceiling (>= 1.6),
crawl / wget2, crawl / Scrapy and Crawlee (>= 10).  It also compares the URIs
crawl requested with those of the best peer of this run (most HTML pages) and
writes the difference to RESULTS/found-diff-crawl-SITE.md (RESULTS: the raw
folder, bench/results/raw/crawl-vs-peers by default; the table goes to --out).
"""
import argparse
import csv
import json
import os
import re
import statistics
from collections import defaultdict

SLOW = ("scrapy", "crawlee", "httrack")
ORDER = ("crawl", "wget2", "httrack", "scrapy", "crawlee")


def ok(r):
    """A completed crawl: exit 0, or wget's 8 (some 404s on the site)."""
    return r["rc"] == "0" or (r["rc"] == "8" and r["peer"].startswith("wget"))


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def med_rng(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    m = fmt % statistics.median(vals)
    if len(vals) > 1 and min(vals) != max(vals):
        m += " [" + fmt % min(vals) + "-" + fmt % max(vals) + "]"
    return m


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_ceilings(path, since):
    """site -> ([pages/s wall], [pages per CPU-s]) from the 'UTC gumbo-cpu SITE
    CPU_S {json}' lines crawl-vs-peers appends after each ceilings.sh run."""
    out = defaultdict(lambda: ([], []))
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            parts = line.split(" ", 4)
            if len(parts) < 5 or parts[1] != "gumbo-cpu" or parts[0] < since:
                continue
            try:
                d = json.loads(parts[4])
                cpu = float(parts[3])
            except ValueError:
                continue
            out[parts[2]][0].append(d["pages_per_s"])
            out[parts[2]][1].append(d["pages"] * d["repeat"] / cpu)
    return out


def pick_rows(site, peer, conc, mine, since, harness):
    """Rows for one table line, and where they came from."""
    now = [r for r in mine if r["site"] == site and r["peer"] == peer and int(r["conc"]) == conc
           and r["utc"] >= since]
    if now:
        return now, "this run"
    if peer not in SLOW:
        return [], ""
    old = [r for r in mine if r["site"] == site and r["peer"] == peer and int(r["conc"]) == conc]
    if old:
        day = max(r["utc"] for r in old)[:10]
        last = sorted({r["utc"][:13] for r in old})[-1]  # the latest hour with rows
        return [r for r in old if r["utc"][:13] == last], "earlier --full run (%s), not re-run" % day
    old = [r for r in harness if r["site"] == site and r["peer"] == peer and int(r["conc"]) == conc]
    if old:
        return old, "shared harness results, not re-run"
    return [], ""


def cpu_s(r):
    return (num(r["user_s"]) or 0) + (num(r["sys_s"]) or 0)


def summarize(rows):
    use = [r for r in rows if ok(r)] or rows
    return {
        "runs": len(rows), "failed": len(rows) - len([r for r in rows if ok(r)]),
        "rate": [num(r["get200_per_s"]) for r in use],
        "rss": [num(r["peak_rss_mb"]) for r in use],
        "get200": [num(r["get_200"]) for r in use],
        "html": [num(r["html_200"]) for r in use],
        "uniq_html": [num(r["uniq_html_path"]) for r in use],
        "dup_uri": [num(r["dup_uri"]) for r in use],
        "dup_path": [num(r["dup_path"]) for r in use],
        "cpu": [cpu_s(r) for r in use],
        "per_cpu": [num(r["get_200"]) / cpu_s(r) for r in use if cpu_s(r) > 0],
        "other": [num(r.get("other_cpu_s")) for r in use],
        "expected": [num(r.get("expected_found")) for r in use if r.get("expected_found")],
        "reps": [(int(r["conc"]), r["rep"]) for r in use],
    }


def found_set(work, site, peer, conc, rep):
    p = os.path.join(work, "runs", "%s-%s-c%d-r%s" % (site, peer, conc, rep), "found.txt")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return {l.rstrip("\n") for l in f if l.strip()}


def is_html(uri):
    path = uri.split("?", 1)[0]
    base = path.rsplit("/", 1)[-1]
    return path.endswith("/") or base.endswith((".html", ".htm")) or "." not in base


# The table names the lists relative to its own folder (set in main).
LISTS_RELATIVE_TO = "."


def found_diff(site, stats, work, results):
    """Compare crawl's requested URIs (first rep) with the best peer's of this run."""
    if "crawl" not in stats or stats["crawl"][1] != "this run":
        return ""
    peers = [p for p, (s, src) in stats.items() if p != "crawl" and src == "this run"]
    if not peers:
        return ""
    # best = most distinct HTML paths (html_200 would count a peer's repeats)
    best = max(peers, key=lambda p: med(stats[p][0]["uniq_html"]) or 0)
    conc, rep = stats["crawl"][0]["reps"][0]
    mine = found_set(work, site, "crawl", conc, rep)
    bconc, brep = stats[best][0]["reps"][0]
    theirs = found_set(work, site, best, bconc, brep)
    if mine is None or theirs is None:
        return "found sets not available (%s)" % work
    missing = sorted(theirs - mine)
    extra = sorted(mine - theirs)
    miss_html = [u for u in missing if is_html(u)]
    text = ["# crawl vs %s on %s: distinct request URIs (rep %s each)\n" % (best, site, rep),
            "crawl %d URIs, %s %d; missing from crawl: %d (%d HTML-like), only crawl: %d\n" % (
                len(mine), best, len(theirs), len(missing), len(miss_html), len(extra))]
    for title, lst in (("requested by %s, not by crawl" % best, missing),
                       ("requested by crawl, not by %s" % best, extra)):
        text.append("## %s: %d\n\n```\n%s%s\n```\n" % (
            title, len(lst), "\n".join(lst[:60]),
            "\n... (%d more)" % (len(lst) - 60) if len(lst) > 60 else ""))
    path = os.path.join(results, "found-diff-crawl-%s.md" % site)
    with open(path, "w") as f:
        f.write("\n".join(text))
    return ("crawl vs best peer (%s): %d of its %d URIs not requested by crawl (%d HTML-like), "
            "%d requested only by crawl; list in %s" % (
                best, len(missing), len(theirs), len(miss_html), len(extra),
                os.path.relpath(path, LISTS_RELATIVE_TO)))


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "n/a"


def site_table(site, conc, mine, harness, since, ceilings, work, results):
    stats = {}
    for peer in ORDER:
        rows, src = pick_rows(site, peer, conc, mine, since, harness)
        if rows:
            stats[peer] = (summarize(rows), src)
    out = ["## %s, concurrency %d\n" % (site, conc),
           "| peer | conc | runs | pages/s median [min-max] | pages per CPU-s | peak RSS MB "
           "| pages fetched (GET 200) | HTML pages | dup fetches (same URI / same path) "
           "| crawler CPU s | other CPU s | source |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for peer, (s, src) in stats.items():
        runs = "%d" % s["runs"] + (" (%d failed)" % s["failed"] if s["failed"] else "")
        fetched = med_rng(s["get200"], "%d")
        if s["expected"]:
            fetched += " (expected found %s)" % med_rng(s["expected"], "%d")
        out.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |" % (
            peer, conc, runs, med_rng(s["rate"], "%.0f"), med_rng(s["per_cpu"], "%.0f"),
            med_rng(s["rss"], "%.0f"), fetched, med_rng(s["html"], "%d"),
            med_rng(s["dup_uri"], "%d"), med_rng(s["dup_path"], "%d"),
            med_rng(s["cpu"], "%.1f"), med_rng(s["other"], "%.1f"), src))
    wall, per_cpu = ceilings.get(site, ([], []))
    if wall:
        out.append("| Gumbo ceiling (ceilings.sh: 1 pinned core, parse + `<a href>`) | 1 | %d | %s "
                   "| %s | | | | | | | this run |" % (len(wall), med_rng(wall, "%.0f"),
                                                     med_rng(per_cpu, "%.0f")))
    crawl = stats["crawl"][0] if "crawl" in stats else None
    rate = {p: med(s["rate"]) for p, (s, _) in stats.items()}
    c = rate.get("crawl")
    lines = ["", "Ratios of crawl's median pages/s (and their targets):", ""]
    lines.append("- crawl / Gumbo one-core ceiling: %s wall-clock (target >= 1.6x); "
                 "per CPU-second: %s (>= 0.8x makes 1.6x reachable on two free cores)" % (
                     ratio(c, med(wall)), ratio(med(crawl["per_cpu"]) if crawl else None,
                                                med(per_cpu))))
    lines.append("- crawl / wget2: %s (wget2 %s pages/s beside crawl's %s)" % (
        ratio(c, rate.get("wget2")), "%.0f" % rate["wget2"] if rate.get("wget2") else "n/a",
        "%.0f" % c if c else "n/a"))
    for p in ("scrapy", "crawlee"):
        theirs = med(stats[p][0]["per_cpu"]) if p in stats else None
        lines.append("- crawl / %s: %s (target >= 10x); per CPU-second: %s%s" % (
            p, ratio(c, rate.get(p)), ratio(med(crawl["per_cpu"]) if crawl else None, theirs),
            "" if p not in stats else " [%s: %s]" % (p, stats[p][1])))
    if crawl and "wget2" in stats:
        lines.append("- peak RSS: crawl %.0f MB, wget2 %.0f MB (target: wget2's plus the filter's "
                     "bytes)" % (med(crawl["rss"]), med(stats["wget2"][0]["rss"])))
    if crawl:
        d = found_diff(site, stats, work, results)
        if d:
            lines.append("- " + d)
    return "\n".join(out + lines) + "\n"


def read_tls(path, since):
    """{site: {peer: (pages, median pages/s, "min-max")}} from tls.txt lines
    written since `since`: '<since> <site> crawl: pages N, pages/s median M [a-b]'."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    pat = re.compile(r"^(\S+) (\S+) (\w+): pages (\d+), pages/s median (\d+) \[(\d+-\d+)\]")
    for line in open(path):
        m = pat.match(line)
        if m and m.group(1) >= since:
            out.setdefault(m.group(2), {})[m.group(3)] = (
                int(m.group(4)), float(m.group(5)), m.group(6))
    return out


def protocols_table(sites, conc, mine, harness, since, tls):
    """crawl and wget2 over HTTP/1.1 (this run's rows) and over HTTPS (tls.txt)."""
    out = ["## Both protocols\n",
           "HTTP/1.1: the tables above (nginx, keep-alive). HTTPS: the harness's "
           "tls-vs-wget2.sh (nginx, one worker, TLS 1.3, HTTP/2 offered by ALPN, a throwaway CA "
           "in the system trust store), crawl and wget2 alternated, concurrency 32.\n",
           "| site | protocol | crawl pages/s | wget2 pages/s | crawl / wget2 |",
           "|---|---|---|---|---|"]
    for site in sites:
        rate = {}
        for peer in ("crawl", "wget2"):
            rows, _ = pick_rows(site, peer, conc, mine, since, harness)
            rate[peer] = med(summarize(rows)["rate"]) if rows else None
        out.append("| %s | HTTP/1.1 | %s | %s | %s |" % (
            site, "%.0f" % rate["crawl"] if rate["crawl"] else "n/a",
            "%.0f" % rate["wget2"] if rate["wget2"] else "n/a", ratio(rate["crawl"], rate["wget2"])))
        t = tls.get(site, {})
        c, w = t.get("crawl"), t.get("wget2")
        out.append("| %s | HTTPS, HTTP/2 | %s | %s | %s |" % (
            site, "%.0f [%s]" % (c[1], c[2]) if c else "n/a",
            "%.0f [%s]" % (w[1], w[2]) if w else "n/a",
            ratio(c[1] if c else None, w[1] if w else None)))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--since", required=True)
    ap.add_argument("--sites", required=True)
    ap.add_argument("--conc", type=int, default=32)
    ap.add_argument("--results", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--harness", required=True)
    ap.add_argument("--crawl-bin", default="")
    ap.add_argument("--out")
    ap.add_argument("--tls", default="", help="tls.txt of an --https run: adds the protocols table")
    a = ap.parse_args()
    global LISTS_RELATIVE_TO
    if a.out:
        LISTS_RELATIVE_TO = os.path.dirname(os.path.abspath(a.out))
    mine = read_rows(os.path.join(a.results, "runs.tsv"))
    harness = read_rows(os.path.join(a.harness, "runs.tsv"))
    ceilings = read_ceilings(os.path.join(a.results, "ceilings.txt"), a.since)
    parts = ["# crawl vs peers (bench/crawl-vs-peers, %s)\n" % a.since,
             "crawl binary: %s. pages/s = GET 200 answers in nginx's log / wall time of the "
             "crawler process; peak RSS from `time -v`; other CPU s = CPU used by other "
             "processes on the machine during the run (noise).\n" % (a.crawl_bin or "?")]
    for site in a.sites.split(","):
        parts.append(site_table(site, a.conc, mine, harness, a.since, ceilings, a.work, a.results))
    if a.tls:
        parts.append(protocols_table(a.sites.split(","), a.conc, mine, harness, a.since,
                                     read_tls(a.tls, a.since)))
    text = "\n".join(parts)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
