/* inline_report.js -- makes a self-contained report from web/report.html and a sweep JSON the
 * way `fleettune-ctl report --html` does (every <script src> and stylesheet <link> inlined,
 * "</" written "<\/", the JSON put into <script id="sweep-data">). Used to check report.js
 * against tests/fixtures/sweep-example.json without a controller run.
 * usage: node inline_report.js WEB_DIR SWEEP.json OUT.html */
'use strict';
const fs = require('fs');
const path = require('path');

const [webDir, jsonFile, out] = process.argv.slice(2);
const safe = (t) => t.replace(/<\//g, '<\\/');
const read = (rel) => {
  if (rel.includes('..') || rel.startsWith('/') || rel.includes('://')) throw new Error('refusing ' + rel);
  return fs.readFileSync(path.join(webDir, rel), 'utf8');
};
const json = fs.readFileSync(jsonFile, 'utf8');
JSON.parse(json);
let html = read('report.html');
let data = 0;
html = html.replace('<script id="sweep-data" type="application/json"></script>', () => {
  data++;
  return '<script id="sweep-data" type="application/json">' + safe(json) + '</script>';
});
html = html.replace(/<script([^>]*) src="([^"]+)"([^>]*)><\/script>/g, (m, a, src) => '<script>' + safe(read(src)) + '</script>');
html = html.replace(/<link rel="stylesheet" href="([^"]+)">/g, (m, href) => '<style>' + safe(read(href)) + '</style>');
if (data !== 1) throw new Error('report.html has no sweep-data script');
fs.writeFileSync(out, html);
