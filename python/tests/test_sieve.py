"""The Python API's contract (issue 18): exactly-once under threads, FIFO order,
save/open, errors as exceptions with the message, the Pythonic protocols."""
import threading

import pytest

from crawl_sieve import MAX_PAYLOAD_BYTES, Entry, Sieve, SieveError


def small(tmp_path, **kw):
    kw.setdefault("expected_count", 100_000)
    return Sieve(spill_dir=str(tmp_path), queue_memory_budget_bytes=64 << 10, **kw)


def url(i):
    return f"https://host{i % 97}.test/page/{i}"


def test_fifo_order_with_payloads_as_bytes(tmp_path):
    sieve = small(tmp_path)
    for i in range(5000):  # past the 64 KiB budget: through spill files
        assert sieve.push(url(i), str(i).encode())
    assert not sieve.push(url(7), b"again")
    assert len(sieve) == 5000
    for i in range(5000):
        entry = sieve.try_pop()
        assert entry == Entry(url(i), str(i).encode())
        assert isinstance(entry.payload, bytes)
        assert sieve.done(entry.url)
    assert sieve.try_pop() is None
    assert len(sieve) == 0


def test_push_lazy_makes_a_payload_only_for_a_new_url(tmp_path):
    sieve = small(tmp_path)
    made = []

    def payload(i):
        def make():
            made.append(i)
            return str(i).encode()
        return make

    for _ in range(3):
        for i in range(200):
            sieve.push_lazy(url(i), payload(i))
    assert made == list(range(200))
    assert sieve.push_lazy(url(500), lambda: None) is False  # declined: stays unseen

    def fails():
        raise RuntimeError("no pickle today")
    with pytest.raises(RuntimeError, match="no pickle today"):
        sieve.push_lazy(url(501), fails)
    with pytest.raises(ValueError, match="over the limit"):
        sieve.push_lazy(url(502), lambda: b"x" * (MAX_PAYLOAD_BYTES + 1))
    with pytest.raises(TypeError, match="bytes or None"):
        sieve._impl.push_lazy(url(503), lambda: 42)  # past the wrapper's own check
    for i in (500, 501, 502, 503):
        assert sieve.push(url(i))  # none of the four was marked seen
    assert sieve.try_pop() == Entry(url(0), b"0")


def test_exactly_once_under_threads(tmp_path):
    sieve = small(tmp_path)
    urls = [url(i) for i in range(20_000)]
    accepted = []
    lock = threading.Lock()

    def producer(shift):
        # Every thread pushes every URL (single and batch pushes mixed).
        mine = urls[shift:] + urls[:shift]
        results = sieve.push_batch(mine[:10_000]) + [sieve.push(u) for u in mine[10_000:]]
        with lock:
            accepted.extend(u for u, ok in zip(mine, results) if ok)

    threads = [threading.Thread(target=producer, args=(k * 4999,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(accepted) == sorted(urls)  # each accepted exactly once

    popped = []

    def consumer():
        for entry in sieve:
            with lock:
                popped.append(entry.url)
            sieve.done(entry.url)

    consumers = [threading.Thread(target=consumer) for _ in range(4)]
    for t in consumers:
        t.start()
    for t in consumers:
        t.join()
    assert sorted(popped) == sorted(urls)
    stats = sieve.stats()
    assert stats["accepted"] == 20_000
    assert stats["dropped"] == 3 * 20_000
    assert stats["done"] == 20_000


def test_a_consumer_started_before_its_producer_gets_every_url(tmp_path):
    sieve = small(tmp_path)
    got = []
    with sieve.producer():
        consumer = threading.Thread(target=lambda: got.extend(
            e.url for e in sieve if sieve.done(e.url)))
        consumer.start()
        consumer.join(0.05)
        assert consumer.is_alive()  # waiting, not finished
        sieve.push_batch([url(i) for i in range(1000)])
    consumer.join(10)
    assert not consumer.is_alive()
    assert got == [url(i) for i in range(1000)]  # one consumer: FIFO
    assert sieve.is_finished()


def test_pop_with_timeout_and_close(tmp_path):
    sieve = small(tmp_path)
    sieve.add_producer()
    assert sieve.pop(timeout=0.01) is None
    assert not sieve.is_finished()
    waiter = threading.Thread(target=lambda: sieve.pop())
    waiter.start()
    sieve.close()
    waiter.join(10)
    assert not waiter.is_alive()
    assert sieve.is_finished()
    assert not sieve.push(url(1))
    assert sieve.stats()["closed"] is True


def test_context_manager_closes(tmp_path):
    with small(tmp_path) as sieve:
        sieve.push(url(1))
    assert sieve.stats()["closed"]
    assert sieve.pop() is None


def test_save_and_open_keep_the_seen_set_and_the_queue(tmp_path):
    sieve = small(tmp_path)
    for i in range(300):
        sieve.push(url(i), bytes([i % 256]))
    first = sieve.pop()
    assert first.url == url(0)  # in flight at the save: queued first again
    sieve.save(str(tmp_path / "cp"))
    reopened = Sieve.open(str(tmp_path / "cp"), spill_dir=str(tmp_path))
    assert not reopened.push(url(5))
    assert len(reopened) == 300
    popped = []
    for entry in reopened:  # iteration waits while a URL is in flight: mark each done
        popped.append(entry.url)
        reopened.done(entry.url)
    assert popped == [url(i) for i in range(300)]
    assert reopened.stats()["accepted"] == 300


def test_errors_are_exceptions_with_the_message(tmp_path):
    with pytest.raises(ValueError, match="fp_rate"):
        Sieve(expected_count=10, fp_rate=2.0)
    with pytest.raises(ValueError, match="expected_count"):
        Sieve(expected_count=0)
    with pytest.raises(ValueError, match="overflow policy"):
        Sieve(expected_count=10, overflow="explode")
    with pytest.raises(FileNotFoundError, match="no sieve checkpoint"):
        Sieve.open(str(tmp_path / "missing"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "sieve.checkpoint").write_bytes(b"not a checkpoint at all")
    with pytest.raises(SieveError, match="sieve.checkpoint"):
        Sieve.open(str(tmp_path / "bad"))
    sieve = small(tmp_path)
    with pytest.raises(ValueError, match="over the limit"):
        sieve.push(url(1), b"x" * (MAX_PAYLOAD_BYTES + 1))
    assert sieve.stats()["refused"] == 1
    with pytest.raises(TypeError, match="bytes"):
        sieve.push(url(1), "text")
    with pytest.raises(ValueError, match="one element per URL"):
        sieve.push_batch([url(1), url(2)], [b"a"])


def test_messages_go_to_the_log_callback(tmp_path):
    messages = []
    sieve = small(tmp_path, expected_count=100, log=lambda level, text: messages.append((level, text)))
    sieve.push_batch([url(i) for i in range(150)])
    warnings = [text for level, text in messages if level == 2]
    assert len(warnings) == 1
    assert "SieveOptions::expected_count" in warnings[0]


def test_default_log_is_the_logging_module(tmp_path, caplog):
    sieve = small(tmp_path, expected_count=100)
    with caplog.at_level("WARNING", logger="crawl_sieve"):
        for i in range(150):
            sieve.push(url(i))
    assert any("SieveOptions::expected_count" in r.getMessage() for r in caplog.records)


def test_stats_is_a_dict_of_numbers(tmp_path):
    sieve = small(tmp_path)
    sieve.push(url(1))
    stats = sieve.stats()
    assert stats["queued"] == 1
    assert stats["capacity"] == 100_000
    assert stats["filter_bytes"] > 0
    assert 0 < stats["fill_ratio"] < 1
