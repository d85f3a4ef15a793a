/* site_check.js -- opens the index of `fleettune-ctl site DIR` and one sweep's page from file://
 * in headless Chromium with the network off and checks them against the stored sweeps.
 * usage: node site_check.js --dir DIR --expect FILE.json [--shots DIR] [--prefix NAME]
 * FILE.json: {"sweeps": [{"id", "name", "status", "strategy", "outcome", "nodes": [..],
 *             "best": "k=v ..." | null, "decision": {"state", "summary"} (optional),
 *             "metric": the metric cell's text (optional: a suite's "suite: N workloads, rule R")}],
 *             "plans": [{"name", "runs": [ids]}]} (the plans completed more than once, with
 *             their completed runs only) */
'use strict';
const fs = require('fs');
const path = require('path');
const L = require('./lib');

const a = L.args(process.argv);
const exp = JSON.parse(fs.readFileSync(a.expect, 'utf8'));
const dir = path.resolve(a.dir);

async function main() {
  const browser = await L.launch();
  const { ctx, outside } = await L.offlineContext(browser);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto('file://' + dir + '/index.html', { waitUntil: 'load' });
  await page.waitForFunction(() => { const r = document.getElementById('site'); return r && r.dataset.state; }, null, { timeout: 15000 }).catch(() => {});
  L.check('the index renders from file://', (await page.evaluate(() => document.getElementById('site').dataset.state)) === 'ready',
    await page.textContent('#site'));

  // A row per stored sweep, newest first, as the store has them.
  const rows = await page.$$eval('#site-index tbody tr', (trs) => trs.map((tr) => ({
    id: Number(tr.dataset.id), cells: Array.from(tr.children).map((td) => td.textContent),
    decision: tr.dataset.decision, unfinished: tr.classList.contains('unfinished'), suite: tr.dataset.suite || '',
    href: tr.querySelector('a.sweep-link').getAttribute('href') })));
  const want = exp.sweeps.slice().sort((x, y) => y.id - x.id);
  L.check('a row per stored sweep, newest first (' + rows.map((r) => r.id).join(',') + ')',
    JSON.stringify(rows.map((r) => r.id)) === JSON.stringify(want.map((s) => s.id)));
  want.forEach((s) => {
    const r = rows.find((x) => x.id === s.id);
    const c = r ? r.cells : [];
    L.check('sweep ' + s.id + ': link, name, nodes, strategy as stored', r && r.href === 'sweep-' + s.id + '.html' &&
      c[1] === s.name && c[3] === s.nodes.length + ': ' + s.nodes.join(', ') && c[4] === s.strategy, JSON.stringify(c));
    if (s.metric) L.check('sweep ' + s.id + ': its metric cell says ' + s.metric, c[5] === s.metric &&
      (r.suite === '') === !/^suite: /.test(s.metric), JSON.stringify(c));
    L.check('sweep ' + s.id + ': a start date', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/.test(c[2] || ''), c[2]);
    L.check('sweep ' + s.id + ': best (' + (s.best || 'none') + ') and status ' + s.status,
      (s.best ? (c[6] || '').startsWith(s.best + ' ') : /baseline kept|none/.test(c[6] || '')) && c[7] === s.status, JSON.stringify(c));
    L.check('sweep ' + s.id + ': its outcome in words', (c[8] || '').length > 0, JSON.stringify(c));
    if (s.decision) L.check('sweep ' + s.id + ': the row carries its stored decision (' + s.decision.state + ')',
      r && r.decision === s.decision.state, JSON.stringify(r));
    L.check('sweep ' + s.id + ': ' + (s.status === 'completed' ? 'a completed sweep is not marked' : 'a sweep that did not finish is marked'),
      r && r.unfinished === (s.status !== 'completed') && (s.status === 'completed' || /did not finish/.test(c[8] || '')), JSON.stringify(r));
  });
  L.check('markup in a name is text', (await page.$$eval('#site-index i', (x) => x.length)) === 0);

  // A chart per plan run more than once: its runs in time order, the effect and the baseline
  // (the first screen's drawn once the index is painted).
  if (exp.plans.length) {
    await page.waitForFunction(() => performance.getEntriesByName('ft-site-charts').length > 0, null, { timeout: 15000 }).catch(() => {});
  }
  const charts = await page.evaluate(() => Array.from(document.querySelectorAll('canvas.plan-chart')).map((c) => {
    const ch = window.Chart.getChart(c);
    return ch ? { labels: ch.data.labels, sets: ch.data.datasets.map((d) => ({ label: d.label, data: d.data })),
      zero: ['y', 'y2'].every((k) => ch.scales[k] && ch.scales[k].min <= 0),
      title: c.closest('.plan-run').querySelector('h3').textContent, drawn: c.width > 0 && c.height > 0 } : null;
  }));
  L.log('charts: ' + JSON.stringify(charts));
  L.check('one chart per plan run more than once (' + charts.length + ')', charts.length === exp.plans.length);
  exp.plans.forEach((p, i) => {
    const c = charts[i];
    L.check('plan "' + p.name + '": its ' + p.runs.length + ' runs, oldest first', c && c.title.includes(p.name) &&
      JSON.stringify(c.labels.map((l) => Number(l.replace(/^#(\d+).*/, '$1')))) === JSON.stringify(p.runs), c && JSON.stringify(c.labels));
    L.check('plan "' + p.name + '": the best configuration\'s effect and the baseline\'s figure per run', c && c.sets.length === 2 &&
      c.sets.every((d) => d.data.length === p.runs.length && d.data.every((v) => typeof v === 'number')) && c.drawn, c && JSON.stringify(c.sets));
    L.check('plan "' + p.name + '": both axes start at 0', c && c.zero, c && JSON.stringify(c));
  });
  const unfinished = exp.sweeps.filter((s) => s.status !== 'completed').map((s) => s.id);
  L.check('no chart plots a run that did not finish (' + unfinished.join(',') + ')', charts.every((c) => c &&
    c.labels.every((l) => unfinished.indexOf(Number(l.replace(/^#(\d+).*/, '$1'))) < 0)), JSON.stringify(charts.map((c) => c && c.labels)));
  if (a.shots) await L.shot(page, a.shots, (a.prefix || 'site') + '-index');

  // One sweep's page, through its link.
  const first = want[want.length - 1];
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a.sweep-link[href="sweep-' + first.id + '.html"]')]);
  await page.waitForFunction(() => { const r = document.getElementById('report'); return r && r.dataset.state; }, null, { timeout: 15000 }).catch(() => {});
  L.check('the link opens sweep ' + first.id + '\'s report', (await page.evaluate(() => document.getElementById('report').dataset.state)) === 'ready' &&
    (await page.textContent('#report-title')).startsWith('Sweep ' + first.id + ' '), await page.textContent('#report'));
  const prow = await page.locator('#sweep-table tbody tr').count();
  L.check('the report has the sweep\'s table (' + prow + ' rows)', prow >= 2);
  L.check('the report draws its chart', (await page.evaluate(() => Array.from(document.querySelectorAll('canvas.axis-chart'))
    .every((c) => window.Chart.getChart(c) && c.width > 0))));
  if (a.shots) await L.shot(page, a.shots, (a.prefix || 'site') + '-sweep');
  for (const s of want.filter((x) => x.decision)) {
    await page.goto('file://' + dir + '/sweep-' + s.id + '.html', { waitUntil: 'load' });
    await page.waitForFunction(() => { const r = document.getElementById('report'); return r && r.dataset.state; }, null, { timeout: 15000 }).catch(() => {});
    const b = await page.evaluate(() => { const e = document.getElementById('best'); return e ? { d: e.dataset.decision, cls: e.className, text: e.textContent } : null; });
    L.check('sweep ' + s.id + '\'s page: the banner renders the stored decision (' + s.decision.state + ')',
      b && b.d === s.decision.state && b.text.includes(s.decision.summary), JSON.stringify(b));
    L.check('sweep ' + s.id + '\'s page: green only for a confirmed decision of a completed sweep',
      b && /best-confirmed/.test(b.cls) === (s.decision.state === 'confirmed' && s.status === 'completed'), b && b.cls);
    if (s.status !== 'completed')
      L.check('sweep ' + s.id + '\'s page says it did not finish', b && /This sweep was /.test(b.text), b && b.text);
    if (a.shots) await L.shot(page, a.shots, (a.prefix || 'site') + '-sweep-' + s.id);
  }

  L.check('no request left the site (network off)', outside.length === 0, outside.join(' '));
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('site check crashed', e.stack || e); process.exit(L.done()); });
