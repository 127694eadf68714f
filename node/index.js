'use strict';
// crawl-sieve: the Sieve (a Bloom filter + a to-visit queue with priorities
// that spills to disk, with checkpoints) for Node.js crawlers.
//
//   const { Sieve } = require('crawl-sieve');
//   const sieve = new Sieve({ expectedCount: 1e6 });
//   sieve.push('https://example.com/', Buffer.from('depth=0'));
//   for await (const { url, payload } of sieve) {   // ends when the crawl is complete
//     for (const link of await fetchLinks(url)) sieve.push(link, 'depth=1');
//     sieve.done(url);
//   }
//
// A URL is enqueued the first time it is pushed and dropped afterwards (a
// few new URLs are wrongly dropped at the chosen false-positive rate, never a
// seen one enqueued twice). Pops hand out the highest priority first and,
// within one priority, the oldest URL (or the newest with lifo: true). A
// popped URL is in flight until done(url); a pop on an empty queue waits
// while a URL is in flight or a producer is open.
//
// Threading: call a Sieve from the JS thread that made it. pop() never
// blocks the event loop: it returns a promise, served at once when a URL is
// queued, otherwise by the Sieve's own waiter thread (not libuv's pool).
// save() and Sieve.open() do their disk work on libuv's pool. Everything
// else is synchronous and brief (the Sieve's locks, memory; a push past the
// memory budget hands a segment to the spill writer).
//
// Errors: TypeError/RangeError for bad arguments (naming them), SieveError
// (with .code, e.g. 'SIEVE_NOT_FOUND') for what the Sieve refuses or fails.
const path = require('node:path');

// CRAWL_SIEVE_ADDON (the tests: the addon CMake built) is resolved from the
// working directory.
const addonPath = process.env.CRAWL_SIEVE_ADDON
  ? path.resolve(process.env.CRAWL_SIEVE_ADDON)
  : path.join(__dirname, 'crawl_sieve.node');
const addon = require(addonPath);

/** A failure of the Sieve: a bad option value, a missing or damaged
 * checkpoint, a disk error, a refused push. `code` is the C API's status
 * name ('SIEVE_INVALID_ARGUMENT', 'SIEVE_NOT_FOUND', 'SIEVE_DATA_LOSS',
 * 'SIEVE_REFUSED', 'SIEVE_IO_ERROR', ...). */
class SieveError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SieveError';
  }
}
addon.setErrorClass(SieveError);

const { Sieve } = addon;

/** Restores the Sieve that save(dir) wrote: the seen set, the queue's lanes
 * in order (URLs in flight at the save come first in theirs), lifo, the
 * counters. Rejects with SieveError code SIEVE_NOT_FOUND without a
 * checkpoint, SIEVE_DATA_LOSS if it is damaged. */
Sieve.open = function open(dir, options) {
  return addon.open(dir, options);
};

/** Pops until nothing more will come; the caller marks each entry done(). */
Sieve.prototype[Symbol.asyncIterator] = async function* entries() {
  for (;;) {
    const entry = await this.pop();
    if (entry === null) return;
    yield entry;
  }
};

/** Runs fn with a producer open: pops wait for its URLs instead of
 * finishing on an empty queue. */
Sieve.prototype.withProducer = async function withProducer(fn) {
  this.addProducer();
  try {
    return await fn(this);
  } finally {
    this.producerDone();
  }
};

module.exports = {
  Sieve,
  SieveError,
  MAX_PAYLOAD_BYTES: addon.MAX_PAYLOAD_BYTES,
  MAX_LANES: addon.MAX_LANES,
  MIN_PRIORITY: -(2 ** 31),
  MAX_PRIORITY: 2 ** 31 - 1,
};
