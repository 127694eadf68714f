#!/usr/bin/env node
'use strict';
// bench/crawlee-sieve: a Crawlee request queue of N requests, Crawlee's own
// (RequestQueue on its default storage client, MemoryStorage) vs
// SieveRequestQueue (node/crawlee), each in a fresh process.
//
//   CRAWL_SIEVE_ADDON=build/node/crawl_sieve.node \
//     node bench/crawlee-sieve/run.js [--counts 1e5,1e6] [--no-fetch] [--persist-max 1e4] [--kinds sieve,crawlee-memory]
//
// Per queue and N: N distinct requests added through addRequestsBatched
// (batches of 1000, as crawler.addRequests does; all awaited), then the
// first 1000 fetched and marked handled. Measured: the requests accepted as
// new, the add time, the process's RSS growth over an idle baseline after
// the adds (after a GC), the bytes the queue left on disk, the CPU time per
// fetch+handle. CPU time (the process's user + system) is the figure to
// compare: run under nice 19 on a shared machine, wall time mostly measures
// the neighbours (printed too, with the load average).
//
// Theory: Crawlee's MemoryStorage keeps each request as a JSON string plus
// an entry object in a Map (about 0.5-1 KB per request for a ~60-byte URL)
// and RequestQueue caches ids on top; with persistStorage (Crawlee's
// default) it also writes one JSON file per request. SieveRequestQueue keeps
// the Bloom filter (~1.2 bytes/request at fpRate 0.01) and at most
// queueMemoryBudgetBytes (here 64 MiB) of queued requests in RAM, the rest
// in zstd-compressed spill segments on disk.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args[i + 1];
};
const counts = option('--counts', '1e5,1e6').split(',').map(Number);
const persistMax = Number(option('--persist-max', '1e4'));
const fetch = !args.includes('--no-fetch');
const only = option('--kinds', '').split(',').filter(Boolean); // e.g. --kinds sieve

if (!process.env.CRAWL_SIEVE_ADDON) {
  console.error('run.js: set CRAWL_SIEVE_ADDON to the built crawl_sieve.node (build/node/crawl_sieve.node)');
  process.exit(2);
}

function measure(kind, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-sieve-bench-'));
  try {
    const out = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=16384',
      path.join(__dirname, 'one.js'), kind, String(n), dir, fetch ? 'fetch' : 'nofetch'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1500 * 1000, env: { ...process.env, CRAWLEE_STORAGE_DIR: dir } });
    return JSON.parse(out.trim().split('\n').pop());
  } catch (error) {
    return { error: String(error.message).split('\n')[0] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (bytes) => (bytes / 1e6).toFixed(1);
console.log(`crawlee-sieve: node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0].model}), ` +
  `load ${os.loadavg()[0].toFixed(1)}; Crawlee ${require(path.join(__dirname, '../../node/crawlee/node_modules/@crawlee/core/package.json')).version}`);
console.log('| queue | requests | accepted | add CPU s | add wall s | RSS growth MB | bytes/request RAM | disk MB | fetch+handle CPU ms/request (first 1000) |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const n of counts) {
  const kinds = ['crawlee-memory', 'sieve'];
  if (n <= persistMax) kinds.splice(1, 0, 'crawlee-persist');
  for (const kind of kinds.filter((k) => only.length === 0 || only.includes(k))) {
    const r = measure(kind, n);
    if (r.error) {
      console.log(`| ${kind} | ${n.toExponential(0)} | failed: ${r.error} |||||||`);
      continue;
    }
    console.log(`| ${kind} | ${n.toExponential(0)} | ${r.accepted} | ${r.addCpuSeconds.toFixed(1)} | ` +
      `${r.addSeconds.toFixed(1)} | ${mb(r.rssGrowth)} | ${Math.round(r.rssGrowth / n)} | ${mb(r.diskBytes)} | ` +
      `${r.fetchMsPerRequest === null ? '-' : r.fetchMsPerRequest.toFixed(2)} |`);
  }
}
