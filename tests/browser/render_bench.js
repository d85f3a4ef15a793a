/* render_bench.js -- first render of a page in headless Chromium: the time from navigation
 * start to the page's "ready" performance mark (app.js sets "ft-ready:VIEW" once a view's DOM
 * is built; site.js "ft-site-ready") and to the next painted frame. Fresh browser context per
 * run (cold cache).
 * usage: node render_bench.js --url http://127.0.0.1:PORT/ --hash '#/history' --runs 7
 *        [--token T] [--expect-rows N]
 *        node render_bench.js --file DIR/index.html --mark ft-site-ready --rows '#site-index tbody tr'
 *        --state site --runs 7 [--expect-rows N] [--then ft-site-painted,ft-site-charts]
 * --then MARK,...: also the time to later marks (site.js: the index painted, the first
 * screen's charts drawn).
 * Prints one line per run and "median ready_ms=… paint_ms=…". */
'use strict';
const path = require('path');
const L = require('./lib');

const a = L.args(process.argv);
const base = (a.url || '').replace(/\/?$/, '/');
const runs = parseInt(a.runs || '7', 10);
const view = (/#\/([a-z]+)/.exec(a.hash) || [])[1] || 'history';
const target = a.file ? 'file://' + path.resolve(a.file) : base + a.hash;
const mark = a.mark || 'ft-ready:' + view;
const rowsSel = a.rows || '#history-table tbody tr';
const stateId = a.state || 'main';
const thenMarks = a.then ? a.then.split(',') : [];

function median(xs) { const s = xs.slice().sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }

async function main() {
  const browser = await L.launch();
  const ready = [], paint = [], then = {};
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
    const page = await ctx.newPage();
    await page.goto(target, { waitUntil: 'commit' });
    await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, mark, { timeout: 30000, polling: 'raf' });
    const r = await page.evaluate((o) => new Promise((res) => {
      const t = performance.getEntriesByName(o.mark)[0].startTime;
      requestAnimationFrame(() => setTimeout(() => res({ ready: t, paint: performance.now(),
        rows: document.querySelectorAll(o.rowsSel).length,
        api: performance.getEntriesByType('resource').filter((e) => /api\/v1\/results/.test(e.name))
          .map((e) => e.responseEnd - e.startTime)[0] || 0,
        dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
        state: document.getElementById(o.stateId).dataset.state })));
    }), { mark, rowsSel, stateId });
    r.then = {};
    for (const m of thenMarks) {
      await page.waitForFunction((x) => performance.getEntriesByName(x).length > 0, m, { timeout: 30000, polling: 'raf' });
      r.then[m] = await page.evaluate((x) => performance.getEntriesByName(x)[0].startTime, m);
      (then[m] = then[m] || []).push(r.then[m]);
    }
    // performance.now() in the callback is after the mark; the paint figure is an upper bound.
    console.log('run ' + (i + 1) + ': ready_ms=' + r.ready.toFixed(1) + ' paint_ms=' + r.paint.toFixed(1) +
      thenMarks.map((m) => ' ' + m + '_ms=' + r.then[m].toFixed(1)).join('') + ' rows=' + r.rows + ' state=' + r.state +
      ' (DOMContentLoaded ' + r.dcl.toFixed(1) + ' ms' + (a.file ? '' : ', GET results ' + r.api.toFixed(1) + ' ms') + ')');
    if (r.state !== 'ready') throw new Error('view ended in state ' + r.state);
    if (a['expect-rows'] && r.rows !== Number(a['expect-rows'])) throw new Error('rows ' + r.rows + ' != ' + a['expect-rows']);
    ready.push(r.ready);
    paint.push(r.paint);
    await ctx.close();
  }
  console.log('median ready_ms=' + median(ready).toFixed(1) + ' paint_ms=' + median(paint).toFixed(1) + ' max_paint_ms=' + Math.max.apply(null, paint).toFixed(1) +
    thenMarks.map((m) => ' ' + m + '_ms=' + median(then[m]).toFixed(1)).join(''));
  await browser.close();
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
