"""pytest setup: the crawl_sieve package under test is the build tree's
(PYTHONPATH=<build>/python, as scripts/test sets it); import it from there only,
never from an installed copy."""
import os

import crawl_sieve


def pytest_report_header(config):
    return f"crawl_sieve from {os.path.dirname(crawl_sieve.__file__)}"
