'use strict';
// One measurement of bench/crawlee-sieve/run.js, in its own process:
//   node --expose-gc one.js <crawlee-memory|crawlee-persist|sieve> <N> <dir> <fetch|nofetch>
// prints one JSON line.
const fs = require('node:fs');
const path = require('node:path');
const { duBytes } = require('./measure');

const crawleeDir = path.join(__dirname, '../../node/crawlee');
const { RequestQueue, Configuration, log } = require(path.join(crawleeDir, 'node_modules/@crawlee/core'));
const { SieveRequestQueue } = require(crawleeDir);

const [kind, nText, dir, fetchMode] = process.argv.slice(2);
const n = Number(nText);
log.setLevel(log.LEVELS.ERROR);
const FETCHES = 1000;

function rss() {
  global.gc();
  global.gc();
  return process.memoryUsage().rss;
}

// CPU time (user + system, every thread of the process) since `from`: on a
// shared machine under nice 19 wall time says more about the neighbours.
function cpuSeconds(from) {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
}


function* urls(from, to) {
  for (let i = from; i < to; ++i) yield `https://host${i % 1000}.example/section/${i % 37}/page-${i}.html`;
}

async function openQueue() {
  if (kind === 'sieve') {
    return SieveRequestQueue.open({ expectedCount: n, spillDir: dir, queueMemoryBudgetBytes: 64 << 20 });
  }
  const config = new Configuration({ persistStorage: kind === 'crawlee-persist', storageClientOptions: { localDataDirectory: dir } });
  return RequestQueue.open(null, { config });
}

async function main() {
  const baseline = rss();
  const queue = await openQueue();
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  for (let from = 0; from < n; from += 1000) {
    await queue.addRequestsBatched([...urls(from, Math.min(n, from + 1000))],
      { waitForAllRequestsToBeAdded: true, batchSize: 1000, waitBetweenBatchesMillis: 0 });
  }
  const addSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const addCpuSeconds = cpuSeconds(cpuStarted);
  if (kind === 'crawlee-persist') await new Promise((resolve) => setTimeout(resolve, 1000)); // background writes
  const rssGrowth = rss() - baseline;
  const diskBytes = duBytes(dir);
  // Requests the queue took as new (the Sieve drops a few at its fpRate).
  const accepted = kind === 'sieve' ? queue.getTotalCount() : (await queue.getInfo()).totalRequestCount;
  let fetchMsPerRequest = null;
  if (fetchMode === 'fetch') {
    // CPU per fetch. The first FETCHES requests only: Crawlee's RequestQueue, fetched one
    // at a time with nothing else running, takes ~30 ms a request here.
    const fetches = Math.min(accepted, FETCHES);
    const fetchCpuStarted = process.cpuUsage();
    for (let i = 0; i < fetches; ++i) {
      const request = await queue.fetchNextRequest();
      if (request === null) throw new Error(`${kind}: null after ${i} of ${fetches} fetches`);
      await queue.markRequestHandled(request);
    }
    fetchMsPerRequest = (cpuSeconds(fetchCpuStarted) * 1e3) / fetches;
  }
  console.log(JSON.stringify({ kind, n, addSeconds, addCpuSeconds, rssGrowth, diskBytes, accepted, fetchMsPerRequest }));
  process.exit(0); // Crawlee's storage keeps timers that would hold the process
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
