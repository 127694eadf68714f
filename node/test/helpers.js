'use strict';
// Shared by node/test/*.test.js: the package under test (node/index.js with
// the addon CMake built, named by CRAWL_SIEVE_ADDON) and small fixtures.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.CRAWL_SIEVE_ADDON) {
  throw new Error('CRAWL_SIEVE_ADDON must name the built crawl_sieve.node (ctest sets it)');
}
const sieveModule = require('..');

// A fresh directory under the system's temporary directory, removed at exit.
function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawl-sieve-node-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A small Sieve whose queue spills past 64 KiB into its own directory.
function small(t, options = {}) {
  return new sieveModule.Sieve({
    expectedCount: 100000,
    spillDir: tempDir(t),
    queueMemoryBudgetBytes: 64 << 10,
    ...options,
  });
}

function url(i) {
  return `https://host${i % 97}.test/page/${i}`;
}

// Pops without waiting until the queue is empty.
function drain(sieve) {
  const entries = [];
  for (let entry = sieve.tryPop(); entry !== null; entry = sieve.tryPop()) entries.push(entry);
  return entries;
}

module.exports = { ...sieveModule, tempDir, small, url, drain };
