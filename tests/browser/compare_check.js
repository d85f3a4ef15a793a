/* compare_check.js -- the agent's page with jobs of two workloads: Compare shows one workload
 * at a time (the most recent by default), never pools the other's passes, offers only settable
 * parameters that vary; the history shows what each job changed and no "± 0" for a cancelled
 * one-pass job.
 * usage: node compare_check.js --url http://127.0.0.1:PORT/ --token T --expect FILE.json
 *        [--shots DIR] [--prefix NAME]
 * FILE.json: {"a": SIDE, "b": SIDE, "cancelled": ID, "readonly": [names]}, SIDE = {"jobs": N,
 *            "passes": P, "groups": ["64", "128"], "changed": [{"id": "7", "text": "..."}]};
 *            b is the most recent workload. */
'use strict';
const fs = require('fs');
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const exp = JSON.parse(fs.readFileSync(a.expect, 'utf8'));
const prefix = a.prefix || 'compare';
const shots = a.shots || null;

/* What the compare chart and form show now. */
async function compareState(page) {
  return page.evaluate(() => {
    const c = document.getElementById('compare-chart');
    const ch = c && window.Chart.getChart(c);
    const opts = (id) => Array.from(document.querySelectorAll('#' + id + ' option')).map((o) => ({ v: o.value, t: o.textContent, sel: o.selected }));
    return {
      labels: ch ? ch.data.labels.map(String) : null,
      dots: ch ? ch.data.datasets.find((d) => d.type === 'scatter').data.length : -1,
      workloads: opts('c-workload'), params: opts('c-param'),
      hint: (document.getElementById('compare-workload') || {}).textContent || '',
      count: (document.getElementById('compare-count') || {}).textContent || '',
      jobs: Array.from(document.querySelectorAll('table.compare tbody tr')).map((tr) => Number(tr.children[1].textContent))
    };
  });
}

function sideOk(name, st, side) {
  L.check(name + ': one group per nr_requests value of this workload (' + (st.labels || []).join(',') + ')',
    st.labels && JSON.stringify(st.labels.slice().sort()) === JSON.stringify(side.groups.slice().sort()),
    JSON.stringify(st.labels) + ' want ' + JSON.stringify(side.groups));
  L.check(name + ': exactly this workload\'s passes as dots (' + st.dots + ' of ' + side.passes + ')', st.dots === side.passes,
    'got ' + st.dots);
  L.check(name + ': the groups hold this workload\'s ' + side.jobs + ' jobs and no other',
    st.jobs.reduce((x, y) => x + y, 0) === side.jobs, JSON.stringify(st.jobs));
}

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);

  // --- history: what each job changed, and the cancelled job ---
  await page.goto(base + '#/history', { waitUntil: 'load' });
  await L.ready(page);
  const rows = await page.$$eval('#history-table tbody tr', (trs) => trs.map((tr) => ({
    id: tr.dataset.id, changed: tr.querySelector('td.changed').textContent,
    metric: tr.querySelector('td.num').textContent, text: tr.textContent })));
  const head = await page.$$eval('#history-table thead th', (ths) => ths.map((t) => t.textContent));
  L.check('history has a Changed column', head.includes('Changed'), head.join('|'));
  for (const c of exp.a.changed.concat(exp.b.changed)) {
    const r = rows.find((x) => x.id === c.id);
    L.check('job ' + c.id + ' shows what it changed: "' + c.text + '"', r && r.changed === c.text, r ? r.changed : 'no row');
  }
  const cr = rows.find((x) => x.id === String(exp.cancelled));
  L.log('cancelled row: ' + (cr ? cr.text : 'none'));
  L.check('the cancelled one-pass job does not read "± 0"', cr && !/±\s*0(\s|$)/.test(cr.metric), cr && cr.metric);
  L.check('the cancelled job says it ran 1 pass of 6', cr && /\(1 pass of 6\)/.test(cr.metric), cr && cr.metric);
  L.check('no sweep_config chip in the labels (it is the Changed column)',
    !(await page.$$eval('#history-table .chip', (cs) => cs.some((c) => /^sweep_config=/.test(c.textContent)))));
  await L.shot(page, shots, prefix + '-history');

  // --- compare: the most recent workload by default ---
  await L.navigate(page, () => page.evaluate(() => { location.hash = '#/compare'; }));
  await page.waitForSelector('#compare-chart', { timeout: 15000 }).catch(() => {});
  let st = await compareState(page);
  L.log('default: ' + JSON.stringify(st));
  L.check('compare offers both workloads in a selector', st.workloads.length === 2, JSON.stringify(st.workloads));
  const selected = st.workloads.find((o) => o.sel);
  L.check('the most recent workload (4k) is shown by default', selected && /bs=4K/.test(selected.t), selected && selected.t);
  L.check('the page says one workload at a time', /One workload at a time/.test(st.hint) && /bs=4K/.test(st.hint), st.hint);
  sideOk('default (4k)', st, exp.b);
  const pnames = st.params.map((o) => o.v);
  L.check('the parameter list is nr_requests, the one settable parameter that varies (' + pnames.join(',') + ')',
    pnames.includes('nr_requests') && pnames.every((n) => !exp.readonly.includes(n)), pnames.join(','));
  L.check('the sweep\'s swept parameter is the default', (st.params.find((o) => o.sel) || {}).v === 'nr_requests');
  await L.shot(page, shots, prefix + '-default');

  // --- the other workload through the selector ---
  const other = st.workloads.find((o) => !o.sel);
  await L.navigate(page, () => page.selectOption('#c-workload', other.v));
  await page.waitForSelector('#compare-chart', { timeout: 15000 }).catch(() => {});
  st = await compareState(page);
  L.log('other: ' + JSON.stringify(st));
  L.check('the selector switches to the 64k workload', /bs=64K/.test(st.hint), st.hint);
  L.check('the workload is kept in the URL', /workload=/.test(await page.evaluate(() => location.hash)));
  sideOk('64k', st, exp.a);
  L.check('the cancelled job of this workload is left out and counted', /1 cancelled or failed job/.test(st.count), st.count);
  await L.shot(page, shots, prefix + '-other');

  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('compare check crashed', e.stack || e); process.exit(L.done()); });
