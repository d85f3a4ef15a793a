/* render_bench.js -- first render of a view of the agent's page in headless Chromium: the time
 * from navigation start to the view's "ft-ready:VIEW" performance mark (set by app.js once the
 * view's DOM is built) and to the next painted frame. Fresh browser context per run (cold cache).
 * usage: node render_bench.js --url http://127.0.0.1:PORT/ --hash '#/history' --runs 7
 *        [--token T] [--expect-rows N]
 * Prints one line per run and "median ready_ms=… paint_ms=…". */
'use strict';
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const runs = parseInt(a.runs || '7', 10);
const view = (/#\/([a-z]+)/.exec(a.hash) || [])[1] || 'history';

function median(xs) { const s = xs.slice().sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; }

async function main() {
  const browser = await L.launch();
  const ready = [], paint = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
    const page = await ctx.newPage();
    await page.goto(base + a.hash, { waitUntil: 'commit' });
    await page.waitForFunction((v) => performance.getEntriesByName('ft-ready:' + v).length > 0, view, { timeout: 30000, polling: 'raf' });
    const r = await page.evaluate((v) => new Promise((res) => {
      const t = performance.getEntriesByName('ft-ready:' + v)[0].startTime;
      requestAnimationFrame(() => setTimeout(() => res({ ready: t, paint: performance.now(),
        rows: document.querySelectorAll('#history-table tbody tr').length,
        api: performance.getEntriesByType('resource').filter((e) => /api\/v1\/results/.test(e.name))
          .map((e) => e.responseEnd - e.startTime)[0] || 0,
        dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
        state: document.getElementById('main').dataset.state })));
    }), view);
    // performance.now() in the callback is after the mark; the paint figure is an upper bound.
    console.log('run ' + (i + 1) + ': ready_ms=' + r.ready.toFixed(1) + ' paint_ms=' + r.paint.toFixed(1) + ' rows=' + r.rows + ' state=' + r.state +
      ' (DOMContentLoaded ' + r.dcl.toFixed(1) + ' ms, GET results ' + r.api.toFixed(1) + ' ms)');
    if (r.state !== 'ready') throw new Error('view ended in state ' + r.state);
    if (a['expect-rows'] && r.rows !== Number(a['expect-rows'])) throw new Error('rows ' + r.rows + ' != ' + a['expect-rows']);
    ready.push(r.ready);
    paint.push(r.paint);
    await ctx.close();
  }
  console.log('median ready_ms=' + median(ready).toFixed(1) + ' paint_ms=' + median(paint).toFixed(1) + ' max_paint_ms=' + Math.max.apply(null, paint).toFixed(1));
  await browser.close();
}

main().catch((e) => { console.error(e.stack || e); process.exit(1); });
