// Validates crawl's WARC output with warcio (webrecorder's reader, pinned in
// tools/warcio), a reader we did not write.
//
//   node tests/crawler/warc/validate_warc.mjs [--expect EXPECT.json] FILE.warc.gz...
//
// Checks: warcio parses every record of every file; each file starts with a
// warcinfo record; record IDs are unique; every WARC-Block-Digest and
// WARC-Payload-Digest (sha1, base32) matches the bytes warcio hands back;
// each request's WARC-Concurrent-To names a response or revisit; each revisit
// refers to an archived response with the same payload digest, URI and date
// (directly or through revisits of earlier recrawls);
// records tile the file exactly (a torn last member is an error).
// With --expect ({"pages": {URI: {"sha1": "sha1:...", "truncated": bool}},
// "locations": [{"file", "offset", "uri"}]}): every expected page is present
// exactly once, its payload is the body the server sent (by sha1), the
// truncation flag matches, and every location points at that page's record
// (with "profile": a revisit of that profile, of the same URI, whose original
// is found; with "original_file" too, found in that file).
// Prints one JSON summary line (record counts, revisits by the last word of
// their WARC-Profile, the errors); exits 1 on any failure, 2 on bad usage.
import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";

const warcioUrl = new URL("../../../tools/warcio/node_modules/warcio/dist/index.js", import.meta.url);
const { WARCParser } = await import(warcioUrl.href);

function base32(bytes) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

const sha1 = (bytes) => "sha1:" + base32(createHash("sha1").update(bytes).digest());

function splitHttp(block) {
  const end = Buffer.from(block).indexOf("\r\n\r\n");
  return end < 0 ? { headers: block, payload: new Uint8Array() }
                 : { headers: block.subarray(0, end + 4), payload: block.subarray(end + 4) };
}

const errors = [];
const fail = (message) => { if (errors.length < 50) errors.push(message); };

// Pass 1, raw blocks (parseHttp off): digests, ids, links.
async function readRaw(file, records) {
  const parser = new WARCParser(createReadStream(file), { parseHttp: false });
  let index = 0;
  for await (const record of parser) {
    const block = await record.readFully(false);
    const info = {
      file, offset: parser.offset, index, type: record.warcType, uri: record.warcTargetURI,
      id: record.warcHeader("WARC-Record-ID"), date: record.warcDate,
      concurrentTo: record.warcConcurrentTo || [],
      truncated: record.warcHeader("WARC-Truncated"),
      payloadDigest: record.warcPayloadDigest,
      refersToUri: record.warcRefersToTargetURI, refersToDate: record.warcRefersToDate,
      profile: record.warcHeader("WARC-Profile"),
    };
    const where = `${basename(file)}@${info.offset} (${info.type} ${info.uri || ""})`;
    if (index === 0 && info.type !== "warcinfo") fail(`${where}: file does not start with warcinfo`);
    if (block.length !== record.warcContentLength) fail(`${where}: block length ${block.length}`);
    if (record.warcBlockDigest !== sha1(block)) fail(`${where}: block digest mismatch`);
    if (info.type === "response") {
      info.payloadSha1 = sha1(splitHttp(block).payload);
      if (info.payloadDigest !== info.payloadSha1) fail(`${where}: payload digest mismatch`);
    }
    info.length = parser.recordLength;  // compressed, known once the record is read
    if (index > 0 && records.at(-1).offset + records.at(-1).length !== info.offset) {
      fail(`${where}: does not start where the previous record ends`);
    }
    records.push(info);
    ++index;
  }
  // warcio stops quietly at a torn gzip member; the byte count does not lie.
  const last = records.at(-1);
  const end = index > 0 ? last.offset + last.length : 0;
  if (end !== statSync(file).size) fail(`${basename(file)}: ${statSync(file).size - end} bytes after the last complete record`);
}

// Pass 2, warcio's own HTTP parsing: the payload it returns must be the one
// the digests were checked on, and the status line must parse.
async function readHttp(file, byOffset) {
  const parser = new WARCParser(createReadStream(file), { parseHttp: true });
  for await (const record of parser) {
    const info = byOffset.get(`${file}@${parser.offset}`);
    if (record.warcType !== "response" && record.warcType !== "revisit") {
      await record.skipFully();
      continue;
    }
    const payload = await record.readFully(false);
    const where = `${basename(file)}@${parser.offset}`;
    if (!record.httpHeaders || !/^HTTP\/\S+ \d{3}/.test(record.httpHeaders.statusline)) {
      fail(`${where}: warcio found no HTTP status line`);
    }
    if (record.warcType === "response" && info && sha1(payload) !== info.payloadSha1) {
      fail(`${where}: warcio's HTTP payload differs from the block's`);
    }
    if (record.warcType === "revisit" && payload.length !== 0) fail(`${where}: revisit has a payload`);
    if (info) info.status = record.httpHeaders ? record.httpHeaders.statusCode : undefined;
  }
}

function checkLinks(records) {
  const ids = new Map();
  for (const r of records) {
    if (ids.has(r.id)) fail(`duplicate WARC-Record-ID ${r.id}`);
    ids.set(r.id, r);
  }
  for (const r of records) {
    if (r.type === "request") {
      const target = r.concurrentTo.length === 1 ? ids.get(r.concurrentTo[0]) : undefined;
      if (!target || (target.type !== "response" && target.type !== "revisit") || target.uri !== r.uri) {
        fail(`request ${r.id} for ${r.uri}: WARC-Concurrent-To names no response for it`);
      }
    }
    if (r.type === "revisit") {
      const original = originalOf(r, records);
      if (!original || original.payloadDigest !== r.payloadDigest) {
        fail(`revisit ${r.id} for ${r.uri}: no original ${r.refersToUri} at ${r.refersToDate}`);
      }
    }
  }
}

// The response a revisit stands for: the record it refers to (by URI and
// date), followed through revisits (a recrawl's revisit may refer to the
// previous recrawl's), each with the same payload digest.
function originalOf(r, records) {
  for (let hops = 0; r && r.type === "revisit" && hops < 100; ++hops) {
    const digest = r.payloadDigest;
    r = records.find((o) => (o.type === "response" || o.type === "revisit") &&
                            o.uri === r.refersToUri && o.date === r.refersToDate &&
                            o.payloadDigest === digest);
  }
  return r && r.type === "response" ? r : undefined;
}

function payloadDigestOf(r, records) {
  if (r.type === "response") return r.payloadDigest;
  const original = originalOf(r, records);
  return original ? original.payloadDigest : undefined;
}

function checkExpectations(expect, records) {
  const pages = records.filter((r) => r.type === "response" || r.type === "revisit");
  for (const [uri, want] of Object.entries(expect.pages || {})) {
    const found = pages.filter((r) => r.uri === uri);
    if (found.length !== 1) { fail(`${uri}: ${found.length} response records, expected 1`); continue; }
    const r = found[0];
    if (payloadDigestOf(r, records) !== want.sha1) fail(`${uri}: payload is not the body sent`);
    if ((r.truncated === "length") !== Boolean(want.truncated)) fail(`${uri}: WARC-Truncated wrong`);
  }
  for (const at of expect.locations || []) {
    const r = records.find((o) => o.file === at.file && o.offset === at.offset);
    if (!r || r.uri !== at.uri || (r.type !== "response" && r.type !== "revisit")) {
      fail(`location ${basename(at.file)}@${at.offset} does not hold ${at.uri}`);
    } else if (at.profile !== undefined &&
               (r.type !== "revisit" || !r.profile.endsWith(`/${at.profile}`) ||
                r.refersToUri !== at.uri || !originalOf(r, records) ||
                (at.original_file !== undefined && originalOf(r, records).file !== at.original_file))) {
      fail(`location ${basename(at.file)}@${at.offset}: not a ${at.profile} revisit of ${at.uri}` +
           (at.original_file !== undefined ? ` in ${basename(at.original_file)}` : ""));
    }
  }
}

async function main(argv) {
  let expect = null;
  const files = [];
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === "--expect") expect = JSON.parse(readFileSync(argv[++i], "utf8"));
    else files.push(argv[i]);
  }
  if (files.length === 0) {
    console.error("usage: validate_warc.mjs [--expect EXPECT.json] FILE.warc.gz...");
    return 2;
  }
  const records = [];
  for (const file of files) {
    try {
      const start = records.length;
      await readRaw(file, records);
      const byOffset = new Map(records.slice(start).map((r) => [`${file}@${r.offset}`, r]));
      await readHttp(file, byOffset);
    } catch (error) {
      fail(`${basename(file)}: warcio could not read it: ${error}`);
    }
  }
  checkLinks(records);
  if (expect) checkExpectations(expect, records);
  const count = (type) => records.filter((r) => r.type === type).length;
  console.log(JSON.stringify({
    files: files.length, records: records.length, warcinfo: count("warcinfo"),
    requests: count("request"), responses: count("response"), revisits: count("revisit"),
    profiles: Object.fromEntries([...new Set(records.map((r) => r.profile).filter(Boolean))]
                                   .map((p) => [p.split("/").pop(), records.filter((r) => r.profile === p).length])),
    errors,
  }));
  return errors.length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
