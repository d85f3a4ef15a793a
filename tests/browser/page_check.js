/* page_check.js -- drives the agent's page (web/) in headless Chromium and checks each view
 * against what the test put into the agent.
 * usage: node page_check.js --url http://127.0.0.1:PORT/ --expect FILE.json [--token T] [--public]
 *        [--shots DIR] [--prefix NAME]
 * FILE.json: {"total":N, "job":{"id":ID,"loops":L}, "filter":{"label":"k=v","count":M},
 *             "compare":{"by":"nr_requests","metric":"write.bw_mib","groups":G},
 *             "xss":{"text":"<img src=x onerror=alert(1)>","job":ID}, "device":"loopN"} */
'use strict';
const fs = require('fs');
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const exp = JSON.parse(fs.readFileSync(a.expect, 'utf8'));
const prefix = a.prefix || 'page';
const shots = a.shots || null;

async function authVisible(page) {
  return page.evaluate(() => !document.getElementById('auth').hidden);
}

async function rowCount(page) {
  return page.locator('#history-table tbody tr').count();
}

async function gotoView(page, hash) {
  return L.navigate(page, () => page.evaluate((h) => { location.hash = h; }, hash));
}

async function clickNav(page, sel) {
  return L.navigate(page, () => page.click(sel));
}

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const w = L.watch(page);

  await page.goto(base, { waitUntil: 'load' });

  // --- token prompt (agent without --public-read) or its absence (--public-read) ---
  if (a.token) {
    await page.waitForSelector('#auth:not([hidden])', { timeout: 10000 }).catch(() => {});
    L.check('token prompt appears without --public-read', await authVisible(page));
    await L.shot(page, shots, prefix + '-token-prompt');
    await page.fill('#auth-token', 'wrong-' + a.token);
    await page.click('#auth form button[type=submit]');
    await page.waitForFunction(() => !document.getElementById('auth').hidden &&
      /refused/.test(document.getElementById('auth-msg').textContent), null, { timeout: 10000 }).catch(() => {});
    L.check('a wrong token brings the prompt back', await authVisible(page) &&
      /refused/.test(await page.textContent('#auth-msg')));
    await page.fill('#auth-token', a.token);
    await page.click('#auth form button[type=submit]');
    await L.ready(page);
    L.check('token accepted: prompt gone', !(await authVisible(page)));
    L.check('token kept in sessionStorage', (await page.evaluate(() => sessionStorage.getItem('fleettune.token'))) === a.token);
  } else {
    await L.ready(page);
  }

  // --- history ---
  await page.waitForSelector('#history-table', { timeout: 15000 }).catch(() => {});
  const want = Math.min(exp.total, 50);
  const n = await rowCount(page);
  L.check('history rows appear (' + n + ' of ' + want + ')', n === want, 'got ' + n);
  const ids = await page.$$eval('#history-table tbody tr', (trs) => trs.map((t) => Number(t.dataset.id)));
  L.check('history is newest first', ids.every((x, i) => i === 0 || ids[i - 1] > x), ids.join(','));
  const cells = await page.$$eval('#history-table tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
  L.log('first row: ' + cells.join(' | '));
  L.check('history row shows options and mean ± stdev', cells.some((c) => /±/.test(c)) && cells.includes(exp.device), cells.join('|'));
  await L.shot(page, shots, prefix + '-history');

  // Filter by label through the form.
  await page.fill('#f-label', exp.filter.label);
  await clickNav(page, '#f-apply');
  await page.waitForSelector('#history-table', { timeout: 10000 }).catch(() => {});
  const nf = await rowCount(page);
  L.check('label filter narrows the rows (' + nf + ' < ' + n + ')', nf === exp.filter.count && nf < n, 'got ' + nf);
  const chips = await page.$$eval('#history-table tbody tr', (trs) => trs.map((t) => t.textContent));
  L.check('every filtered row carries the label', chips.every((t) => t.includes(exp.filter.label)));
  L.check('the filter is kept in the URL', /label=/.test(await page.evaluate(() => location.hash)));
  await L.shot(page, shots, prefix + '-history-filtered');
  if (exp.filter.param) {
    await page.fill('#f-label', '');
    await page.fill('#f-param', exp.filter.param);
    await clickNav(page, '#f-apply');
    const np = await rowCount(page);
    L.check('param filter ' + exp.filter.param + ' narrows the rows', np === exp.filter.paramCount, 'got ' + np + ' want ' + exp.filter.paramCount);
  }

  // XSS: the label is text, never markup, and nothing ran.
  await gotoView(page, '#/history');
  const xssText = exp.xss.text;
  const shown = await page.$$eval('#history-table .chip', (cs, t) => cs.some((c) => c.textContent.includes(t)), xssText);
  L.check('a label with markup is shown as text in the history', shown);
  L.check('no <img> was created from data', (await page.$$eval('main img', (i) => i.length)) === 0);

  // Paging (before_id): pages of total-1 rows, then the last row, then back.
  if (exp.total >= 2) {
    const per = exp.total - 1;
    await gotoView(page, '#/history?limit=' + per);
    const p1 = await page.$$eval('#history-table tbody tr', (t) => t.map((r) => Number(r.dataset.id)));
    await clickNav(page, '#page-older');
    const p2 = await page.$$eval('#history-table tbody tr', (t) => t.map((r) => Number(r.dataset.id)));
    L.check('paging: page 1 has ' + per + ' rows, "Older" shows the last one',
      p1.length === per && p2.length === 1 && p2[0] < Math.min.apply(null, p1), p1.join(',') + ' / ' + p2.join(','));
    L.check('paging: no "Older" on the last page', await page.isDisabled('#page-older'));
    await clickNav(page, '#page-newer');
    L.check('paging: "Newer" goes back', (await rowCount(page)) === per);
  }

  // --- job view ---
  await gotoView(page, '#/job/' + exp.job.id);
  await page.waitForSelector('#pass-chart', { timeout: 10000 }).catch(() => {});
  const bars = await page.evaluate(() => {
    const c = document.getElementById('pass-chart');
    const ch = c && window.Chart.getChart(c);
    return ch ? ch.data.datasets[0].data.filter((v) => typeof v === 'number').length : -1;
  });
  L.check('job view shows one bar per pass (' + bars + ')', bars === exp.job.loops, 'got ' + bars);
  const drawn = await page.evaluate(() => {
    const c = document.getElementById('pass-chart');
    return c ? c.width > 0 && c.height > 0 : false;
  });
  L.check('job chart canvas is drawn', drawn);
  L.check('job view shows the summary table', (await page.locator('#job-summary tbody tr').count()) > 0);
  L.check('job view shows the parameter snapshot', (await page.locator('#job-params tbody tr').count()) > 3);
  const jid = await page.$$eval('#job-identity td', (tds) => tds.map((t) => t.textContent));
  L.check('job view shows the device and host identity (transport, kernel)',
    jid.includes('transport') && jid.includes('loop') && jid.includes('kernel'), jid.join('|'));
  const rawLinks = await page.locator('#job-raw a.raw-link').count();
  L.check('job view links the raw output of every pass', rawLinks === exp.job.loops, 'got ' + rawLinks);
  if (a.token) {
    await page.click('#job-raw a.raw-link >> nth=0');
    await page.waitForFunction(() => { const p = document.getElementById('raw-out'); return p && !p.hidden && !/^Loading/.test(p.textContent); }, null, { timeout: 10000 }).catch(() => {});
    const raw = await page.textContent('#raw-out');
    L.check('raw output of pass 1 is shown', raw && raw.length > 20 && !/^error/.test(raw), (raw || '').slice(0, 80));
  } else {
    // --public-read keeps raw output behind the token (docs/api.md, "What --public-read shows").
    const st = await page.evaluate((id) => fetch('/api/v1/jobs/' + id + '/raw?loop=1').then((r) => r.status), exp.job.id);
    L.check('raw output stays behind the token under --public-read (401)', st === 401, 'got ' + st);
  }
  await L.shot(page, shots, prefix + '-job');

  // The XSS job's own view.
  await gotoView(page, '#/job/' + exp.xss.job);
  const lab = await page.$$eval('#job-labels td', (tds) => tds.map((t) => t.textContent));
  L.check('job view shows the markup label as text', lab.includes(xssText), lab.join('|'));
  L.check('no <img> in the job view', (await page.$$eval('main img', (i) => i.length)) === 0);

  // --- compare ---
  await gotoView(page, '#/compare?by=' + encodeURIComponent(exp.compare.by) + '&metric=' + encodeURIComponent(exp.compare.metric));
  await page.waitForSelector('#compare-chart', { timeout: 15000 }).catch(() => {});
  const cmp = await page.evaluate(() => {
    const c = document.getElementById('compare-chart');
    const ch = c && window.Chart.getChart(c);
    if (!ch) return null;
    return { labels: ch.data.labels, dots: ch.data.datasets.find((d) => d.type === 'scatter').data.length,
      means: ch.data.datasets.find((d) => d.type === 'bar').data.length };
  });
  L.check('compare view shows one group per parameter value (' + (cmp && cmp.labels.join(',')) + ')',
    cmp && cmp.labels.length === exp.compare.groups && cmp.means === exp.compare.groups, JSON.stringify(cmp));
  L.check('compare view shows each pass as a dot', cmp && cmp.dots === exp.compare.passes, JSON.stringify(cmp) + ' want ' + exp.compare.passes + ' dots');
  await L.shot(page, shots, prefix + '-compare');

  // --- devices ---
  await gotoView(page, '#/devices');
  const sel = await page.$$eval('section.device', (x) => x.map((e) => e.id));
  L.check('devices view opens a benchmarkable device by default (' + sel.join(',') + ')', sel.length === 1 && sel[0] === 'dev-' + exp.device);
  await gotoView(page, '#/devices/' + exp.device);
  await page.waitForSelector('#dev-' + exp.device + ' table', { timeout: 10000 }).catch(() => {});
  const dp = await page.locator('#dev-' + exp.device + ' tbody tr').count();
  L.check('devices view lists ' + exp.device + "'s parameters (" + dp + ')', dp > 5);
  const sched = await page.$$eval('#dev-' + exp.device + ' tbody tr', (trs) => trs.map((t) => t.textContent).filter((t) => /^scheduler/.test(t)));
  L.check('devices view shows the scheduler', sched.length === 1, sched.join('|'));
  const did = await page.$$eval('#dev-identity td', (tds) => tds.map((t) => t.textContent));
  L.check('devices view shows what the device is (transport loop)', did.includes('transport') && did.includes('loop'), did.join('|'));
  const host = await page.$$eval('#dev-host td', (tds) => tds.map((t) => t.textContent));
  L.check('devices view shows the host (kernel)', host.includes('kernel'), host.join('|'));
  await L.shot(page, shots, prefix + '-devices');

  if (!a.token) L.check('no token prompt under --public-read', !(await authVisible(page)));
  L.check('no dialog ever opened (no script ran from data)', w.dialogs.length === 0, w.dialogs.join('; '));
  const csp = w.errors.filter((e) => /Content Security Policy|Refused to/.test(e));
  L.check('no Content-Security-Policy violation', csp.length === 0, csp.join('; '));
  const other = w.errors.filter((e) => !/401|Unauthorized/.test(e) && !csp.includes(e));
  L.check('no script errors', other.length === 0, other.join('; '));
  L.check('every request stayed on the agent', w.requests.every((u) => u.startsWith(base) || u.startsWith('data:')),
    w.requests.filter((u) => !u.startsWith(base)).join(' '));

  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('page check crashed', e.stack || e); process.exit(L.done()); });
