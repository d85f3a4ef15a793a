/* workloads_check.js -- the job view of a suite job: its Passes by workload section.
 * usage: node workloads_check.js --url http://127.0.0.1:PORT/ --job ID [--token T] [--shots DIR] */
'use strict';
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const NAMES = ['seq read 1M', 'rand read 4k', 'rand write 4k'];

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
  if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(base + '#/job/' + a.job, { waitUntil: 'load' });
  await L.ready(page);
  await page.waitForSelector('#job-workloads table', { timeout: 10000 }).catch(() => {});
  const sec = page.locator('#job-workloads');
  L.check('the job view has a Passes by workload section', (await sec.count()) === 1);
  const text = (await sec.count()) ? await sec.innerText() : '';
  L.check('it counts the workloads', text.includes('Passes by workload (3)'), text.slice(0, 60));
  const rows = await page.evaluate(() => [...document.querySelectorAll('#job-workloads tbody tr')].map((tr) =>
    [...tr.cells].map((c) => c.textContent)));
  L.check('a row per workload, in the job\'s order', JSON.stringify(rows.map((r) => r[0])) === JSON.stringify(NAMES),
    JSON.stringify(rows.map((r) => r[0])));
  const head = await page.evaluate(() => [...document.querySelectorAll('#job-workloads thead th')].map((th) => th.textContent));
  L.check('a column per pass', head[1] === 'pass 1' && head[2] === 'pass 2', head.join('|'));
  const metric = await page.locator('#job-wl-metric').inputValue();
  L.check('a metric is chosen', /\./.test(metric), metric);
  // Choose read.iops: the two read workloads have figures, the write one has none.
  await page.selectOption('#job-wl-metric', 'read.iops');
  await page.waitForTimeout(200);
  const iops = await page.evaluate(() => [...document.querySelectorAll('#job-workloads tbody tr')].map((tr) =>
    [...tr.cells].slice(1, 3).map((c) => c.textContent)));
  L.check('read.iops: both passes of the read workloads have figures',
    iops.length === 3 && iops.slice(0, 2).every((r) => r.every((v) => v !== '–' && v !== '')), JSON.stringify(iops));
  L.check('read.iops: the write workload has none', iops.length === 3 && iops[2].every((v) => v === '–'), JSON.stringify(iops[2]));
  L.check('each row shows its workload\'s own options', rows.length === 3 && rows[1][rows[1].length - 1].includes('rw=randread'),
    rows.length ? rows[1][rows[1].length - 1] : '');
  const charts = await page.evaluate(() => [...document.querySelectorAll('#job-workloads canvas.wl-chart')]
    .map((c) => c.getAttribute('aria-label')));
  L.check('a chart per workload with read.iops', charts.length === 2 && charts[0] === 'seq read 1M: per-pass read.iops', JSON.stringify(charts));
  await L.shot(page, a.shots, 'workloads-job');
  // The history names a suite job's workloads beside its engine.
  await page.goto(base + '#/history', { waitUntil: 'load' });
  await L.ready(page);
  await page.waitForSelector('#history-table tbody tr', { timeout: 10000 }).catch(() => {});
  const engineCell = await page.evaluate((id) => {
    const tr = document.querySelector('#history-table tr[data-id="' + id + '"]');
    return tr ? tr.cells[3].textContent : null;
  }, a.job);
  L.check('the history says the job has 3 workloads', engineCell === 'fio · 3 workloads', engineCell);
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('workloads check crashed', e.stack || e); process.exit(L.done()); });
