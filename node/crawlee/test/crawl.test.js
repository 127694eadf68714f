'use strict';
// Crawlee's CheerioCrawler crawls the build's testsite on loopback through
// SieveRequestQueue: every page fetched (successfully) exactly once, failed
// first requests retried through reclaimRequest, a crawl stopped half-way
// and resumed from a checkpoint.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

if (!process.env.CRAWL_SIEVE_ADDON) throw new Error('CRAWL_SIEVE_ADDON must name the built addon (ctest sets it)');
const testsite = process.env.CRAWL_TESTSITE;
if (!testsite || !fs.existsSync(testsite)) throw new Error('CRAWL_TESTSITE must name the build\'s testsite binary');
// A missing Crawlee is a failure, not a skip: scripts/setup installs it.
const { CheerioCrawler, Configuration, log } = require('@crawlee/cheerio');
const { SieveRequestQueue } = require('..');

log.setLevel(log.LEVELS.ERROR);
const PAGES = 300;
const siteArgs = ['--pages', String(PAGES), '--links-per-page', '5'];

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawl-sieve-crawlee-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// testsite on 127.0.0.1 with an ephemeral port; counts() stops it and returns
// {path: [requests, failures injected]} from its counts file.
async function startSite(t, dir, extra = []) {
  const countsFile = path.join(dir, 'counts.tsv');
  const site = spawn(testsite, [...siteArgs, '--port', '0', '--no-request-log', '--counts-file', countsFile, ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => site.kill('SIGKILL'));
  const firstLine = await new Promise((resolve, reject) => {
    readline.createInterface({ input: site.stdout }).once('line', resolve);
    site.once('exit', (code) => reject(new Error(`testsite exited (${code}) before serving`)));
  });
  assert.match(firstLine, / at http:\/\/127\.0\.0\.1:\d+\/$/);
  const root = firstLine.split(' at ')[1].trim();
  const listing = execFileSync(testsite, [...siteArgs, '--list'], { encoding: 'utf8' });
  const paths = new Set(listing.split(/\s+/).filter(Boolean).map((u) => '/' + u.split('/').slice(3).join('/')));
  const counts = async () => {
    const exited = new Promise((resolve) => site.once('exit', resolve));
    site.kill('SIGTERM');
    await exited;
    const result = {};
    for (const line of fs.readFileSync(countsFile, 'utf8').split('\n').filter(Boolean)) {
      const [p, requests, failures] = line.split('\t');
      result[p] = [Number(requests), Number(failures)];
    }
    return result;
  };
  return { root, paths, counts };
}

async function crawl(requestManager, root, options = {}) {
  const fetched = [];
  const crawler = new CheerioCrawler({
    requestQueue: requestManager, // Crawlee 3.18.1 validates requestManager away; requestQueue is duck-typed
    maxConcurrency: 8,
    maxRequestRetries: 3,
    async requestHandler({ request, enqueueLinks }) {
      fetched.push(request.url);
      await enqueueLinks();
    },
    ...options,
  }, new Configuration({ persistStorage: false }));
  await crawler.run([root]);
  return fetched;
}

test('CheerioCrawler through the Sieve fetches every page exactly once', async (t) => {
  const dir = tempDir(t);
  const site = await startSite(t, dir);
  const queue = await SieveRequestQueue.open({ expectedCount: 100000, spillDir: dir });
  const fetched = await crawl(queue, site.root);
  const counts = await site.counts();
  assert.deepEqual(new Set(Object.keys(counts)), site.paths, 'every page, nothing else');
  const twice = Object.entries(counts).filter(([, [n]]) => n !== 1);
  assert.deepEqual(twice, []);
  assert.equal(fetched.length, site.paths.size);
  assert.equal(await queue.handledCount(), site.paths.size);
  assert.equal(await queue.isFinished(), true);
  assert.equal(queue.getTotalCount(), site.paths.size);
});

test('failed first requests are reclaimed and retried with their retry count', async (t) => {
  const dir = tempDir(t);
  const site = await startSite(t, dir, ['--fault-rate', '0.1', '--fault-retry-after', '0']);
  const queue = await SieveRequestQueue.open({ expectedCount: 100000, spillDir: dir });
  const retried = [];
  const fetched = await crawl(queue, site.root, {
    async requestHandler({ request, enqueueLinks }) {
      if (request.retryCount > 0) retried.push(request.url);
      await enqueueLinks();
    },
  });
  assert.equal(fetched.length, 0); // the handler above replaced the counting one
  const counts = await site.counts();
  assert.deepEqual(new Set(Object.keys(counts)), site.paths);
  const faulted = Object.values(counts).filter(([, failures]) => failures > 0).length;
  assert.ok(faulted > 0, 'the site injected no fault');
  for (const [p, [requests, failures]] of Object.entries(counts)) {
    assert.equal(requests - failures, 1, `${p}: ${requests} requests, ${failures} failed`);
  }
  assert.equal(await queue.handledCount(), site.paths.size);
  assert.ok(retried.length > 0 && retried.length <= faulted, `${retried.length} retried, ${faulted} faulted`);
});

test('a crawl stopped half-way resumes from the checkpoint and fetches the rest once', async (t) => {
  const dir = tempDir(t);
  const checkpointDir = path.join(dir, 'state');
  const site = await startSite(t, dir);
  const first = await SieveRequestQueue.open({ checkpointDir, expectedCount: 100000, spillDir: dir });
  const part = [];
  await crawl(first, site.root, {
    async requestHandler({ request, enqueueLinks, crawler }) {
      part.push(request.url);
      await enqueueLinks();
      if (part.length === 100) crawler.stop(); // graceful: running requests finish
    },
  });
  assert.ok(part.length >= 100 && part.length < site.paths.size, `first run fetched ${part.length}`);
  // A request still in flight at the checkpoint is queued again: fetched twice.
  const inFlight = first.inFlight.size;
  await first.checkpoint();
  first.sieve.close();
  const resumed = await SieveRequestQueue.open({ checkpointDir, spillDir: dir });
  assert.equal(await resumed.handledCount(), part.length);
  const rest = await crawl(resumed, site.root); // the root is seen: dropped, the queue goes on
  const counts = await site.counts();
  assert.deepEqual(new Set(Object.keys(counts)), site.paths, 'every page over the two runs');
  const twice = Object.entries(counts).filter(([, [n]]) => n !== 1);
  assert.ok(twice.length <= inFlight, `${twice.length} pages fetched twice, ${inFlight} in flight`);
  assert.equal(part.length + rest.length, site.paths.size + twice.length);
});
