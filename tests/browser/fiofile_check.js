/* fiofile_check.js -- the job view of a job given as an fio job file shows the file as it was
 * given, as text (markup in it stays text), beside its passes.
 * usage: node fiofile_check.js --url http://127.0.0.1:PORT/ --job ID --expect FILE [--token T]
 *        [--shots DIR] [--prefix P] */
'use strict';
const fs = require('fs');
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');
const want = fs.readFileSync(a.expect, 'utf8');

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(base + '#/job/' + a.job, { waitUntil: 'load' });
  await L.ready(page);
  await page.waitForSelector('#job-fio-file pre', { timeout: 20000 }).catch(() => {});
  const text = await page.evaluate(() => {
    const p = document.querySelector('#job-fio-file pre');
    return p ? p.textContent : null;
  });
  L.check('the job view has its fio job file', text !== null);
  L.check('... exactly as given', text === want, JSON.stringify(text));
  L.check('... its markup stays text (no element made from it)',
    (await page.locator('#job-fio-file img').count()) === 0);
  L.check('... beside the pass bars', (await page.locator('#pass-chart').count()) === 1);
  await L.shot(page, a.shots, (a.prefix || 'page') + '-job-fio-file');
  L.check('no script errors, no dialogs', w.errors.length === 0 && w.dialogs.length === 0,
    w.errors.concat(w.dialogs).join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('fio file check crashed', e.stack || e); process.exit(L.done()); });
