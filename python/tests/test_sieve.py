"""The Python API's contract: exactly-once under threads, FIFO order,
save/open, errors as exceptions with the message, the Pythonic protocols."""
import inspect
import shutil
import threading
import typing

import pytest

from crawl_sieve import MAX_PAYLOAD_BYTES, Entry, Sieve, SieveError, SieveStats


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


def test_priorities_pop_highest_first_fifo_within_one(tmp_path):
    sieve = small(tmp_path)
    priorities = [0, 5, -2, 5, 0, 1, -2, 5]
    for i, priority in enumerate(priorities):
        assert sieve.push(url(i), str(i).encode(), priority=priority)
    assert not sieve.push(url(0), b"", priority=9)  # one filter for every lane
    stats = sieve.stats()
    assert stats["lane_count"] == 4
    assert list(stats["lanes"].items()) == [(5, 3), (1, 1), (0, 2), (-2, 2)]
    got = [sieve.try_pop() for _ in priorities]
    assert [e.priority for e in got] == [5, 5, 5, 1, 0, 0, -2, -2]
    assert [int(e.payload) for e in got] == [1, 3, 7, 5, 0, 4, 2, 6]
    assert got[0] == Entry(url(1), b"1", 5)


def test_lifo_within_a_priority_survives_save_and_open(tmp_path):
    sieve = small(tmp_path / "a", lifo=True)
    for i in range(3000):  # past the budget: the lanes spill
        sieve.push(url(i), b"", priority=i % 3)
    first = sieve.try_pop()
    assert first.url == url(2999) and first.priority == 2  # the newest of the top lane
    sieve.save(str(tmp_path / "ckpt"))
    restored = Sieve.open(str(tmp_path / "ckpt"), spill_dir=str(tmp_path),
                          queue_memory_budget_bytes=64 << 10)
    # The in-flight URL comes back first, then LIFO within each lane.
    order = [restored.try_pop() for _ in range(3000)]
    assert order[0].url == url(2999)
    expected = [url(i) for p in (2, 1, 0) for i in range(2999, -1, -1) if i % 3 == p and i != 2999]
    assert [e.url for e in order[1:]] == expected
    restored.push(url(5000), b"", priority=0)
    assert restored.try_pop().url == url(5000)  # still LIFO after the restore


def test_push_batch_and_push_lazy_take_priorities(tmp_path):
    sieve = small(tmp_path)
    assert sieve.push_batch([url(1), url(2), url(3)], priorities=[-1, 4, 0]) == [True, True, True]
    assert sieve.push_lazy(url(4), lambda: b"lazy", priority=9)
    assert [(e.url, e.priority) for e in iter(sieve.try_pop, None)] == [
        (url(4), 9), (url(2), 4), (url(3), 0), (url(1), -1)]
    with pytest.raises(ValueError, match="priorities must have one element per URL"):
        sieve.push_batch([url(5)], priorities=[1, 2])


def test_priority_errors(tmp_path):
    sieve = small(tmp_path)
    with pytest.raises(ValueError, match="outside"):
        sieve.push(url(1), priority=1 << 31)
    with pytest.raises(TypeError, match="priority must be an int"):
        sieve.push(url(1), priority=1.5)
    for i in range(1024):
        assert sieve.push(url(i), priority=i)
    with pytest.raises(SieveError, match="1024 priorities"):
        sieve.push(url(5000), priority=-1)
    assert sieve.stats()["refused"] == 1
    assert not sieve.push(url(0), priority=3)  # seen, at a lane that exists: no error


def test_defer_keeps_the_priority(tmp_path):
    sieve = small(tmp_path)
    sieve.push(url(1), b"a", priority=2)
    sieve.push(url(2), b"b", priority=2)
    sieve.push(url(3), b"c", priority=0)
    entry = sieve.try_pop()
    assert sieve.defer(entry.url)
    assert [(e.url, e.priority) for e in iter(sieve.try_pop, None)] == [
        (url(2), 2), (url(1), 2), (url(3), 0)]


def test_health_raises_the_spill_failure_naming_the_directory(tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    sieve = small(spill)
    sieve.push_batch(url(i) for i in range(1000))
    sieve.stats()  # waits for pending spill writes
    assert sieve.health() is None
    shutil.rmtree(spill)
    sieve.push_batch(url(i) for i in range(1000, 21_000))  # far past the 64 KiB budget
    sieve.stats()
    with pytest.raises(SieveError, match=str(spill)):
        sieve.health()
    # The URLs stay in memory: none is lost.
    assert len(sieve) == 21_000
    assert sieve.stats()["spill_failures"] > 0
    assert sieve.stats()["lost"] == 0


def test_stats_returns_exactly_the_keys_of_its_typed_dict(tmp_path):
    stats = small(tmp_path).stats()
    assert set(stats) == set(SieveStats.__annotations__)
    for key, kind in SieveStats.__annotations__.items():
        if key == "estimated_count":
            kind = float  # Optional[float]; None only when the filter is saturated
        assert isinstance(stats[key], typing.get_origin(kind) or kind), key


def test_open_builds_a_sieve_without_a_hidden_constructor_argument(tmp_path):
    assert "_impl" not in inspect.signature(Sieve).parameters
    sieve = small(tmp_path)
    sieve.push(url(1), b"p")
    sieve.save(str(tmp_path / "cp"))
    reopened = Sieve.open(str(tmp_path / "cp"), spill_dir=str(tmp_path))
    assert type(reopened) is Sieve
    assert reopened.pop(timeout=0) == Entry(url(1), b"p", 0)
