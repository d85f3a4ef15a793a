/* lib.js -- shared helpers for the browser checks: launch Debian's Chromium through
 * playwright-core, TAP-ish reporting, screenshots. */
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.FT_CHROMIUM || '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--disable-dev-shm-usage'];

let passes = 0, fails = 0;

function ok(desc) { passes++; console.log('ok - ' + desc); }
function notOk(desc, why) { fails++; console.log('not ok - ' + desc + (why ? ': ' + why : '')); }
function check(desc, cond, why) { if (cond) ok(desc); else notOk(desc, why); return !!cond; }
function log(msg) { console.log('# ' + msg); }

/* done(): prints the closing line and returns the exit code. */
function done() {
  console.log(passes + ' passed, ' + fails + ' failed');
  return fails ? 1 : 0;
}

/* launch(): headless Chromium with a fresh profile (playwright makes a temp user-data-dir). */
async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60000 });
}

/* watch(page): collects console errors, page errors, CSP violations and dialogs. */
function watch(page) {
  const w = { errors: [], dialogs: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') w.errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => w.errors.push('pageerror: ' + e.message));
  page.on('dialog', (d) => { w.dialogs.push(d.type() + ': ' + d.message()); d.dismiss().catch(() => {}); });
  page.on('request', (r) => w.requests.push(r.url()));
  return w;
}

async function shot(page, dir, name) {
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name + '.png');
  await page.screenshot({ path: file, fullPage: true });
  log('screenshot ' + file);
}

/* ready(page): waits until the current view finished rendering (main[data-state]). */
async function ready(page, timeout) {
  await page.waitForFunction(() => {
    const m = document.getElementById('main');
    return m && (m.dataset.state === 'ready' || m.dataset.state === 'error');
  }, null, { timeout: timeout || 15000 });
  return page.evaluate(() => document.getElementById('main').dataset.state);
}

/* navigate(page, action): runs action (a click, a hash change...) that routes the page to a
 * view, and waits until that new view finished rendering (main[data-gen] moved on). */
async function navigate(page, action, timeout) {
  const gen = await page.evaluate(() => Number(document.getElementById('main').dataset.gen || 0));
  await action();
  await page.waitForFunction((g) => {
    const m = document.getElementById('main');
    return Number(m.dataset.gen || 0) > g && (m.dataset.state === 'ready' || m.dataset.state === 'error');
  }, gen, { timeout: timeout || 15000 });
  return page.evaluate(() => document.getElementById('main').dataset.state);
}

/* offlineContext(browser): a context with the network off in which every request but file:,
 * data: and blob: is refused and kept in the returned outside[] (a report or site must not
 * need any). */
async function offlineContext(browser) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const outside = [];
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://') || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    outside.push(u);
    return route.abort();
  });
  return { ctx, outside };
}

function args(argv) {
  const a = {};
  for (let i = 2; i < argv.length; i++) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
    if (m) a[m[1]] = m[2] !== undefined ? m[2] : (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : '1');
  }
  return a;
}

module.exports = { launch, watch, shot, ready, navigate, offlineContext, check, ok, notOk, log, done, args, FLAGS, CHROMIUM };
