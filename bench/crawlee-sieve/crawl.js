#!/usr/bin/env node
'use strict';
// bench/crawlee-sieve/crawl.js: CheerioCrawler crawling real sites on
// loopback, with Crawlee's own request queue and with SieveRequestQueue,
// each run in a fresh process, the kinds alternated, medians printed.
//
//   ../shared/peers/serve.sh     # nginx: 8081 the Python docs, 8083 synth-100000
//   CRAWL_SIEVE_ADDON=build/node/crawl_sieve.node \
//     node bench/crawlee-sieve/crawl.js [--reps 3] [--concurrency 32] \
//       [--kinds crawlee-default,crawlee-memory,sieve] URL [URL...]
//
// Per run (crawl_one.js): pages fetched, pages/s (wall), CPU seconds, peak
// RSS, bytes written by the process and left on disk. Targets: the same
// pages with every queue; pages/s with the Sieve no lower than Crawlee's.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const reps = Number(option('--reps', '3'));
const concurrency = option('--concurrency', '32');
const kinds = option('--kinds', 'crawlee-default,crawlee-memory,sieve').split(',');
const urls = args;
if (urls.length === 0 || !process.env.CRAWL_SIEVE_ADDON) {
  console.error('usage: CRAWL_SIEVE_ADDON=build/node/crawl_sieve.node node crawl.js [--reps N] URL...');
  process.exit(2);
}

function runOnce(kind, url) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-sieve-crawl-'));
  try {
    const out = execFileSync(process.execPath, [path.join(__dirname, 'crawl_one.js'), kind, url, dir, concurrency],
      { encoding: 'utf8', maxBuffer: 1 << 26, env: process.env });
    return JSON.parse(out.trim().split('\n').pop());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fixed = (x, digits) => x.toFixed(digits);

console.log(`crawlee-sieve crawl: Node ${process.version}, ${reps} reps alternated, maxConcurrency ${concurrency}, load ${os.loadavg()[0].toFixed(1)}`);
for (const url of urls) {
  const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
  for (let rep = 0; rep < reps; ++rep) {
    for (const kind of (rep % 2 ? [...kinds].reverse() : kinds)) {
      const result = runOnce(kind, url);
      results[kind].push(result);
      console.error(`  ${url} ${kind} rep ${rep + 1}: ${result.pages} pages in ${fixed(result.wall, 1)} s`);
    }
  }
  console.log(`\n${url}\n`);
  console.log('| queue | pages (each run) | pages/s | vs crawlee-default | CPU s | CPU ms/page | peak RSS MB | written MB | left on disk MB |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const base = median(results[kinds[0]].map((r) => r.pages / r.wall));
  for (const kind of kinds) {
    const runs = results[kind];
    const rate = median(runs.map((r) => r.pages / r.wall));
    const cpu = median(runs.map((r) => r.cpu));
    const pages = median(runs.map((r) => r.pages));
    console.log(`| ${kind} | ${runs.map((r) => r.pages).join(', ')} | ${fixed(rate, 0)} | ${fixed(rate / base, 2)}x | ` +
      `${fixed(cpu, 1)} | ${fixed(1000 * cpu / pages, 2)} | ${fixed(median(runs.map((r) => r.peakRssMb)), 0)} | ` +
      `${fixed(median(runs.map((r) => r.writtenMb)), 1)} | ${fixed(median(runs.map((r) => r.leftMb)), 1)} |`);
  }
}
