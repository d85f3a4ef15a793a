/* report_check.js -- opens a self-contained sweep report from a file:// URL in headless
 * Chromium with the network off and checks it against the sweep JSON it was made from.
 * usage: node report_check.js --html FILE --json SWEEP.json [--shots DIR] [--prefix NAME] */
'use strict';
const fs = require('fs');
const path = require('path');
const L = require('./lib');

const a = L.args(process.argv);
const doc = JSON.parse(fs.readFileSync(a.json, 'utf8'));
const url = 'file://' + path.resolve(a.html);

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const outside = [];
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    outside.push(u);
    return route.abort();
  });
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => { const r = document.getElementById('report'); return r && r.dataset.state; }, null, { timeout: 15000 }).catch(() => {});
  const state = await page.evaluate(() => document.getElementById('report').dataset.state);
  L.check('report renders from ' + url.replace(/^.*\//, 'file://…/') + ' (' + state + ')', state === 'ready',
    await page.textContent('#report'));

  const html = fs.readFileSync(a.html, 'utf8');
  L.check('report file has no external script or stylesheet', !/<script[^>]+src=|<link[^>]+stylesheet/.test(html));

  const rows = await page.locator('#sweep-table tbody tr').count();
  L.check('sweep table has one row per point (' + rows + ')', rows === doc.points.length, 'want ' + doc.points.length);
  const verdicts = await page.$$eval('#sweep-table .verdict', (v) => v.map((x) => x.textContent).filter(Boolean));
  const want = doc.points.filter((p) => p.verdict).length;
  L.check('sweep table shows the verdicts (' + verdicts.length + ')', verdicts.filter((v) => !/^ ?\(final\)$/.test(v)).length >= want, verdicts.join('|'));
  const cells = await page.$$eval('#sweep-table tbody tr', (rs) => rs.map((r) => {
    const v = r.querySelector('.verdict');
    return v ? { code: v.dataset.verdict, text: v.textContent } : null;
  }));
  if (doc.format_version >= 2) {
    /* The page reads the codes (its class and data-verdict) and shows fleettune-ctl's words. */
    const bad = doc.points.filter((p, i) => !cells[i] || cells[i].code !== (p.verdict || '') ||
      cells[i].text !== (p.verdict_text || ''));
    L.check('every row: verdict code and fleettune-ctl\'s words (' + doc.points.map((p) => p.verdict).join(',') + ')',
      bad.length === 0, JSON.stringify(cells));
    const wantClass = { gain: 'verdict-gain', loss: 'verdict-loss', equivalent: 'verdict-none', heterogeneous: 'verdict-disagree', inconclusive: 'verdict-unclear' };
    const classes = await page.$$eval('#sweep-table tbody tr', (rs) => rs.map((r) => { const v = r.querySelector('.verdict'); return v ? v.className : ''; }));
    L.check('verdict colours follow the codes', doc.points.every((p, i) => !p.verdict || classes[i].includes(wantClass[p.verdict])), classes.join('|'));
    const noise = await page.$$eval('#noise', (n) => n.map((x) => x.textContent));
    L.check('noise line ' + (doc.noise && doc.noise.text ? 'shown' : 'absent'), doc.noise && doc.noise.text
      ? noise.length === 1 && noise[0] === 'noise: ' + doc.noise.text : noise.length === 0, noise.join('|'));
  } else {
    L.check('version-1 verdict words still shown', doc.points.every((p, i) => !p.verdict || (cells[i] && cells[i].text.startsWith(p.verdict))), JSON.stringify(cells));
  }
  const head = await page.$$eval('#sweep-table thead th', (t) => t.map((x) => x.textContent));
  const adaptive = doc.loops_max > doc.loops;
  L.check('loops column ' + (adaptive ? 'shown (adaptive loops)' : 'absent'), head.includes('loops') === adaptive, head.join('|'));
  L.check('table has a column per node', doc.nodes.every((n) => head.some((h) => h.startsWith(n.name))), head.join('|'));

  const charts = await page.evaluate(() => Array.from(document.querySelectorAll('canvas.axis-chart')).map((c) => {
    const ch = window.Chart.getChart(c);
    if (!ch) return null;
    const ds = ch.data.datasets;
    return {
      labels: ch.data.labels,
      bars: ds.filter((d) => d.type === 'bar' && !/95 % CI$/.test(d.label)).map((d) => d.data.filter((v) => typeof v === 'number').length),
      whiskers: ds.filter((d) => /95 % CI$/.test(d.label)).map((d) => d.data.filter((v) => Array.isArray(v)).length),
      lines: ds.filter((d) => d.type === 'line').length,
      drawn: c.width > 0 && c.height > 0
    };
  }));
  L.check('one chart per axis (' + charts.length + ')', charts.length === doc.axes.length);
  charts.forEach((c, i) => {
    const ax = doc.axes[i];
    L.check('axis ' + i + ' (' + ax.params.join('+') + '): x = its ' + ax.values.length + ' values', c && c.labels.length === ax.values.length, JSON.stringify(c));
    L.check('axis ' + i + ': one bar series per node', c && c.bars.length === doc.nodes.length && c.bars.every((n) => n > 0), JSON.stringify(c));
    L.check('axis ' + i + ': 95 % CI whiskers', c && c.whiskers.length === doc.nodes.length && c.whiskers.every((n) => n > 0), JSON.stringify(c));
    L.check('axis ' + i + ': baseline line(s)', c && c.lines >= 1, JSON.stringify(c));
    L.check('axis ' + i + ': canvas drawn', c && c.drawn);
  });
  const best = await page.textContent('#best');
  L.check('best configuration shown', /best/.test(best) && (!doc.best_line || best.includes(doc.best_line)), best);
  const warns = await page.$$eval('#report .warning', (w) => w.map((x) => x.textContent));
  L.check('node-spread warnings shown (' + warns.length + ')', warns.length === (doc.warnings || []).length &&
    (doc.warnings || []).every((t) => warns.some((x) => x.includes(t))), warns.join('|'));
  const plan = await page.textContent('#plan pre');
  L.check('plan shown', plan && plan.length > 2 && (!doc.plan || !doc.plan.name || plan.includes(doc.plan.name)));
  L.check('no request left the file (network off)', outside.length === 0, outside.join(' '));
  L.check('no dialog opened', w.dialogs.length === 0, w.dialogs.join('; '));
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  if (a.shots) await L.shot(page, a.shots, a.prefix || 'report');
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('report check crashed', e.stack || e); process.exit(L.done()); });
