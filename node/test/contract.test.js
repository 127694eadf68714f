'use strict';
// The binding's contract, as the Python package's (python/tests/test_sieve.py):
// order with priorities, FIFO and LIFO, duplicates dropped, payloads, batch
// pushes, stats, defer, errors as exceptions naming their cause.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Sieve, SieveError, MAX_PAYLOAD_BYTES, MAX_LANES, small, url, drain } = require('./helpers');

test('FIFO order with payloads, through spill files, duplicates dropped', (t) => {
  const sieve = small(t);
  for (let i = 0; i < 5000; ++i) assert.equal(sieve.push(url(i), String(i)), true);
  assert.equal(sieve.push(url(7), 'again'), false);
  assert.equal(sieve.stats().queued, 5000);
  assert.ok(sieve.stats().spilledSegments > 0, 'the 64 KiB budget should have spilled');
  for (let i = 0; i < 5000; ++i) {
    const entry = sieve.tryPop();
    assert.deepEqual(entry, { url: url(i), payload: Buffer.from(String(i)), priority: 0 });
    assert.equal(sieve.done(entry.url), true);
  }
  assert.equal(sieve.tryPop(), null);
  assert.equal(sieve.done(url(1)), false, 'done twice: no longer in flight');
  assert.equal(sieve.isFinished(), true);
});

test('payloads round-trip as bytes: Buffer, Uint8Array, string, none', (t) => {
  const sieve = small(t);
  const binary = Buffer.from([0, 255, 1, 0, 128]);
  sieve.push(url(1), binary);
  sieve.push(url(2), new Uint8Array([7, 0, 7]));
  sieve.push(url(3), 'héllo ✓');
  sieve.push(url(4));
  sieve.push(url(5), Buffer.alloc(MAX_PAYLOAD_BYTES, 0x61));
  const got = drain(sieve).map((e) => e.payload);
  assert.ok(got.every((p) => Buffer.isBuffer(p)));
  assert.deepEqual(got, [binary, Buffer.from([7, 0, 7]), Buffer.from('héllo ✓'), Buffer.alloc(0),
    Buffer.alloc(MAX_PAYLOAD_BYTES, 0x61)]);
});

test('priorities pop highest first, FIFO within one, one filter for every lane', (t) => {
  const sieve = small(t);
  const priorities = [0, 5, -2, 5, 0, 1, -2, 5];
  priorities.forEach((p, i) => assert.equal(sieve.push(url(i), String(i), p), true));
  assert.equal(sieve.push(url(0), '', 9), false);
  const stats = sieve.stats();
  assert.equal(stats.laneCount, 4);
  assert.deepEqual(stats.lanes, [{ priority: 5, queued: 3 }, { priority: 1, queued: 1 },
    { priority: 0, queued: 2 }, { priority: -2, queued: 2 }]);
  const got = drain(sieve);
  assert.deepEqual(got.map((e) => e.priority), [5, 5, 5, 1, 0, 0, -2, -2]);
  assert.deepEqual(got.map((e) => Number(e.payload.toString())), [1, 3, 7, 5, 0, 4, 2, 6]);
});

test('lifo pops the newest first within a priority', (t) => {
  const sieve = small(t, { lifo: true });
  for (let i = 0; i < 6; ++i) sieve.push(url(i), '', i % 2);
  assert.deepEqual(drain(sieve).map((e) => e.url), [5, 3, 1, 4, 2, 0].map(url));
});

test('pushBatch takes payloads and priorities, one result per URL', (t) => {
  const sieve = small(t);
  assert.deepEqual(sieve.pushBatch([url(1), url(2), url(3), url(1)], ['a', 'b', 'c', 'd'], [-1, 4, 0, 9]),
    [true, true, true, false]);
  assert.deepEqual(sieve.pushBatch([url(2), url(4)]), [false, true]);
  const big = Buffer.alloc(MAX_PAYLOAD_BYTES + 1);
  assert.deepEqual(sieve.pushBatch([url(5), url(6)], [big, 'ok']), [false, true]);
  assert.deepEqual(drain(sieve).map((e) => [e.url, e.priority, e.payload.toString()]), [
    [url(2), 4, 'b'], [url(3), 0, 'c'], [url(4), 0, ''], [url(6), 0, 'ok'], [url(1), -1, 'a']]);
  assert.throws(() => sieve.pushBatch([url(7)], null, [1, 2]), {
    name: 'RangeError', message: /one element per URL/ });
  assert.throws(() => sieve.pushBatch('not an array'), { name: 'TypeError', message: /urls must be an array/ });
});

test('defer puts a popped URL back behind its lane, with its payload', (t) => {
  const sieve = small(t);
  sieve.push(url(1), 'a', 2);
  sieve.push(url(2), 'b', 2);
  sieve.push(url(3), 'c', 0);
  const first = sieve.tryPop();
  assert.equal(sieve.defer(first.url), true);
  assert.equal(sieve.defer(url(99)), false);
  assert.deepEqual(drain(sieve).map((e) => [e.url, e.priority, e.payload.toString()]),
    [[url(2), 2, 'b'], [url(1), 2, 'a'], [url(3), 0, 'c']]);
});

test('stats counts what happened', (t) => {
  const sieve = small(t);
  sieve.pushBatch([url(1), url(2), url(3), url(1)]);
  sieve.done(sieve.tryPop().url);
  sieve.tryPop();
  const s = sieve.stats();
  assert.equal(s.accepted, 3);
  assert.equal(s.dropped, 1);
  assert.equal(s.popped, 2);
  assert.equal(s.done, 1);
  assert.equal(s.inFlight, 1);
  assert.equal(s.queued, 1);
  assert.equal(s.capacity, 100000);
  assert.equal(s.closed, false);
  assert.ok(s.filterBytes > 0);
  assert.ok(s.fillRatio > 0 && s.fillRatio < 1);
  assert.ok(Math.abs(s.estimatedCount - 3) < 1, `estimatedCount ${s.estimatedCount}`);
  sieve.close();
  assert.equal(sieve.stats().closed, true);
});

test('bad options throw, naming the option', (t) => {
  assert.throws(() => new Sieve({ expectedCount: 10, fpRate: 2 }),
    (e) => e instanceof SieveError && e.code === 'SIEVE_INVALID_ARGUMENT' && /fp_rate/.test(e.message));
  assert.throws(() => new Sieve({ expectedCount: 0 }), { name: 'SieveError', message: /expected_count/ });
  assert.throws(() => new Sieve({ expectedCount: 10, overflow: 'explode' }),
    { name: 'RangeError', message: /overflow is 'explode'/ });
  assert.throws(() => new Sieve({ expected_count: 10 }), { name: 'TypeError', message: /unknown option expected_count/ });
  assert.throws(() => new Sieve({ fpRate: '0.1' }), { name: 'TypeError', message: /fpRate must be a number/ });
  assert.throws(() => new Sieve({ expectedCount: -5 }), { name: 'RangeError', message: /expectedCount/ });
  assert.throws(() => new Sieve({ spillDir: 5 }), { name: 'TypeError', message: /spillDir/ });
  assert.throws(() => new Sieve({ log: 'stderr' }), { name: 'TypeError', message: /log must be a function/ });
  assert.throws(() => Sieve({}), { name: 'TypeError', message: /use new Sieve/ });
});

test('bad arguments throw, naming the argument; a refused push says why', (t) => {
  const sieve = small(t);
  assert.throws(() => sieve.push(42), { name: 'TypeError', message: /url must be a string/ });
  assert.throws(() => sieve.push(url(1), 42), { name: 'TypeError', message: /payload must be a Buffer/ });
  assert.throws(() => sieve.push(url(1), '', 1.5), { name: 'RangeError', message: /priority 1.5 is not an integer/ });
  assert.throws(() => sieve.push(url(1), '', 2 ** 31), { name: 'RangeError', message: /priority 2147483648/ });
  assert.throws(() => sieve.push(url(1), '', '3'), { name: 'TypeError', message: /priority must be a number/ });
  assert.throws(() => sieve.push(url(1), Buffer.alloc(MAX_PAYLOAD_BYTES + 1)),
    (e) => e instanceof SieveError && e.code === 'SIEVE_REFUSED' && /payload of 16385 bytes/.test(e.message));
  assert.equal(sieve.stats().refused, 1);
  for (let i = 0; i < MAX_LANES; ++i) assert.equal(sieve.push(url(i), '', i), true);
  assert.throws(() => sieve.push(url(5000), '', -1),
    (e) => e.code === 'SIEVE_REFUSED' && /priority -1 would open a lane past SIEVE_MAX_LANES/.test(e.message));
  assert.equal(sieve.push(url(0), '', 3), false, 'seen, at a lane that exists: no error');
  // V8 checks the receiver before the addon does ("Illegal invocation").
  assert.throws(() => Sieve.prototype.push.call({}, url(1)), { name: 'TypeError' });
});

test('a push after close is refused without an error, as in Python', (t) => {
  const sieve = small(t);
  sieve.push(url(1));
  sieve.close();
  assert.equal(sieve.push(url(2)), false);
  assert.equal(sieve.tryPop(), null);
  assert.equal(sieve.stats().queued, 1, 'what was queued stays');
});

test('messages go to the log callback on the JS thread', async (t) => {
  const messages = [];
  const sieve = small(t, { expectedCount: 100, log: (level, text) => messages.push([level, text]) });
  sieve.pushBatch(Array.from({ length: 150 }, (_, i) => url(i)));
  // Delivered asynchronously: wait until the warning arrives (bounded).
  for (let i = 0; i < 200 && !messages.some(([level]) => level === 2); ++i) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const warnings = messages.filter(([level]) => level === 2);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0][1], /SieveOptions::expected_count/);
});

test('health is quiet while spills succeed and names the directory once they fail', (t) => {
  const fs = require('node:fs');
  const path = require('node:path');
  const { tempDir } = require('./helpers');
  const spill = path.join(tempDir(t), 'spill');
  fs.mkdirSync(spill);
  const sieve = new Sieve({
    expectedCount: 100000, spillDir: spill, queueMemoryBudgetBytes: 64 << 10, log: () => {},
  });
  sieve.pushBatch(Array.from({ length: 1000 }, (_, i) => url(i)));
  sieve.stats(); // waits for pending spill writes
  assert.equal(sieve.health(), undefined);
  fs.rmSync(spill, { recursive: true });
  sieve.pushBatch(Array.from({ length: 20000 }, (_, i) => url(1000 + i)));
  sieve.stats();
  assert.throws(() => sieve.health(), (e) => e instanceof SieveError && e.message.includes(spill));
  assert.equal(sieve.stats().queued, 21000, 'the URLs stay in memory');
  assert.equal(sieve.stats().lost, 0);
});
