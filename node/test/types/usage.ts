// Type-checked (never run) by node/test/types.test.js with tsc --strict: a
// user's code against index.d.ts. Every call of the public API appears once.
import { Entry, MAX_LANES, MAX_PAYLOAD_BYTES, MAX_PRIORITY, MIN_PRIORITY, Sieve, SieveError,
  SieveStats } from 'crawl-sieve';

async function main(): Promise<number> {
  const sieve = new Sieve({
    expectedCount: 1e6,
    fpRate: 0.01,
    overflow: 'grow',
    lifo: false,
    queueMemoryBudgetBytes: 64 << 20,
    spillDir: '/tmp',
    log: (level, message) => console.log(level, message),
  });
  const isNew: boolean = sieve.push('https://a.example/', Buffer.from('{}'), 5);
  const batch: boolean[] = sieve.pushBatch(['https://b.example/'], ['x'], [MAX_PRIORITY]);
  sieve.push('https://c.example/', null);
  sieve.push('https://d.example/', new Uint8Array([1, 2]), MIN_PRIORITY);
  const entry: Entry | null = await sieve.pop();
  if (entry !== null) {
    const url: string = entry.url;
    const payload: Buffer = entry.payload;
    const priority: number = entry.priority;
    sieve.defer(url) || sieve.done(url);
    console.log(payload.length, priority);
  }
  const now: Entry | null = sieve.tryPop();
  const stats: SieveStats = sieve.stats();
  const top: number = stats.lanes.length > 0 ? stats.lanes[0].queued : 0;
  const estimate: number | null = stats.estimatedCount;
  try {
    sieve.health();
  } catch (error) {
    if (error instanceof SieveError) console.log(error.code, error.message);
  }
  await sieve.withProducer(async (s: Sieve) => s.push('https://e.example/'));
  sieve.addProducer();
  sieve.producerDone();
  await sieve.save('/tmp/checkpoint');
  const restored: Sieve = await Sieve.open('/tmp/checkpoint', { queueMemoryBudgetBytes: 1 << 20 });
  for await (const queued of restored) restored.done(queued.url);
  restored.close();
  const finished: boolean = restored.isFinished();
  return Number(isNew) + batch.length + (now ? 1 : 0) + top + (estimate ?? 0) + Number(finished) +
      MAX_LANES + MAX_PAYLOAD_BYTES;
}

void main();
