/* report_check.js -- opens a self-contained sweep report from a file:// URL in headless
 * Chromium with the network off and checks it against the sweep JSON it was made from.
 * usage: node report_check.js --html FILE --json SWEEP.json [--table SHOW.txt] [--shots DIR]
 *        [--prefix NAME]
 * SHOW.txt: `fleettune-ctl show ID` of the same sweep: the report's groups must be its groups. */
'use strict';
const fs = require('fs');
const path = require('path');
const L = require('./lib');

const a = L.args(process.argv);
const doc = JSON.parse(fs.readFileSync(a.json, 'utf8'));
const url = 'file://' + path.resolve(a.html);

async function main() {
  const browser = await L.launch();
  const { ctx, outside } = await L.offlineContext(browser);
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

  // The groups of the CLI table, in order, with their rows.
  if (a.table) {
    const cli = [];
    for (const line of fs.readFileSync(a.table, 'utf8').split('\n')) {
      if (/^(axis \d+: .*|final confirmation against the original baseline:)$/.test(line)) cli.push({ title: line.replace(/:$/, ''), rows: -1 });
      else if (/^\|/.test(line) && cli.length && !/^\|[-| ]+\|$/.test(line)) cli[cli.length - 1].rows++;
    }
    const html = await page.$$eval('#sweep-table .sweep-group:not(.race-block)', (gs) => gs.map((g) => ({
      title: (g.querySelector('.group-title') || {}).textContent || null, rows: g.querySelectorAll('tbody tr').length })));
    L.log('CLI groups ' + JSON.stringify(cli) + '; report groups ' + JSON.stringify(html));
    L.check('the report has the CLI table\'s groups (' + cli.map((g) => g.title).join(' / ') + ')',
      cli.length > 0 && JSON.stringify(cli) === JSON.stringify(html), JSON.stringify(html));
  }
  const roles = await page.$$eval('#sweep-table tbody tr', (rs) => rs.map((r) => ({
    point: Number(r.dataset.point), role: r.querySelector('.row-role').textContent })));
  const same = (x, y) => JSON.stringify(Object.entries(x.params).sort()) === JSON.stringify(Object.entries(y.params).sort());
  const reruns = doc.points.map((p) => ({ p, again: doc.points.find((q) => q.index < p.index && same(q, p)) })).filter((x) => x.again);
  L.log('re-run rows: ' + reruns.map((x) => '#' + (x.p.index + 1) + '=#' + (x.again.index + 1)).join(' '));
  L.check('every repeated configuration is marked "re-run of #k" (' + reruns.length + ')', reruns.every((x) => {
    const r = roles.find((y) => y.point === x.p.index);
    return r && r.role.includes(x.p.role === 'final' ? '#' + (x.again.index + 1) + ' re-run' : 're-run of #' + (x.again.index + 1));
  }), JSON.stringify(roles));
  const axisBase = doc.points.filter((p) => p.role === 'baseline' && p.index > 0 && p.axis !== null && doc.strategy !== 'grid');
  L.check('each later axis\' baseline says so ("baseline of axis N")', axisBase.every((p) => {
    const r = roles.find((y) => y.point === p.index);
    return r && r.role.includes('baseline of axis ' + (p.axis + 1));
  }), JSON.stringify(roles));
  if (doc.points.some((p) => p.race)) {
    const lines = await page.locator('#sweep-table .race-block li').count();
    L.check('the race (adaptive) block lists every raced point', lines === doc.points.filter((p) => p.race).length, 'got ' + lines);
  }

  const charts = await page.evaluate(() => Array.from(document.querySelectorAll('canvas.axis-chart')).map((c) => {
    const ch = window.Chart.getChart(c);
    if (!ch) return null;
    const ds = ch.data.datasets;
    const legend = (ch.legend && ch.legend.legendItems || []).map((x) => x.text);
    return {
      labels: ch.data.labels,
      rows: ch.ftRows || [],
      fleet: ds.filter((d) => /^fleet Δ \(bar/.test(d.label)).map((d) => d.data),
      marks: (ch.ftMarks || []).length,
      whiskers: ds.filter((d) => /^deciding interval/.test(d.label)).map((d) => d.data),
      nodeMarks: ds.filter((d) => / own Δ /.test(d.label)).length,
      legend: legend,
      y: [ch.scales.y.min, ch.scales.y.max],
      drawn: c.width > 0 && c.height > 0
    };
  }));
  L.check('one chart per axis (' + charts.length + ')', charts.length === doc.axes.length);
  charts.forEach((c, i) => {
    const ax = doc.axes[i];
    L.check('axis ' + i + ' (' + ax.params.join('+') + '): x = its ' + ax.values.length + ' values', c && c.labels.length === ax.values.length, JSON.stringify(c));
    L.check('axis ' + i + ': one fleet Δ bar series (what was judged), a figure per row that ran', c && c.fleet.length === 1 &&
      c.rows.every((r, j) => (r.delta === null) === (c.fleet[0][j] === null)), JSON.stringify(c && c.fleet));
    L.check('axis ' + i + ': the axis\' baseline is the 0 of the chart', c && c.rows.filter((r) => r.base).every((r) => r.delta === 0), JSON.stringify(c && c.rows));
    L.check('axis ' + i + ': a whisker (the deciding interval) per judged row', c && c.whiskers.length === 1 &&
      c.rows.every((r, j) => r.base || r.delta === null || r.lo === null || (Array.isArray(c.whiskers[0][j]) && c.whiskers[0][j][0] === r.lo && c.whiskers[0][j][1] === r.hi)), JSON.stringify(c && c.whiskers));
    L.check('axis ' + i + ': whiskers agree with the verdicts (gain above 0, loss below 0)', c && c.rows.every((r) =>
      (r.verdict !== 'gain' || r.lo > 0) && (r.verdict !== 'loss' || r.hi < 0)), JSON.stringify(c && c.rows));
    L.check('axis ' + i + ': each node as thin marks, labelled in the legend', c && c.nodeMarks === doc.nodes.length &&
      c.marks === c.rows.reduce((t, r) => t + (r.nodes || []).filter((n) => n && typeof n.delta === 'number').length, 0), JSON.stringify(c));
    L.check('axis ' + i + ': the legend names the whiskers', c && c.legend.some((t) => /^deciding interval of the fleet Δ \(/.test(t)), JSON.stringify(c && c.legend));
    L.check('axis ' + i + ': the Δ axis shows 0', c && c.y[0] <= 0 && c.y[1] >= 0, JSON.stringify(c && c.y));
    L.check('axis ' + i + ': canvas drawn', c && c.drawn);
  });
  const best = await page.textContent('#best');
  L.check('best configuration shown', /best/.test(best) && (!doc.best_line || best.includes(doc.best_line.split('\n')[0])), best);
  if (doc.decision) {
    const attr = await page.getAttribute('#best', 'data-decision');
    const cls = await page.getAttribute('#best', 'class');
    L.check('the banner renders the document\'s decision (' + doc.decision.state + ')', attr === doc.decision.state, attr);
    L.check('green only for a confirmed decision of a completed sweep', /best-confirmed/.test(cls) === (doc.decision.state === 'confirmed' && doc.status === 'completed'), cls);
    L.check('the banner carries the decision\'s summary', best.includes(doc.decision.summary), best);
    if (doc.status !== 'completed') L.check('a sweep that did not complete says so', /This sweep was /.test(best), best);
  }
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
