'use strict';
// save(dir) then Sieve.open(dir): the seen set, the lanes and their order,
// the in-flight URLs, lifo; errors name the checkpoint.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Sieve, SieveError, small, tempDir, url, drain } = require('./helpers');

test('a reopened Sieve keeps the queue, its payloads and the seen set', async (t) => {
  const dir = tempDir(t);
  const sieve = small(t);
  for (let i = 0; i < 3000; ++i) sieve.push(url(i), `p${i}`, i % 3); // past the budget: spilled lanes
  const inFlight = sieve.tryPop();
  assert.equal(inFlight.priority, 2);
  await sieve.save(path.join(dir, 'ckpt'));
  sieve.close();
  const reopened = await Sieve.open(path.join(dir, 'ckpt'), { spillDir: dir, queueMemoryBudgetBytes: 64 << 10 });
  assert.ok(reopened instanceof Sieve);
  assert.equal(reopened.stats().queued, 3000, 'the in-flight URL is queued again');
  assert.equal(reopened.push(url(5), 'again'), false, 'seen before the save');
  assert.equal(reopened.push(url(4000), 'new'), true);
  const order = drain(reopened);
  assert.deepEqual(order[0], inFlight, 'the in-flight URL comes first in its lane');
  const expected = [2, 1, 0].flatMap((p) => Array.from({ length: 3000 }, (_, i) => i)
    .filter((i) => i % 3 === p && url(i) !== inFlight.url).map((i) => [url(i), `p${i}`, p]));
  expected.splice(expected.findIndex(([, , p]) => p === 0) + 1000, 0, [url(4000), 'new', 0]);
  assert.deepEqual(order.slice(1).map((e) => [e.url, e.payload.toString(), e.priority]), expected);
});

test('lifo survives save and open', async (t) => {
  const dir = tempDir(t);
  const sieve = small(t, { lifo: true });
  for (let i = 0; i < 5; ++i) sieve.push(url(i));
  await sieve.save(dir);
  const reopened = await Sieve.open(dir);
  reopened.push(url(10));
  assert.deepEqual(drain(reopened).map((e) => e.url), [10, 4, 3, 2, 1, 0].map(url));
});

test('save and open fail with a SieveError naming the checkpoint', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(Sieve.open(path.join(dir, 'missing')),
    (e) => e instanceof SieveError && e.code === 'SIEVE_NOT_FOUND' && /no sieve checkpoint/.test(e.message));
  fs.mkdirSync(path.join(dir, 'bad'));
  fs.writeFileSync(path.join(dir, 'bad', 'sieve.checkpoint'), 'not a checkpoint at all');
  await assert.rejects(Sieve.open(path.join(dir, 'bad')),
    (e) => e instanceof SieveError && /sieve.checkpoint/.test(e.message));
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, '');
  await assert.rejects(small(t).save(path.join(file, 'ckpt')),
    (e) => e instanceof SieveError && e.message.includes(file));
  assert.throws(() => Sieve.open(dir, { expectedCount: 5 }),
    { name: 'TypeError', message: /unknown option expectedCount \(Sieve.open takes/ });
});
