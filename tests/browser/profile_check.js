/* profile_check.js -- the devices view of the agent's page shows a device's profile and drift.
 * usage: node profile_check.js --url URL --device DEV --profile NAME --param P --live V
 *        --wanted W --held Q [--shots DIR]
 * P must be shown drifted (live V, profile W), Q held. */
'use strict';
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await ctx.newPage();
  const w = L.watch(page);

  await page.goto(base + '#/devices/' + a.device, { waitUntil: 'load' });
  await L.ready(page);
  const sec = '#dev-' + a.device;
  await page.waitForSelector(sec + ' section.profile', { timeout: 15000 }).catch(() => {});
  const listed = await page.$$eval('table.devices tbody tr', (trs) => trs.map((t) => t.textContent));
  const row = listed.filter((t) => t.indexOf(a.device) === 0)[0] || '';
  L.check('the device list names the profile and its state (' + row + ')', row.indexOf(a.profile) >= 0 && /drifted/.test(row));
  const prof = sec + ' section.profile[data-profile="' + a.profile + '"]';
  L.check('the device shows its profile', (await page.locator(prof).count()) === 1);
  const state = await page.$$eval(prof + ' [data-state]', (n) => n.map((x) => x.getAttribute('data-state')));
  L.check('... in state drifted', state[0] === 'drifted', state.join(','));
  const drow = await page.$$eval(prof + ' tr[data-param="' + a.param + '"] td', (tds) => tds.map((t) => t.textContent));
  L.check(a.param + ' shows the profile value ' + a.wanted + ' and the live ' + a.live + ' (' + drow.join(' | ') + ')',
    drow[1] === a.wanted && drow[2] === a.live && /drifted since/.test(drow[3] || ''));
  const dcls = await page.getAttribute(prof + ' tr[data-param="' + a.param + '"]', 'class');
  L.check(a.param + ' is marked as drifted', /drift/.test(dcls || ''));
  const hrow = await page.$$eval(prof + ' tr[data-param="' + a.held + '"] td', (tds) => tds.map((t) => t.textContent));
  L.check(a.held + ' is held (' + hrow.join(' | ') + ')', hrow[3] === 'held');
  const prow = (await page.$$eval(sec + ' table.params tbody tr', (trs) => trs.map((t) => t.textContent)))
    .filter((t) => t.indexOf(a.param) === 0);
  L.check('the parameter table says which profile holds ' + a.param, prow.length === 1 && prow[0].indexOf(a.profile + ': ' + a.wanted + ' (drifted)') >= 0, prow.join('|'));
  await L.shot(page, a.shots, 'profile-drift');
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  L.check('every request stayed on the agent', w.requests.every((u) => u.startsWith(base) || u.startsWith('data:')));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('profile check crashed', e.stack || e); process.exit(L.done()); });
