'use strict';
// index.d.ts against the package: a user's code that calls the whole API
// type-checks under tsc --strict (types/usage.ts), misuse is rejected line by
// line (types/misuse.ts), and what index.js exports is what index.d.ts
// declares, method for method. TypeScript is pinned in node/crawlee's
// package-lock.json (scripts/setup installs it).
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const test = require('node:test');
require('./helpers');  // checks CRAWL_SIEVE_ADDON
const sieveModule = require('..');

const typesDir = path.join(__dirname, 'types');
const typescriptDir = path.join(__dirname, '..', 'crawlee', 'node_modules', 'typescript');

function loadTypescript() {
  assert.ok(fs.existsSync(typescriptDir),
    `${typescriptDir} is missing: run scripts/setup (npm ci in node/crawlee)`);
  return require(typescriptDir);
}

// tsc's diagnostics as "file:line" strings, file relative to types/.
function typeErrors() {
  const tsc = path.join(typescriptDir, 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(typesDir, 'tsconfig.json'), '--pretty', 'false'],
      { cwd: typesDir, encoding: 'utf8' });
    return [];
  } catch (error) {
    if (typeof error.stdout !== 'string' || error.stdout === '') throw error;
    return error.stdout.split('\n').filter((line) => /^\S+\.ts\(\d+,\d+\): error/.test(line))
      .map((line) => {
        const [, file, lineNumber] = line.match(/^(\S+?\.ts)\((\d+),/);
        return `${path.relative(typesDir, path.resolve(typesDir, file))}:${lineNumber}`;
      });
  }
}

test('tsc accepts the whole API used as documented and rejects each misuse', () => {
  loadTypescript();
  const errors = typeErrors();
  const expected = fs.readFileSync(path.join(typesDir, 'misuse.ts'), 'utf8').split('\n')
    .flatMap((line, i) => (/\/\/ ERROR:/.test(line) ? [`misuse.ts:${i + 1}`] : []));
  assert.ok(expected.length >= 5);
  assert.deepStrictEqual([...new Set(errors)].sort(), expected.sort());
});

// The names index.d.ts exports, and the members of its class Sieve.
function declared(ts) {
  const file = path.join(__dirname, '..', 'index.d.ts');
  const program = ts.createProgram([file], { strict: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file));
  const exports = checker.getExportsOfModule(module);
  const sieve = exports.find((symbol) => symbol.name === 'Sieve');
  const instanceType = checker.getDeclaredTypeOfSymbol(sieve);
  const methods = checker.getPropertiesOfType(instanceType).map((p) => p.name)
    .filter((name) => !name.startsWith('__@'));  // [Symbol.asyncIterator], checked apart
  const statics = [...sieve.exports.keys()].filter((name) => name !== 'prototype');
  const values = exports.filter((symbol) => symbol.flags & (ts.SymbolFlags.Value)).map((s) => s.name);
  return { values, methods, statics };
}

test('index.js exports exactly the values and methods index.d.ts declares', () => {
  const { values, methods, statics } = declared(loadTypescript());
  assert.deepStrictEqual(Object.keys(sieveModule).sort(), values.sort());
  for (const name of methods) {
    assert.strictEqual(typeof sieveModule.Sieve.prototype[name], 'function', `Sieve.prototype.${name}`);
  }
  assert.ok(methods.includes('pushBatch') && methods.includes('withProducer'));
  for (const name of statics) {
    assert.strictEqual(typeof sieveModule.Sieve[name], 'function', `Sieve.${name}`);
  }
  assert.deepStrictEqual(statics, ['open']);
  assert.strictEqual(typeof sieveModule.Sieve.prototype[Symbol.asyncIterator], 'function');
});
