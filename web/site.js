/* site.js -- renders the index page of `fleettune-ctl site DIR` (site.html) from the document
 * fleettune-ctl puts in <script id="site-data">:
 *   {"format": "fleettune-site", "format_version": 1, "generated_at": ISO, "db": PATH,
 *    "sweeps": [{"id", "name", "created_at", "finished_at", "status", "strategy", "metric",
 *                "unit", "goal", "nodes": [names], "points", "outcome" (sweep.h's code),
 *                "decision": the sweep document's (version 4: state, params, delta_pct, summary…),
 *                "best": {"params": {..}, "delta_pct", "verdict"} | null (confirmed only), "best_line",
 *                "suite": {"workloads" (count), "rule", "primary" (or null)} | null (a plain sweep),
 *                "baseline_mean" (the original baseline's mean over its nodes, or null),
 *                "href" (its report, beside index.html), "plan" (key into plans)}],  newest first
 *    "plans": [{"key", "name", "metric", "unit", "runs": [sweep ids, oldest first]}]}
 *                only the plans run more than once
 * Each plan that completed more than once gets a chart of its completed runs first (the
 * confirmed configuration's effect, %, 0 when the baseline was kept, and the baseline's figure,
 * both axes from 0; the first few drawn at once, the others as they scroll into view); runs that
 * did not complete (interrupted, aborted, failed, abandoned, running) are named beside it and
 * never plotted. Then the index table lists every sweep, those that did not complete marked,
 * a suite's metric cell saying so (its workload count and rule).
 * Works from file:// with no network; all data goes into the page as text. */
(function () {
  'use strict';

  var E = FT.el;

  function pct(x) {
    if (!FT.isNum(x)) return '';
    return (x > 0 ? '+' : x < 0 ? '−' : '') + Math.abs(x).toFixed(1) + ' %';
  }

  function cfgText(cfg) {
    return Object.keys(cfg || {}).map(function (k) { return k + '=' + FT.valueText(cfg[k]); }).join(' ');
  }

  function finished(s) { return s.status === 'completed'; }

  /* The best cell: the sweep's decision (version 4) — a confirmed configuration and its
   * effect, a suggestion that was not confirmed, or what was kept and why. */
  function bestText(s) {
    var d = s.decision;
    if (d && d.state === 'confirmed') return cfgText(d.params) + ' ' + pct(d.delta_pct);
    if (d && d.state === 'unconfirmed') return 'baseline kept (' + cfgText(d.params) + ' not confirmed)';
    if (!d && s.best) return cfgText(s.best.params) + ' ' + pct(s.best.delta_pct);
    if (!finished(s) && s.status) return 'none (' + s.status + ')';
    return s.outcome === 'baseline' ? 'baseline kept' : s.outcome === 'pending' ? '–' : 'none';
  }
  /* A completed run's effect for the runs chart: the confirmed effect, else 0 (the baseline
   * was kept); null for no figure. */
  function runEffect(s) {
    var d = s.decision;
    if (d) return d.state === 'confirmed' ? d.delta_pct : s.outcome === 'baseline' ? 0 : null;
    return s.best ? s.best.delta_pct : s.outcome === 'baseline' ? 0 : null;
  }

  /* The metric cell: a suite's workload count and rule (its decision is the rule's), else the
   * sweep's metric. */
  function metricText(s) {
    var su = s.suite;
    if (!su) return s.metric || '';
    return 'suite: ' + su.workloads + ' workload' + (su.workloads === 1 ? '' : 's') + ', rule ' +
      (su.rule || '') + (su.primary ? ' (' + su.primary + ')' : '');
  }

  var OUTCOME_WORDS = {
    best: 'a configuration gained', baseline: 'nothing beat the baseline',
    baseline_failed: 'no best: the baseline failed', no_figures: 'no best: no configuration has a figure',
    pending: 'not analysed'
  };

  function index(doc) {
    var sweeps = doc.sweeps || [];
    var rows = sweeps.map(function (s) {
      return {
        attrs: { 'data-id': s.id, 'data-decision': s.decision ? s.decision.state : '',
          'data-suite': s.suite ? s.suite.workloads : null,
          class: 'status-' + String(s.status).replace(/[^a-z]/g, '') + (finished(s) ? '' : ' unfinished') },
        cells: [
          E('a', { href: s.href, class: 'sweep-link' }, '#' + s.id),
          E('a', { href: s.href }, s.name || ''),
          { v: FT.fmtTime(s.created_at), cls: 'time' },
          { v: (s.nodes || []).length + (s.nodes && s.nodes.length ? ': ' + s.nodes.slice(0, 4).join(', ') +
            (s.nodes.length > 4 ? ', …' : '') : ''), cls: 'nodes' },
          s.strategy || '',
          { v: metricText(s), cls: s.suite ? 'opt suite-mark' : 'opt' },
          { v: bestText(s), cls: 'best-cell' },
          E('span', { class: 'state state-' + (s.status === 'completed' ? 'succeeded' : s.status === 'running' ? 'running' : 'failed') },
            s.status || ''),
          !finished(s) ? { v: 'did not finish: only what was measured; not in the run charts', cls: 'outcome outcome-unfinished' }
            : s.decision && s.decision.state === 'unconfirmed' ? { v: 'a suggestion the final confirmation did not confirm', cls: 'outcome outcome-unconfirmed' }
            : { v: OUTCOME_WORDS[s.outcome] || s.outcome || '', cls: 'outcome outcome-' + s.outcome }
        ]
      };
    });
    var t = FT.table(['sweep', 'name', 'started (UTC)', 'nodes', 'strategy', 'metric', 'best', 'status', 'outcome'], rows, 'grid site-index');
    t.id = 'site-index';
    return t;
  }

  /* Charts drawn right after the index is painted: the first screen's; the others are drawn as
   * they scroll into view (500 sweeps of 50 plans make 50 charts nobody sees at once). */
  var CHARTS_AT_ONCE = 4;

  /* One card per plan run more than once: x = its runs in time order. Returns the section and
   * a draw function per card. */
  function planCharts(doc) {
    var plans = doc.plans || [];
    if (!plans.length) return null;
    var byId = {};
    (doc.sweeps || []).forEach(function (s) { byId[s.id] = s; });
    var grid = E('div', { class: 'plan-grid' });
    var wrap = E('section', { id: 'plan-charts' }, E('h2', null, 'Plans run more than once'),
      E('p', { class: 'hint' }, 'Per completed run: the confirmed configuration\'s effect against the baseline (0 when the ' +
        'baseline was kept: nothing confirmed) and the original baseline\'s figure (its mean over the nodes). Both axes ' +
        'start at 0. A baseline that moves between runs is the machine, not a setting. Only completed runs are ' +
        'plotted: an interrupted or abandoned run measured only part of its plan.'), grid);
    var left = [];
    var draws = [];
    plans.forEach(function (p, i) {
      var all = (p.runs || []).map(function (id) { return byId[id]; }).filter(Boolean);
      var runs = all.filter(finished);
      var out = all.filter(function (s) { return !finished(s); });
      out.forEach(function (s) { left.push('#' + s.id + ' (' + s.status + ')'); });
      if (runs.length < 2) return; /* not run to the end more than once */
      var canvas = E('canvas', { class: 'plan-chart', id: 'plan-chart-' + i, 'data-plan': p.key,
        'data-runs': runs.map(function (s) { return s.id; }).join(','), 'aria-label': p.name + ' over time' });
      var card = E('div', { class: 'plan-run' },
        E('h3', null, '“' + (p.name || '') + '”, ' + runs.length + ' completed runs (' + (p.metric || '') + ')'),
        E('div', { class: 'chart-box' }, canvas),
        out.length ? E('p', { class: 'hint left-out' }, 'Not plotted (did not finish): ' +
          out.map(function (s) { return '#' + s.id + ' ' + s.status; }).join(', ')) : null);
      grid.appendChild(card);
      var drawn = false;
      draws.push({
        card: card,
        draw: function () {
          if (drawn) return;
          drawn = true;
          FT.runsChart(canvas, runs.map(function (s) { return '#' + s.id + ' ' + FT.fmtTime(s.created_at).slice(0, 16); }),
            runs.map(runEffect),
            runs.map(function (s) { return FT.isNum(s.baseline_mean) ? s.baseline_mean : null; }),
            runs.map(bestText), p.metric, p.unit || FT.unit(p.metric));
        }
      });
    });
    if (!draws.length) return null;
    return { el: wrap, draws: draws };
  }

  /* Draw the first screen's charts once the index has been painted (marks "ft-site-painted",
   * then "ft-site-charts"), the rest when they come near the screen. */
  function drawCharts(draws) {
    var first = function () {
      /* A timer set in an animation frame runs after that frame is painted. */
      if (window.performance && performance.mark) performance.mark('ft-site-painted');
      draws.slice(0, CHARTS_AT_ONCE).forEach(function (d) { d.draw(); });
      if (window.performance && performance.mark) performance.mark('ft-site-charts');
    };
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(function () { setTimeout(first, 0); });
    else first();
    var rest = draws.slice(CHARTS_AT_ONCE);
    if (!rest.length) return;
    if (typeof IntersectionObserver !== 'function') {
      rest.forEach(function (d) { d.draw(); });
      return;
    }
    var io = new IntersectionObserver(function (entries) {
      entries.forEach(function (en) {
        if (!en.isIntersecting) return;
        io.unobserve(en.target);
        rest.filter(function (d) { return d.card === en.target; }).forEach(function (d) { d.draw(); });
      });
    }, { rootMargin: '300px' });
    rest.forEach(function (d) { io.observe(d.card); });
  }

  function render(doc) {
    var root = FT.clear(document.getElementById('site'));
    var n = (doc.sweeps || []).length;
    document.title = 'fleettune · ' + n + ' sweeps';
    root.appendChild(E('header', null, E('h1', { id: 'site-title' }, 'fleettune sweeps'),
      E('p', { class: 'meta' }, n + ' stored sweep' + (n === 1 ? '' : 's') + ' · ' + (doc.db || '') +
        ' · written ' + FT.fmtTime(doc.generated_at))));
    var charts = planCharts(doc);
    if (charts) root.appendChild(charts.el);
    root.appendChild(E('h2', null, 'Every sweep, newest first'));
    root.appendChild(n ? index(doc) : E('p', { class: 'muted' }, 'No sweep is stored in this database yet.'));
    /* Charts are made once their canvases are in the page (Chart.js sizes them from it). */
    if (charts) drawCharts(charts.draws);
    root.setAttribute('data-state', 'ready');
    if (window.performance && performance.mark) performance.mark('ft-site-ready');
  }

  function start() {
    var root = document.getElementById('site');
    var doc;
    try {
      doc = JSON.parse(document.getElementById('site-data').textContent);
    } catch (e) {
      root.appendChild(E('p', { class: 'error' }, 'This page holds no site data (' + e.message + '). Make it with fleettune-ctl site DIR.'));
      root.setAttribute('data-state', 'error');
      return;
    }
    try {
      render(doc);
    } catch (e) {
      root.appendChild(E('p', { class: 'error' }, 'cannot render the index: ' + e.message));
      root.setAttribute('data-state', 'error');
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
