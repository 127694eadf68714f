'use strict';
// What one.js and crawl_one.js both measure about their own process.
const fs = require('node:fs');
const path = require('node:path');

// Bytes of the files under `root` (0 if it does not exist).
function duBytes(root) {
  let total = 0;
  const walk = (p) => {
    const stat = fs.lstatSync(p);
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    else total += stat.size;
  };
  if (fs.existsSync(root)) walk(root);
  return total;
}

module.exports = { duBytes };
