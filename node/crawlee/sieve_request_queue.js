'use strict';
// SieveRequestQueue: a Crawlee request manager (Crawlee's IRequestManager,
// the `requestManager` option of every crawler) backed by the Sieve.
//
//   const { CheerioCrawler } = require('@crawlee/cheerio');
//   const { SieveRequestQueue } = require('crawl-sieve/crawlee/sieve_request_queue');
//
//   const requestManager = await SieveRequestQueue.open({ checkpointDir: 'crawl-state',
//                                                          expectedCount: 1e7 });
//   const crawler = new CheerioCrawler({
//     requestQueue: requestManager,   // Crawlee 3.18's option check refuses `requestManager`
//     async requestHandler({ enqueueLinks }) { await enqueueLinks(); },
//   });
//   await crawler.run(['https://example.com/']);
//   await requestManager.checkpoint();      // or now and then during the crawl
//
// What Crawlee's RequestQueue keeps per request (a JSON record in a map, and
// on disk a file per request) the Sieve keeps as a Bloom filter bit set
// (~1.2 bytes per request at fpRate 0.01) plus the queued requests, which
// spill to disk past queueMemoryBudgetBytes.
//
// - uniqueKey is the Sieve's key: a request whose uniqueKey was added before
//   is dropped (wasAlreadyPresent). As in every Bloom filter, a new request
//   is wrongly taken for a seen one at the rate fpRate (0.01 by default).
// - The request (Request#toJSON, with userData, headers, retryCount) is the
//   payload, at most 16 KiB of JSON; a longer one is refused with an error.
// - forefront: true queues into a higher lane (priority 1): before every
//   other request, FIFO among the forefront ones (Crawlee's own queue is
//   LIFO among them).
// - fetchNextRequest pops without waiting (null when nothing is queued);
//   the request is then in flight until markRequestHandled or
//   reclaimRequest. reclaimRequest queues the updated request (its
//   retryCount, errorMessages) again under a fresh key and ends the old one.
// - checkpoint() saves the Sieve (seen set, queue, lanes; the requests in
//   flight are queued again) and the handled count into checkpointDir;
//   SieveRequestQueue.open({checkpointDir}) resumes from it.
//
// Threading: Crawlee calls it from its one JS thread; every method is quick
// (the Sieve's memory), checkpoint() writes on libuv's pool.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { Request, getRequestId } = require('@crawlee/core');

// The crawl-sieve package this file sits in (node/, or the installed
// crawl-sieve); @crawlee/core is the embedding project's.
const { Sieve, SieveError, MAX_PAYLOAD_BYTES } = require('..');

const FOREFRONT_PRIORITY = 1;
const STATE_FILE = 'crawlee-request-queue.json';
// A reclaimed request's fresh key: the uniqueKey, a separator no URL holds,
// a random nonce (a nonce the filter wrongly takes for seen is drawn again).
const RECLAIM_SEPARATOR = '\u0000reclaim\u0000';
const RECLAIM_ATTEMPTS = 32;

// A Request with its id, as Crawlee's own queue sets it (a hash of uniqueKey).
function toRequest(source) {
  const request = source instanceof Request
    ? source : new Request(typeof source === 'string' ? { url: source } : source);
  request.id ??= getRequestId(request.uniqueKey);
  return request;
}

class SieveRequestQueue {
  /** sieve: the Sieve to use; checkpointDir: where checkpoint() writes. */
  constructor({ sieve, checkpointDir, handled = 0 }) {
    this.sieve = sieve;
    this.checkpointDir = checkpointDir;
    this.handled = handled;
    this.inFlight = new Map(); // request id -> the Sieve key it was popped under
    this.reclaims = 0;         // queued again under a fresh key: not new requests
    // Crawlee's BasicCrawler sets these on its request queue; unused here.
    this.internalTimeoutMillis = 5 * 60 * 1000;
    this.requestLockSecs = 60;
  }

  /** A queue on a new Sieve (options: expectedCount, fpRate, spillDir,
   * queueMemoryBudgetBytes, overflow, log), or the one checkpointDir holds. */
  static async open({ checkpointDir, ...sieveOptions } = {}) {
    const statePath = checkpointDir && path.join(checkpointDir, STATE_FILE);
    if (statePath && fs.existsSync(statePath)) {
      const state = JSON.parse(fs.readFileSync(statePath, 'utf8'));
      const { expectedCount, fpRate, overflow, lifo, ...runtime } = sieveOptions;
      const sieve = await Sieve.open(path.join(checkpointDir, 'sieve'), runtime);
      const queue = new SieveRequestQueue({ sieve, checkpointDir, handled: state.handled });
      queue.reclaims = state.reclaims;
      return queue;
    }
    return new SieveRequestQueue({ sieve: new Sieve(sieveOptions), checkpointDir });
  }

  /** Saves the queue into checkpointDir (or dir): the Sieve, then the counts. */
  async checkpoint(dir = this.checkpointDir) {
    if (!dir) throw new TypeError('checkpoint: no directory (give one, or checkpointDir to open)');
    await this.sieve.save(path.join(dir, 'sieve'));
    const state = { handled: this.handled, reclaims: this.reclaims };
    const temporary = path.join(dir, `${STATE_FILE}.tmp`);
    fs.writeFileSync(temporary, JSON.stringify(state));
    fs.renameSync(temporary, path.join(dir, STATE_FILE));
  }

  info(request, wasAlreadyPresent, forefront) {
    return {
      requestId: request.id,
      uniqueKey: request.uniqueKey,
      wasAlreadyPresent,
      wasAlreadyHandled: false, // unknown: the filter says "seen", not "handled"
      forefront: Boolean(forefront),
    };
  }

  async addRequest(requestLike, { forefront = false } = {}) {
    const request = toRequest(requestLike);
    const accepted = this.sieve.push(request.uniqueKey, JSON.stringify(request),
      forefront ? FOREFRONT_PRIORITY : 0);
    return this.info(request, !accepted, forefront);
  }

  /** Adds every request now (Crawlee's queue adds the first batch and the
   * rest in the background; the Sieve's pushes are cheap). maxNewRequests
   * caps the requests accepted as new; the rest are in requestsOverLimit. */
  async addRequestsBatched(requests, { forefront = false, maxNewRequests } = {}) {
    const sources = [];
    for await (const source of requests) sources.push(source);
    const added = [];
    const overLimit = [];
    const priority = forefront ? FOREFRONT_PRIORITY : 0;
    if (maxNewRequests === undefined) {
      const batch = sources.map(toRequest);
      const payloads = batch.map((r) => JSON.stringify(r));
      // pushBatch refuses an oversized payload silently: say which, as push() would.
      const tooLong = payloads.findIndex((p) => Buffer.byteLength(p) > MAX_PAYLOAD_BYTES);
      if (tooLong >= 0) {
        const error = new SieveError(`request ${batch[tooLong].url} is ${Buffer.byteLength(payloads[tooLong])} ` +
          `bytes of JSON, over the Sieve's payload limit of ${MAX_PAYLOAD_BYTES}`);
        error.code = 'SIEVE_REFUSED';
        throw error;
      }
      const accepted = this.sieve.pushBatch(batch.map((r) => r.uniqueKey), payloads,
        batch.map(() => priority));
      batch.forEach((r, i) => added.push(this.info(r, !accepted[i], forefront)));
    } else {
      let budget = maxNewRequests;
      for (const source of sources) {
        if (budget <= 0) {
          overLimit.push(source);
          continue;
        }
        const info = await this.addRequest(source, { forefront });
        if (!info.wasAlreadyPresent) --budget;
        added.push(info);
      }
    }
    return { addedRequests: added, waitForAllRequestsToBeAdded: Promise.resolve(added),
      requestsOverLimit: overLimit };
  }

  async addRequests(requests, options) {
    const { addedRequests } = await this.addRequestsBatched(requests, options);
    return { processedRequests: addedRequests, unprocessedRequests: [] };
  }

  async fetchNextRequest() {
    const entry = this.sieve.tryPop();
    if (entry === null) return null;
    const request = new Request(JSON.parse(entry.payload.toString('utf8')));
    this.inFlight.set(request.id, entry.url);
    return request;
  }

  async markRequestHandled(request) {
    const key = this.inFlight.get(request.id);
    if (key === undefined) return null; // not fetched from this queue, or handled already
    this.inFlight.delete(request.id);
    request.handledAt ??= new Date().toISOString();
    this.sieve.done(key);
    ++this.handled;
    return this.info(request, true, false);
  }

  /** Queues the request again, as it is now (retryCount, errorMessages). */
  async reclaimRequest(request, { forefront = false } = {}) {
    const key = this.inFlight.get(request.id);
    if (key === undefined) return null;
    const payload = JSON.stringify(request);
    const priority = forefront ? FOREFRONT_PRIORITY : 0;
    for (let attempt = 0; attempt < RECLAIM_ATTEMPTS; ++attempt) {
      const fresh = request.uniqueKey + RECLAIM_SEPARATOR + crypto.randomUUID();
      if (this.sieve.push(fresh, payload, priority)) {
        this.inFlight.delete(request.id);
        this.sieve.done(key);
        ++this.reclaims;
        return this.info(request, true, forefront);
      }
    }
    throw new Error(`reclaimRequest: the Sieve took ${RECLAIM_ATTEMPTS} fresh keys for ${request.url} ` +
      'as seen: its filter is saturated (stats().fillRatio)');
  }

  async isEmpty() {
    return this.sieve.stats().queued === 0;
  }

  async isFinished() {
    return this.sieve.stats().queued === 0 && this.inFlight.size === 0;
  }

  async handledCount() {
    return this.handled;
  }

  /** Requests accepted as new (reclaims are not new requests). */
  getTotalCount() {
    return this.sieve.stats().accepted - this.reclaims;
  }

  getPendingCount() {
    return this.sieve.stats().queued + this.inFlight.size;
  }

  /** Crawlee's RequestQueueInfo fields that have a meaning here. */
  async getInfo() {
    const stats = this.sieve.stats();
    return {
      totalRequestCount: stats.accepted - this.reclaims,
      handledRequestCount: this.handled,
      pendingRequestCount: stats.queued + this.inFlight.size,
      sieve: stats,
    };
  }

  async* [Symbol.asyncIterator]() {
    for (;;) {
      const request = await this.fetchNextRequest();
      if (request === null) return;
      yield request;
    }
  }
}

module.exports = { SieveRequestQueue };
