'use strict';
// SieveRequestQueue's request-queue contract without a crawler: uniqueKey
// dedup, forefront, the request round trip, reclaim keeping the updated
// request, counts, a refused oversized request, checkpoint and open.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.CRAWL_SIEVE_ADDON) throw new Error('CRAWL_SIEVE_ADDON must name the built addon (ctest sets it)');
const { Request } = require('@crawlee/core');
const { SieveRequestQueue } = require('..');

const open = (options = {}) => SieveRequestQueue.open({ expectedCount: 10000, ...options });

test('uniqueKey dedup, forefront first, requests round-trip with their userData', async () => {
  const queue = await open();
  const first = await queue.addRequest({ url: 'http://a.test/x', userData: { depth: 1 }, label: 'LIST' });
  assert.equal(first.wasAlreadyPresent, false);
  assert.equal((await queue.addRequest('http://a.test/x')).wasAlreadyPresent, true, 'same uniqueKey');
  assert.equal((await queue.addRequest({ url: 'http://a.test/x', uniqueKey: 'other' })).wasAlreadyPresent, false);
  const batch = await queue.addRequestsBatched(['http://b.test/', 'http://a.test/x', 'http://c.test/'], { forefront: true });
  assert.deepEqual(batch.addedRequests.map((r) => [r.uniqueKey, r.wasAlreadyPresent, r.forefront]),
    [['http://b.test', false, true], ['http://a.test/x', true, true], ['http://c.test', false, true]]);
  assert.equal(await queue.isEmpty(), false);
  const order = [];
  for await (const request of queue) {
    assert.ok(request instanceof Request);
    order.push(request.url);
    if (request.uniqueKey === 'http://a.test/x') {
      assert.deepEqual(request.userData, { depth: 1, label: 'LIST' });
      assert.equal(request.id, first.requestId);
    }
    await queue.markRequestHandled(request);
  }
  assert.deepEqual(order, ['http://b.test/', 'http://c.test/', 'http://a.test/x', 'http://a.test/x']);
  assert.equal(await queue.handledCount(), 4);
  assert.equal(queue.getTotalCount(), 4);
  assert.equal(await queue.isFinished(), true);
});

test('maxNewRequests caps the new requests; the rest come back over the limit', async () => {
  const queue = await open();
  await queue.addRequest('http://a.test/');
  const result = await queue.addRequestsBatched(['http://a.test/', 'http://b.test/', 'http://c.test/'],
    { maxNewRequests: 1 });
  assert.deepEqual(result.addedRequests.map((r) => r.wasAlreadyPresent), [true, false]);
  assert.deepEqual(result.requestsOverLimit, ['http://c.test/']);
});

test('reclaim queues the updated request again, once, behind the queue or at its front', async () => {
  const queue = await open();
  await queue.addRequestsBatched(['http://a.test/', 'http://b.test/', 'http://c.test/']);
  const a = await queue.fetchNextRequest();
  a.retryCount += 1;
  a.pushErrorMessage(new Error('503'));
  await queue.reclaimRequest(a);
  assert.equal(await queue.reclaimRequest(a), null, 'not in flight any more');
  const b = await queue.fetchNextRequest();
  await queue.reclaimRequest(b, { forefront: true });
  const order = [];
  for await (const request of queue) {
    order.push([request.url, request.retryCount, request.errorMessages.length]);
    await queue.markRequestHandled(request);
  }
  assert.deepEqual(order, [['http://b.test/', 0, 0], ['http://c.test/', 0, 0], ['http://a.test/', 1, 1]]);
  assert.equal(queue.getTotalCount(), 3, 'reclaims are not new requests');
  assert.equal(await queue.handledCount(), 3);
});

test('an oversized request is refused with the reason', async () => {
  const queue = await open();
  const big = { url: 'http://a.test/', userData: { blob: 'x'.repeat(20000) } };
  await assert.rejects(queue.addRequest(big), { name: 'SieveError', code: 'SIEVE_REFUSED' });
  await assert.rejects(queue.addRequestsBatched([big]), { name: 'SieveError', message: /http:\/\/a.test\/ is \d+ bytes/ });
});

test('checkpoint then open keeps the queue, the seen set and the handled count', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawl-sieve-queue-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const queue = await open({ checkpointDir: dir });
  await queue.addRequestsBatched(['http://a.test/', 'http://b.test/', 'http://c.test/']);
  await queue.markRequestHandled(await queue.fetchNextRequest());
  const inFlight = await queue.fetchNextRequest();
  await queue.checkpoint();
  const resumed = await SieveRequestQueue.open({ checkpointDir: dir });
  assert.equal(await resumed.handledCount(), 1);
  assert.equal((await resumed.addRequest('http://a.test/')).wasAlreadyPresent, true);
  const order = [];
  for await (const request of resumed) order.push(request.url);
  assert.deepEqual(order, [inFlight.url, 'http://c.test/'], 'the in-flight request is queued again, first');
});
