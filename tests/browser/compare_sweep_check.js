/* compare_sweep_check.js -- the agent's Compare view over a two-axis sequential sweep's jobs
 * (issue 28): the default parameter is the sweep's first axis; a parameter that moves with
 * another (setra with read_ahead_kb) is named, not offered; every effect is shown only between
 * jobs that differ in that parameter alone (one table per setting of the others), so nothing
 * is pooled across another varying parameter; switching to the second axis does the same.
 * usage: node compare_sweep_check.js --url http://127.0.0.1:PORT/ --token T --expect FILE.json
 *        [--shots DIR] [--prefix NAME]
 * FILE.json: {"first": "nr_requests", "second": "read_ahead_kb", "jobs": [{"id", "params":
 *             {name: value}}] (the sweep's succeeded jobs)} */
'use strict';
const fs = require('fs');
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const exp = JSON.parse(fs.readFileSync(a.expect, 'utf8'));
const prefix = a.prefix || 'compare-sweep';

async function state(page) {
  return page.evaluate(() => {
    const opts = Array.from(document.querySelectorAll('#c-param option')).map((o) => ({ v: o.value, sel: o.selected }));
    const blocks = {};
    Array.from(document.querySelectorAll('table.compare tbody tr')).forEach((tr) => {
      const b = tr.dataset.block;
      (blocks[b] = blocks[b] || []).push({ v: tr.dataset.group, jobs: Number(tr.children[1].textContent), vs: tr.children[5].textContent });
    });
    return { params: opts, blocks: blocks, moves: (document.getElementById('compare-moves') || {}).textContent || '',
      count: (document.getElementById('compare-count') || {}).textContent || '' };
  });
}

/* Every block: its rows hold jobs whose other parameters are exactly the block's setting, and
 * their counts add up to the jobs with that setting and value: nothing pooled. */
function blocksOk(name, st, by, others) {
  const keys = Object.keys(st.blocks);
  L.check(name + ': at least one comparison (' + keys.length + ')', keys.length >= 1, JSON.stringify(st));
  keys.forEach((ctx) => {
    const want = {};
    ctx.split(' ').filter(Boolean).forEach((kv) => { const i = kv.indexOf('='); want[kv.slice(0, i)] = kv.slice(i + 1); });
    L.check(name + ': block "' + ctx + '" holds every other varying parameter fixed (' + others.join(',') + ')',
      others.every((k) => want[k] !== undefined), JSON.stringify(want));
    st.blocks[ctx].forEach((row) => {
      const n = exp.jobs.filter((j) => String(j.params[by]) === row.v &&
        Object.keys(want).every((k) => String(j.params[k]) === want[k])).length;
      L.check(name + ': ' + by + '=' + row.v + ' with ' + ctx + ': exactly its ' + n + ' jobs', row.jobs === n, JSON.stringify(row));
    });
  });
}

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(base + '#/history', { waitUntil: 'load' });
  await L.ready(page);
  await L.navigate(page, () => page.evaluate(() => { location.hash = '#/compare'; }));
  await page.waitForSelector('#compare-chart, #compare-none', { timeout: 15000 }).catch(() => {});
  let st = await state(page);
  L.log('default: ' + JSON.stringify(st));
  const offered = st.params.map((o) => o.v);
  L.check('the default parameter is the sweep\'s first axis (' + exp.first + ')', (st.params.find((o) => o.sel) || {}).v === exp.first, JSON.stringify(st.params));
  L.check('setra is not offered (it moves with read_ahead_kb)', offered.indexOf('setra') < 0, offered.join(','));
  L.check('and the page says so', /setra moves with read_ahead_kb/.test(st.moves), st.moves);
  L.check('both axes are offered', offered.includes(exp.first) && offered.includes(exp.second), offered.join(','));
  blocksOk('by ' + exp.first, st, exp.first, offered.filter((k) => k !== exp.first));
  if (a.shots) await L.shot(page, a.shots, prefix + '-first');
  await L.navigate(page, () => page.selectOption('#c-param', exp.second));
  await page.waitForSelector('#compare-chart, #compare-none', { timeout: 15000 }).catch(() => {});
  st = await state(page);
  L.log('second: ' + JSON.stringify(st));
  L.check('switched to ' + exp.second, (st.params.find((o) => o.sel) || {}).v === exp.second, JSON.stringify(st.params));
  blocksOk('by ' + exp.second, st, exp.second, offered.filter((k) => k !== exp.second));
  if (a.shots) await L.shot(page, a.shots, prefix + '-second');
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('compare check crashed', e.stack || e); process.exit(L.done()); });
