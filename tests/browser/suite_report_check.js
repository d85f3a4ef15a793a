/* suite_report_check.js -- a suite's sweep report (version 5 document) in headless Chromium
 * from a file:// URL with the network off: the matrix as a coloured grid (a row per
 * configuration, a column per workload, the mean and the decision; breaches outlined) and one
 * chart per workload, checked against the document; when the cohorts' suite decisions differ,
 * each cohort's matrix as a grid of its own with its decision last.
 * usage: node suite_report_check.js --html FILE --json SWEEP.json [--shots DIR] [--prefix NAME] */
'use strict';
const fs = require('fs');
const path = require('path');
const L = require('./lib');

const a = L.args(process.argv);
const doc = JSON.parse(fs.readFileSync(a.json, 'utf8'));
const url = 'file://' + path.resolve(a.html);
const su = doc.suite;

async function main() {
  const browser = await L.launch();
  const { ctx } = await L.offlineContext(browser);
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 2400 });
  const w = L.watch(page);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => { const r = document.getElementById('report'); return r && r.dataset.state; }, null, { timeout: 15000 }).catch(() => {});
  const state = await page.evaluate(() => document.getElementById('report').dataset.state);
  L.check('the suite report renders (' + state + ')', state === 'ready', await page.textContent('#report'));
  L.check('the document is a suite', !!su && su.workloads.length >= 2, JSON.stringify(su && su.rule));
  const head = await page.$$eval('#suite-matrix thead th', (t) => t.map((x) => x.textContent));
  const want = ['configuration'].concat(su.workloads.map((x) => x.name)).concat(['mean', 'decision']);
  L.check('the matrix has a column per workload, the mean and the decision', JSON.stringify(head) === JSON.stringify(want), head.join('|'));
  const rows = await page.$$eval('#suite-matrix tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) =>
    ({ text: c.textContent, cls: c.className, v: c.dataset.verdict || '' }))));
  L.check('a row per configuration', rows.length === su.matrix.length, rows.length + ' vs ' + su.matrix.length);
  let ok = true, why = '';
  su.matrix.forEach((m, i) => {
    const r = rows[i] || [];
    if (!r.length || r[0].text !== m.configuration) { ok = false; why += ' row ' + i + ' config'; }
    m.cells.forEach((c, j) => {
      const cell = r[1 + j];
      if (!cell || cell.v !== c.verdict || cell.cls.indexOf('verdict-') < 0) { ok = false; why += ' cell ' + i + '/' + j; }
    });
    const last = r[r.length - 1];
    if (!last || last.v !== m.verdict) { ok = false; why += ' decision ' + i; }
  });
  L.check('each cell is coloured by its workload\'s verdict, the last column is the rule\'s', ok, why);
  const breached = su.matrix.reduce((n, m) => n + m.guardrails.filter((g) => g.breached).length, 0);
  const outlined = await page.locator('#suite-matrix td.suite-breach').count();
  L.check('every breached guardrail is outlined in its cell (' + breached + ')', outlined === breached, outlined + '');
  const lines = await page.locator('#suite > .suite-breach-line').allTextContents();
  L.check('and named under the grid, with by how much', lines.length === breached && lines.every((t) => /points over|no figure/.test(t)), lines.join(' | '));
  const blocks = await page.locator('#suite .suite-cohort').count();
  if (!su.cohorts_differ) {
    L.check('no cohort matrix when the cohorts agree', blocks === 0, blocks + '');
  } else {
    L.check('a matrix per cohort (' + su.cohorts.length + ')', blocks === su.cohorts.length, blocks + '');
    for (const co of su.cohorts) {
      const id = '#suite-matrix-cohort-' + co.cohort;
      const crow = await page.$$eval(id + ' tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.dataset.verdict || '')));
      let cok = crow.length === co.matrix.length, cwhy = crow.length + ' vs ' + co.matrix.length;
      co.matrix.forEach((m, i) => {
        const r = crow[i] || [];
        m.cells.forEach((c, j) => { if (r[1 + j] !== c.verdict) { cok = false; cwhy += ' cell ' + i + '/' + j; } });
        if (r[r.length - 1] !== m.verdict) { cok = false; cwhy += ' decision ' + i; }
      });
      const key = doc.cohorts[co.cohort].key;
      L.check('cohort ' + key + ': its cells and rows\' verdicts are its own', cok, cwhy);
      const cb = co.matrix.reduce((n, m) => n + m.guardrails.filter((g) => g.breached).length, 0);
      const cout = await page.locator('#suite-cohort-' + co.cohort + ' td.suite-breach').count();
      L.check('cohort ' + key + ': its breaches outlined (' + cb + ')', cout === cb, cout + '');
      const last = await page.$eval('#suite-cohort-' + co.cohort, (b) => b.lastElementChild.className + '|' + b.lastElementChild.textContent);
      L.check('cohort ' + key + ': its decision last (' + co.decision.state + ')',
        last.indexOf('suite-cohort-decision') === 0 && last.endsWith(': ' + co.words) && last.indexOf(key) > 0, last);
    }
    const cells = await page.$$eval('#suite-matrix-cohort-1 tbody tr:first-child td', (t) => t.map((x) => x.dataset.verdict || ''));
    L.check('the cohorts differ on the grid (Y\'s first row ' + cells.join(',') + ')', su.cohorts[1].matrix[0].verdict !== su.cohorts[0].matrix[0].verdict, cells.join(','));
  }
  const charts = await page.$$eval('#suite canvas.suite-chart', (cs) => cs.map((c) => c.dataset.workload));
  L.check('one chart per workload', JSON.stringify(charts) === JSON.stringify(su.workloads.map((x) => x.name)), charts.join('|'));
  const drawn = await page.$$eval('#suite canvas.suite-chart', (cs) => cs.map((c) => c.width > 0 && c.height > 0));
  L.check('the charts are drawn', drawn.length > 0 && drawn.every(Boolean), JSON.stringify(drawn));
  const best = await page.textContent('#best');
  L.check('the banner is the suite\'s decision (' + doc.decision.state + ')',
    (await page.getAttribute('#best', 'data-decision')) === doc.decision.state, best);
  await L.shot(page, a.shots, (a.prefix || 'suite') + '-report');
  const grid = page.locator('#suite');
  if (a.shots && (await grid.count())) await grid.screenshot({ path: path.join(a.shots, (a.prefix || 'suite') + '-matrix.png') });
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('suite report check crashed', e.stack || e); process.exit(L.done()); });
