'use strict';
// One crawl of bench/crawlee-sieve/crawl.js, in its own process:
//   node crawl_one.js <crawlee-default|crawlee-memory|sieve> <URL> <dir> <maxConcurrency>
// CheerioCrawler as ../shared/peers/peers/crawlee_cheerio.mjs runs it (every
// same-hostname <a href>, maxConcurrency 32), with its request queue:
//   crawlee-default  Crawlee's default storage (MemoryStorage persisting to
//                    <dir>/storage: one JSON file per request)
//   crawlee-memory   the same with persistStorage: false (nothing on disk)
//   sieve            SieveRequestQueue (node/crawlee), spilling into <dir>;
//                    Crawlee's other stores with persistStorage: false
// Prints one JSON line: pages, wall and CPU seconds, peak RSS, bytes the
// process wrote (/proc/self/io) and the bytes left in <dir>.
const fs = require('node:fs');
const path = require('node:path');
const { duBytes } = require('./measure');

const crawleeDir = path.join(__dirname, '../../node/crawlee');
const { CheerioCrawler, Configuration, log } = require(path.join(crawleeDir, 'node_modules/@crawlee/cheerio'));
const { SieveRequestQueue } = require(crawleeDir);

const [kind, url, dir, concurrencyText] = process.argv.slice(2);
log.setLevel(log.LEVELS.ERROR);

function procField(file, name) {
  const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(/\s+/)[1]) : NaN;
}


async function main() {
  process.chdir(dir);  // Crawlee's default storage goes to ./storage
  const config = new Configuration({ persistStorage: kind === 'crawlee-default' });
  const options = { maxConcurrency: Number(concurrencyText) };
  if (kind === 'sieve') {
    options.requestQueue = await SieveRequestQueue.open({ expectedCount: 1e6, spillDir: dir });
  }
  let pages = 0;
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  const crawler = new CheerioCrawler({
    ...options,
    async requestHandler({ enqueueLinks }) {
      pages += 1;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  }, config);
  const stats = await crawler.run([url]);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  console.log(JSON.stringify({
    kind, url, pages, failed: stats.requestsFailed, wall,
    cpu: (cpu.user + cpu.system) / 1e6,
    peakRssMb: procField('/proc/self/status', 'VmHWM:') / 1024,
    writtenMb: procField('/proc/self/io', 'write_bytes:') / 1e6,
    leftMb: duBytes(dir) / 1e6,
  }));
  process.exit(0);  // an idle keep-alive socket would hold the process ~30 s
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
