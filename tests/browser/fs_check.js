/* fs_check.js -- the job view of a job with a filesystem: its Filesystem section.
 * usage: node fs_check.js --url http://127.0.0.1:PORT/ --job ID --dev loopN [--token T] [--shots DIR] */
'use strict';
const L = require('./lib');

const a = L.args(process.argv);
const base = a.url.replace(/\/?$/, '/');

async function main() {
  const browser = await L.launch();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
  if (a.token) await ctx.addInitScript((t) => sessionStorage.setItem('fleettune.token', t), a.token);
  const page = await ctx.newPage();
  const w = L.watch(page);
  await page.goto(base + '#/job/' + a.job, { waitUntil: 'load' });
  await L.ready(page);
  await page.waitForSelector('#job-filesystem', { timeout: 10000 }).catch(() => {});
  const sec = page.locator('#job-filesystem');
  L.check('the job view has a Filesystem section', (await sec.count()) === 1);
  const text = (await sec.count()) ? await sec.innerText() : '';
  L.check('it names the type and device', text.includes('Filesystem (xfs on ' + a.dev + ')'), text.slice(0, 80));
  L.check('it shows the mkfs options asked', text.includes('-b size=4k -d su=64k,sw=7 -i size=1k -l version=2'));
  L.check('it shows the command mkfs ran', text.includes('mkfs.xfs -f -b size=4k -d su=64k,sw=7 -i size=1024 -l version=2 /dev/' + a.dev));
  L.check('it shows the mount options asked', text.includes('noatime,logbufs=8,logbsize=256k'));
  L.check('it shows what the mount shows', /rw,(nosuid,nodev,noexec,)?noatime · rw,.*logbsize=256k/.test(text));
  const fig = async (k) => page.evaluate((key) => {
    const rows = [...document.querySelectorAll('#job-filesystem tr')];
    const r = rows.find((tr) => tr.cells[0] && tr.cells[0].textContent === key);
    return r ? r.cells[1].textContent : null;
  }, k);
  L.check('figure inode_size_bytes 1024', (await fig('inode_size_bytes')) === '1024');
  L.check('figure sunit_blocks 16', (await fig('sunit_blocks')) === '16');
  L.check('figure swidth_blocks 112', (await fig('swidth_blocks')) === '112');
  L.check('figure log_size_bytes 67108864', (await fig('log_size_bytes')) === '67108864');
  const inParams = await page.evaluate(() => [...document.querySelectorAll('#job-params td')].some((td) => td.textContent.startsWith('fs.')));
  L.check('the fs.* entries are not repeated among the device parameters', !inParams);
  await L.shot(page, a.shots, 'fs-job');
  L.check('no script errors', w.errors.length === 0, w.errors.join('; '));
  await browser.close();
}

main().then(() => process.exit(L.done()), (e) => { L.notOk('fs check crashed', e.stack || e); process.exit(L.done()); });
