'use strict';
// pop() returns a promise and never blocks the event loop: a pop that must
// wait is served by the Sieve's waiter thread while timers and I/O run.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Sieve, small, url } = require('./helpers');

const tick = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('a pop that waits lets a timer run, and the timer\'s push resolves it', async (t) => {
  const sieve = small(t);
  sieve.push(url(1));
  const first = await sieve.pop();
  assert.equal(first.url, url(1)); // in flight: a pop on the empty queue now waits
  let settled = false;
  const waiting = sieve.pop().then((entry) => { settled = true; return entry; });
  let timerRan = false;
  await new Promise((resolve) => setTimeout(() => { timerRan = true; resolve(); }, 20));
  assert.equal(timerRan, true);
  assert.equal(settled, false, 'nothing was pushed yet');
  assert.equal(sieve.push(url(2), 'late', 3), true);
  assert.deepEqual(await waiting, { url: url(2), payload: Buffer.from('late'), priority: 3 });
});

test('a pop on an empty queue with nothing in flight resolves null at once', async (t) => {
  const sieve = small(t);
  assert.equal(await sieve.pop(), null);
});

test('waiting pops resolve in order, each with one URL; done of the last in flight ends the rest', async (t) => {
  const sieve = small(t);
  sieve.push(url(0));
  const first = await sieve.pop();
  const waiting = [sieve.pop(), sieve.pop(), sieve.pop()];
  await tick(5);
  sieve.pushBatch([url(1), url(2)]);
  const got = [await waiting[0], await waiting[1]];
  assert.deepEqual(got.map((e) => e.url), [url(1), url(2)]);
  for (const entry of [first, ...got]) sieve.done(entry.url);
  assert.equal(await waiting[2], null, 'nothing in flight, nothing queued: finished');
});

test('close() resolves every waiting pop with null', async (t) => {
  const sieve = small(t);
  sieve.push(url(1));
  await sieve.pop();
  const waiting = [sieve.pop(), sieve.pop()];
  await tick(5);
  sieve.close();
  assert.deepEqual(await Promise.all(waiting), [null, null]);
  assert.equal(await sieve.pop(), null);
});

test('a consumer started before its producer gets every URL (withProducer)', async (t) => {
  const sieve = small(t);
  sieve.addProducer();
  const seen = [];
  const consumer = (async () => {
    for await (const entry of sieve) {
      seen.push(entry.url);
      sieve.done(entry.url);
    }
  })();
  for (let i = 0; i < 50; ++i) {
    sieve.push(url(i));
    if (i % 10 === 0) await tick(1);
  }
  sieve.producerDone();
  await consumer;
  assert.deepEqual(seen, Array.from({ length: 50 }, (_, i) => url(i)));
  assert.equal(sieve.isFinished(), true);
  const result = await sieve.withProducer(async (s) => { s.push(url(60)); return 7; });
  assert.equal(result, 7);
  assert.equal(sieve.stats().producers, 0);
});

test('concurrent consumers crawl a synthetic web exactly once', async (t) => {
  const sieve = small(t);
  // Page i links to 2i+1 and 2i+2, below 3000: every page once, whatever the order.
  sieve.push(url(0), '0');
  const fetched = new Map();
  const consumer = async () => {
    for await (const { url: u, payload } of sieve) {
      const i = Number(payload.toString());
      fetched.set(u, (fetched.get(u) || 0) + 1);
      await tick(0); // a fetch: other consumers run meanwhile
      for (const child of [2 * i + 1, 2 * i + 2]) if (child < 3000) sieve.push(url(child), String(child));
      sieve.done(u);
    }
  };
  await Promise.all(Array.from({ length: 8 }, consumer));
  assert.equal(fetched.size, 3000);
  assert.ok([...fetched.values()].every((n) => n === 1));
  assert.equal(sieve.stats().done, 3000);
});

test('a Sieve with a waiting pop is not collected under it', async () => {
  assert.equal(typeof global.gc, 'function', 'run with node --expose-gc (ctest does)');
  let waiting;
  // Only a WeakRef and the pending pop refer to the Sieve here.
  const weak = (() => {
    const sieve = new Sieve({ expectedCount: 1000 });
    sieve.push(url(1));
    sieve.tryPop();
    waiting = sieve.pop();
    return new WeakRef(sieve);
  })();
  for (let i = 0; i < 3; ++i) {
    await tick(1);
    global.gc();
  }
  const sieve = weak.deref();
  assert.ok(sieve, 'the Sieve was collected while a pop waited on it');
  sieve.push(url(2));
  assert.equal((await waiting).url, url(2));
});

test('a process whose Sieve is idle exits, after its waiting pops were served', () => {
  const { spawnSync } = require('node:child_process');
  const script = `
    const { Sieve } = require(${JSON.stringify(require.resolve('..'))});
    const sieve = new Sieve({ expectedCount: 1000 });
    sieve.push('https://a.test/');
    sieve.tryPop();
    sieve.pop().then((entry) => console.log('popped', entry.url));
    setTimeout(() => sieve.push('https://b.test/'), 10);
  `;
  // Bounded: a process kept alive by the idle waiter thread would be killed here.
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.equal(run.signal, null, 'the process did not exit on its own');
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'popped https://b.test/');
});
