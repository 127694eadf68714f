"""Runs Scrapy's own scheduler and dupefilter test modules against
crawl_sieve's classes (sieve_swap.py swaps them in by settings).

    PYTHONPATH=build/python python3 python/tests/scrapy_upstream/run.py SCRAPY_SRC [pytest args]

SCRAPY_SRC is a source tree of Scrapy at the version installed (Debian's
python3-scrapy is 2.8.0: tag 2.8.0 of github.com/scrapy/scrapy, commit
c34ca4aef5fbfeba5c832a327ee36147cd6fb20f), whose tests/ package holds the
modules and their helpers (tests/mockserver.py, tests/spiders.py,
tests/keys), and whose conftest.py makes the mock server's TLS key and
certificate (tests/keys/localhost.key, .crt: not in the tag). They need
python3-testfixtures. The modules are run from that tree, unchanged;
--scrapy-own runs them against Scrapy's own classes instead (the baseline).
Measured with 2.8.0 (docs/embedding.md): 28 pass and 10 are skipped as
deliberate differences; with --scrapy-own all 38 pass. Exit status: pytest's.
"""
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = ("tests/test_scheduler.py", "tests/test_scheduler_base.py", "tests/test_dupefilters.py")
# Besides the modules: the tree's conftest.py, which generates the mock
# server's key and certificate (without it the two crawl tests of
# test_scheduler_base.py fail at the mock server's start, not at the Sieve).
NEEDED = (*MODULES, "conftest.py", "tests/mockserver.py", "tests/keys/__init__.py")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    source, rest = Path(argv[0]).resolve(), argv[1:]
    own = "--scrapy-own" in rest
    rest = [a for a in rest if a != "--scrapy-own"]
    missing = [m for m in NEEDED if not (source / m).exists()]
    if missing:
        print(f"{source} lacks {', '.join(missing)}: not a whole Scrapy source tree "
              "(the modules need its conftest.py and tests/ helpers)", file=sys.stderr)
        return 2
    env = dict(os.environ)
    # The tree itself (its tests package, also for the mock server's
    # subprocess), this directory (the plugin) and the caller's path
    # (crawl_sieve from the build tree).
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(source), str(HERE), env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs"]
    if not own:
        command += ["-p", "sieve_swap"]
    return subprocess.call(command + [*MODULES, *rest], cwd=source, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
