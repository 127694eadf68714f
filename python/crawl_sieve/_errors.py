"""The exceptions of crawl_sieve (kept apart so the C++ binding can raise them)."""


class SieveError(Exception):
    """A Sieve operation failed: a damaged checkpoint, a disk error.

    Bad options raise ValueError and a missing checkpoint FileNotFoundError,
    each with the message naming the field or the file.
    """
