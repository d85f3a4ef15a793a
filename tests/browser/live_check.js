/* live_check.js -- the job view of a running job shows its progress and follows it by polling
 * until the job ends, without a reload.
 * usage: node live_check.js --url http://127.0.0.1:PORT/ --job ID [--token T] [--shots DIR] [--prefix P] */
'use strict';
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(base + '#/job/' + a.job, { waitUntil: 'load' });
  await L.ready(page);
  const st0 = await page.getAttribute('#job-body', 'data-job-state');
  L.check('job ' + a.job + ' is live when opened (' + st0 + ')', st0 === 'running' || st0 === 'queued');
  L.check('a live job shows a progress bar', (await page.locator('#job-progress progress').count()) === 1);
  const seen = new Set();
  const t0 = Date.now();
  let st = st0;
  let shotTaken = false;
  while (Date.now() - t0 < 120000) {
    st = await page.getAttribute('#job-body', 'data-job-state');
    const v = await page.evaluate(() => { const p = document.querySelector('#job-progress progress'); return p ? p.value : null; });
    if (v !== null) seen.add(Math.round(v * 100));
    if (!shotTaken && v > 0.3 && st === 'running') { await L.shot(page, a.shots, (a.prefix || 'page') + '-job-running'); shotTaken = true; }
    if (st !== 'running' && st !== 'queued') break;
    await page.waitForTimeout(250);
  }
  L.check('progress moved while the job ran (' + [...seen].sort((x, y) => x - y).join(',') + ' %)', seen.size >= 2);
  L.check('the view followed the job to its end (' + st + ')', st === 'succeeded');
  const bars = await page.evaluate(() => {
    const c = document.getElementById('pass-chart');
    const ch = c && window.Chart.getChart(c);
    return ch ? ch.data.datasets[0].data.length : -1;
  });
  L.check('the finished job shows its pass bars (' + bars + ')', bars > 0);
  L.check('no progress bar once finished', (await page.locator('#job-progress').count()) === 0);
  L.check('no script errors while polling', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('live check crashed', e.stack || e); process.exit(L.done()); });
