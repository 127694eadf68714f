// Type-checked by node/test/types.test.js, which expects tsc to reject each
// line marked ERROR: proof that the check reads index.d.ts and is not `any`.
import { Sieve } from 'crawl-sieve';

const sieve = new Sieve({ expectedCount: 10 });
sieve.push(42);  // ERROR: a URL is a string
sieve.push('https://a.example/', 7);  // ERROR: a payload is bytes or a string
new Sieve({ overflow: 'shrink' });  // ERROR: 'warn' or 'grow'
const wrong: string = sieve.tryPop();  // ERROR: an Entry or null
sieve.popAll();  // ERROR: no such method
console.log(wrong);
