/* report.js -- renders the controller's sweep report (report.html) from the sweep document that
 * `fleettune-ctl report ID --html FILE` puts in <script id="sweep-data"> (the JSON of
 * `fleettune-ctl show ID --format json`, schema/sweep.schema.json): the sweep table with
 * verdicts in fleettune-ctl's groups (axis by axis, the race, the final confirmation; repeated
 * configurations marked), one chart per axis of what was judged (each row's paired fleet Δ with
 * the interval its verdict was taken on, each node's own Δ as thin marks), the banner of the
 * sweep's decision, the noise line, the warnings and the plan.
 * Verdicts are read as codes (gain, loss, equivalent, inconclusive, heterogeneous, cohorts: a row
 * whose cohorts' effects differ, its verdict_text giving each cohort's own); the words
 * shown are fleettune-ctl's (verdict_text). Version-1 documents (English verdicts) still render;
 * version 3's passes are objects {value, round, started_at} and its drift lines are shown.
 * Works from file:// with no network; all data goes into the page as text. */
(function () {
  'use strict';

  var E = FT.el;

  /* A node's figures: version 3 passes are {value, round, started_at}, older ones numbers. */
  function passValues(n) {
    return (n.passes || []).map(function (v) { return v !== null && typeof v === 'object' ? v.value : v; })
      .filter(FT.isNum);
  }

  /* A row's decision code: version 2 documents carry it; a version-1 document carried words,
   * which this table turns into the codes. */
  var V1_CODES = {
    'significant gain': 'gain', 'significant loss': 'loss', 'no real difference': 'equivalent',
    inconclusive: 'inconclusive', 'nodes disagree': 'heterogeneous'
  };
  function verdictCode(doc, p) {
    if (!p.verdict) return '';
    return doc.format_version === 1 ? V1_CODES[p.verdict] || 'inconclusive' : p.verdict;
  }
  /* The verdict cell's words: fleettune-ctl wrote them (verdict_text; a version-1 verdict was
   * its own words). */
  function verdictText(doc, p) {
    if (doc.format_version === 1) return (p.verdict || '') + (p.role === 'final' ? ' (final)' : '');
    return p.verdict_text || '';
  }
  var VERDICT_CLASS = {
    gain: 'verdict-gain', loss: 'verdict-loss', equivalent: 'verdict-none',
    heterogeneous: 'verdict-disagree', cohorts: 'verdict-disagree', inconclusive: 'verdict-unclear'
  };
  function verdictClass(code) {
    return 'verdict ' + (VERDICT_CLASS[code] || 'verdict-unclear');
  }

  function pct(x) {
    if (!FT.isNum(x)) return '';
    return (x > 0 ? '+' : x < 0 ? '−' : '') + Math.abs(x).toFixed(1);
  }

  function deltaText(o) {
    if (!FT.isNum(o.delta_pct)) return '';
    var s = pct(o.delta_pct) + ' %';
    if (FT.isNum(o.ci_low_pct) && FT.isNum(o.ci_high_pct)) s += ' [' + pct(o.ci_low_pct) + ', ' + pct(o.ci_high_pct) + ']';
    return s;
  }

  /* The text of a configuration {name: value} as "a=1 b=x". */
  function cfgText(cfg) {
    return Object.keys(cfg || {}).map(function (k) { return k + '=' + FT.valueText(cfg[k]); }).join(' ');
  }

  function sameValues(a, b, keys) {
    return keys.every(function (k) { return FT.valueText((a || {})[k]) === FT.valueText((b || {})[k]); });
  }

  /* Adaptive loops: each point ran between loops and loops_max loops. */
  function adaptive(doc) {
    return FT.isNum(doc.loops_max) && doc.loops_max > doc.loops;
  }

  function header(doc) {
    var bits = [
      'metric ' + doc.metric + (doc.unit ? ' (' + doc.unit + ')' : '') + ', ' + (doc.goal || 'maximize'),
      (doc.loops || '?') + (adaptive(doc) ? '–' + doc.loops_max : '') + ' loops' +
        (FT.isNum(doc.runtime_s) ? ' × ' + doc.runtime_s + ' s' : ''),
      (doc.nodes || []).length + ' nodes',
      doc.strategy || '',
      'min effect ' + (FT.isNum(doc.min_effect_pct) ? doc.min_effect_pct : 5) + ' %',
      doc.engine || ''
    ].filter(Boolean);
    return E('header', null,
      E('h1', { id: 'report-title' }, 'Sweep ' + (doc.id !== undefined ? doc.id + ' ' : '') + '“' + (doc.name || '') + '”',
        E('span', { class: 'state state-' + (doc.status === 'completed' ? 'succeeded' : 'failed') }, doc.status || '')),
      E('p', { class: 'meta' }, bits.join(' · ')),
      E('p', { class: 'meta' }, 'Nodes: ' + (doc.nodes || []).map(function (n) {
        return n.name + ' (' + n.device + (n.dropped ? ', dropped' : '') + ')';
      }).join(', ') + ' · started ' + FT.fmtTime(doc.created_at) + (doc.finished_at ? ' · finished ' + FT.fmtTime(doc.finished_at) : '')));
  }

  /* An adaptive point's race, e.g. "dropped after 3 loops (round 1), worse: −27.8 % [−30.1,
   * −25.4] vs point 4". */
  function raceText(r) {
    if (!r) return '';
    var s = (r.state === 'tentative' ? 'tentative (not shown better; the final confirmation decides)' : r.state) +
      (r.state === 'running' ? '' : ' after ' + r.loops + ' loops (round ' + r.round + ')');
    if (r.why) s += ', ' + r.why.replace(/_/g, ' ');
    if (r.vs !== null && r.vs !== undefined && FT.isNum(r.delta_pct)) {
      s += ': ' + pct(r.delta_pct) + ' %';
      if (FT.isNum(r.low_pct) && FT.isNum(r.high_pct)) s += ' [' + pct(r.low_pct) + ', ' + pct(r.high_pct) + ']';
      s += ' vs #' + (r.vs + 1);
    }
    return s;
  }

  /* The first earlier point with the same configuration as p, or null: a sequential sweep
   * runs the best configuration so far again as the next axis' baseline, and the chosen one
   * again in the final confirmation. */
  function earlierSame(doc, p) {
    var keys = Object.keys(p.params || {});
    var pts = doc.points || [];
    for (var i = 0; i < pts.length && pts[i].index < p.index; i++) {
      var q = pts[i];
      if (Object.keys(q.params || {}).length === keys.length && sameValues(q.params, p.params, keys)) return q;
    }
    return null;
  }

  /* What a row is, in words: "original baseline", "baseline of axis 2, re-run of #3", "final
   * confirmation: #6 re-run against the original baseline #1". */
  function rowRole(doc, p) {
    var again = earlierSame(doc, p);
    var rerun = again ? 're-run of #' + (again.index + 1) : '';
    if (p.role === 'final') {
      return 'final confirmation' + (again ? ': #' + (again.index + 1) + ' re-run' : '') + ' against the original baseline #' +
        ((FT.isNum(p.ref) ? p.ref : 0) + 1);
    }
    if (p.role === 'baseline') {
      if (doc.strategy === 'grid' || !FT.isNum(p.axis)) return 'baseline' + (rerun ? ', ' + rerun : '');
      if (p.index === 0) return 'original baseline';
      return 'baseline of axis ' + (p.axis + 1) + (rerun ? ', ' + rerun : '');
    }
    return rerun;
  }

  /* The groups of fleettune-ctl's table: a sequential or adaptive sweep has one per axis (in
   * point order) and one for the final confirmation; a grid sweep one table. */
  function tableGroups(doc) {
    var seq = doc.strategy !== 'grid';
    var out = [], cur = null;
    (doc.points || []).forEach(function (p) {
      var key = !seq ? 'grid' : p.role === 'final' || !FT.isNum(p.axis) ? 'final' : 'axis' + p.axis;
      if (!cur || cur.key !== key) {
        var title = null;
        if (key === 'final') title = 'final confirmation against the original baseline';
        else if (key !== 'grid') title = 'axis ' + (p.axis + 1) + ': ' + ((doc.axes[p.axis] || {}).params || []).join(', ');
        cur = { key: key, title: title, points: [] };
        out.push(cur);
      }
      cur.points.push(p);
    });
    return out;
  }

  function sweepTable(doc, points) {
    var unit = doc.unit || FT.unit(doc.metric);
    var cols = doc.columns || [];
    var nodes = doc.nodes || [];
    var head = ['#'].concat(cols).concat(nodes.map(function (n) {
      return { v: n.name + (unit ? ' (' + unit + ')' : ''), cls: 'num' };
    })).concat(adaptive(doc) ? [{ v: 'loops', cls: 'num' }] : [])
      .concat([{ v: 'Δ vs baseline [95 % CI]', cls: 'num' }, { v: 'node spread', cls: 'num' }, 'verdict', 'row']);
    var rows = points.map(function (p) {
      var cells = [{ v: '#' + (p.index + 1), cls: 'num point-no' }].concat(cols.map(function (c) {
        var t = p.display && p.display[c] !== undefined ? p.display[c] : FT.valueText((p.params || {})[c]);
        return { v: t, cls: /→/.test(t) ? 'adjusted' : null };
      }));
      (p.nodes || []).forEach(function (n) {
        /* One pass has no spread (never "± 0"); a node that did not finish says after how many
         * of the point's loops. */
        var np = passValues(n).length;
        var t = FT.isNum(n.mean) ? (np === 1 ? FT.fmt(n.mean) + ' (1 pass)' : FT.fmt(n.mean) + ' ± ' + FT.fmt(n.stdev)) : n.state && n.state !== 'ok' ? n.state : '–';
        if (FT.isNum(n.mean) && n.state && n.state !== 'ok') t += ' (' + n.state + ' after ' + np + ' of ' + (p.loops || '?') + ' loops)';
        if (!FT.isNum(n.mean) && n.error) t += ': ' + n.error;
        cells.push({ v: t, cls: 'num', title: n.error || null });
      });
      for (var k = (p.nodes || []).length; k < nodes.length; k++) cells.push({ v: '–', cls: 'num' });
      if (adaptive(doc)) cells.push({ v: String(p.loops || ''), cls: 'num' });
      cells.push({ v: p.role === 'baseline' ? 'baseline' : deltaText(p), cls: 'num' });
      cells.push({ v: FT.isNum(p.spread_pct) ? p.spread_pct.toFixed(1) + ' %' : '', cls: 'num' });
      var code = verdictCode(doc, p);
      cells.push(E('span', { class: verdictClass(code), 'data-verdict': code }, verdictText(doc, p)));
      cells.push({ v: rowRole(doc, p), cls: 'row-role' });
      return { attrs: { class: p.role === 'baseline' ? 'baseline' : null, 'data-point': p.index }, cells: cells };
    });
    return FT.table(head, rows, 'grid sweep');
  }

  /* The sweep as fleettune-ctl prints it: a table per group with its title, then the race
   * (adaptive) block. */
  function sweepTables(doc) {
    var wrap = E('section', { id: 'sweep-table' });
    tableGroups(doc).forEach(function (g) {
      var box = E('div', { class: 'sweep-group', 'data-group': g.key });
      if (g.title) box.appendChild(E('h3', { class: 'group-title' }, g.title));
      box.appendChild(sweepTable(doc, g.points));
      wrap.appendChild(box);
    });
    var raced = (doc.points || []).filter(function (p) { return p.race; });
    if (raced.length) {
      wrap.appendChild(E('div', { class: 'sweep-group race-block', 'data-group': 'race' },
        E('h3', { class: 'group-title' }, 'race (adaptive)'),
        E('ul', { class: 'race-lines' }, raced.map(function (p) {
          return E('li', { class: 'race race-' + p.race.state, 'data-point': p.index },
            '#' + (p.index + 1) + ' ' + cfgText(p.params) + ': ' + raceText(p.race));
        }))));
    }
    return wrap;
  }

  /* The points to chart for axis i, one per axis value: the candidate points of that axis (or,
   * in a grid, the points that differ from the baseline only on this axis), and the baseline
   * point for the value that equals the baseline. Returns {labels, points, base}. */
  function axisSeries(doc, i) {
    var axis = doc.axes[i];
    var names = axis.params || [];
    var pts = doc.points || [];
    var others = {};
    pts.forEach(function (p) { Object.keys(p.params || {}).forEach(function (k) { if (names.indexOf(k) < 0) others[k] = 1; }); });
    var otherKeys = Object.keys(others);
    var own = pts.filter(function (p) { return p.axis === i; });
    var base = null;
    if (own.length) {
      base = own.filter(function (p) { return p.role === 'baseline'; })[0] || null;
      if (!base) {
        var ref = own[0].ref;
        base = pts.filter(function (p) { return p.index === ref; })[0] || null;
      }
    } else {
      base = pts.filter(function (p) { return p.role === 'baseline'; })[0] || null;
      own = pts.filter(function (p) { return p.role !== 'final' && (!base || sameValues(p.params, base.params, otherKeys)); });
    }
    var labels = [], chosen = [];
    (axis.values || []).forEach(function (val) {
      labels.push(names.map(function (n) { return FT.valueText(val[n]); }).join(' / '));
      var p = own.filter(function (q) { return sameValues(q.params, val, names); })[0];
      if (!p && base && sameValues(base.params, val, names)) p = base;
      chosen.push(p || null);
    });
    return { labels: labels, points: chosen, base: base, title: names.join(' + ') };
  }

  /* A row's deciding interval: the one its verdict was taken on (version 4: fleet.decided_pct
   * with its level); older documents: the 95 % one. */
  function decidedInterval(p) {
    var f = p.fleet || {};
    if (f.decided_pct && FT.isNum(f.decided_pct[0]) && FT.isNum(f.decided_pct[1]))
      return { lo: f.decided_pct[0], hi: f.decided_pct[1], level: f.decided_level_pct };
    if (FT.isNum(p.ci_low_pct) && FT.isNum(p.ci_high_pct)) return { lo: p.ci_low_pct, hi: p.ci_high_pct, level: 95 };
    return null;
  }

  /* One chart per axis of what was judged: each value's row, its fleet Δ against the row's
   * baseline (the bar, from 0) with the interval its verdict was taken on (the whisker), and
   * each node's own Δ with its 95 % interval as thin marks. The value that is the axis'
   * baseline is the 0 line. */
  function axisCharts(doc) {
    var wrap = E('section', { id: 'axis-charts' }, E('h2', null, 'Per axis: what was judged'));
    var nodes = doc.nodes || [];
    wrap.appendChild(E('p', { class: 'hint' }, 'Each bar is a row\'s fleet Δ against its baseline (0); ' +
      'its black whisker is the interval its verdict was taken on (95 %, or the wider one of a look of the ' +
      'stopping rule, or the 90 % one for "no real difference"); each node\'s own Δ is a thin mark with its ' +
      '95 % interval. Bars are coloured by verdict.'));
    (doc.axes || []).forEach(function (axis, i) {
      var s = axisSeries(doc, i);
      var rows = s.points.map(function (p, j) {
        if (!p) return null;
        var isBase = s.base && p.index === s.base.index;
        var iv = isBase ? null : decidedInterval(p);
        return {
          label: s.labels[j] + (isBase ? ' (baseline)' : ''),
          base: isBase,
          delta: isBase ? 0 : FT.isNum(p.delta_pct) ? p.delta_pct : null,
          lo: iv ? iv.lo : null, hi: iv ? iv.hi : null, level: iv ? iv.level : null,
          verdict: isBase ? 'baseline' : verdictCode(doc, p) || 'none',
          text: isBase ? 'baseline' : verdictText(doc, p),
          nodes: nodes.map(function (n, k) {
            var pn = p.nodes && p.nodes[k];
            if (isBase || !pn || !FT.isNum(pn.delta_pct)) return null;
            return { delta: pn.delta_pct, lo: pn.ci_low_pct, hi: pn.ci_high_pct };
          })
        };
      });
      var canvas = E('canvas', { class: 'axis-chart', id: 'axis-chart-' + i, 'data-axis': s.title,
        'aria-label': 'Δ ' + doc.metric + ' by ' + s.title });
      wrap.appendChild(E('div', { class: 'axis' },
        E('h3', null, s.title + ' (' + s.labels.length + ' values): Δ ' + doc.metric + ' against the baseline'),
        E('div', { class: 'chart-box' }, canvas)));
      FT.deltaRows(canvas, s.title, rows.map(function (r, j) { return r || { label: s.labels[j] + ' (not run)', delta: null, nodes: [] }; }),
        nodes.map(function (n) { return n.name; }));
    });
    return wrap;
  }

  /* A suite (version 5): one chart per workload (each configuration's Δ of the workload's
   * metric against the baseline, the 0 line, coloured by the workload's verdict, with its 95 %
   * interval) and the matrix as a coloured grid (a row per configuration, a column per
   * workload, the mean and the rule's decision; a breached guardrail marked), and each
   * cohort's matrix when the cohorts' suite decisions differ. */
  var SUITE_CLASS = { gain: 'verdict-gain', vetoed: 'verdict-loss', loss: 'verdict-loss', no_gain: 'verdict-unclear' };
  /* A matrix (the fleet's or a cohort's rows) as a coloured grid, then a line per breached
   * guardrail: the nodes to append. */
  function matrixGrid(su, rows, id) {
    var head = E('tr', null, [E('th', null, 'configuration')].concat(su.workloads.map(function (w) {
      return E('th', { title: w.metric + ', ' + w.goal }, w.name);
    })).concat([E('th', null, 'mean'), E('th', null, 'decision')]));
    var body = rows.map(function (r) {
      var breached = {};
      (r.guardrails || []).forEach(function (g) { if (g.breached) breached[g.workload] = g; });
      function cell(c, name) {
        var g = name ? breached[name] : null;
        var star = c.verdict !== c.verdict_raw ? '*' : '';
        var cls = 'suite-cell ' + verdictClass(c.verdict) + (g ? ' suite-breach' : '');
        return E('td', { class: cls, 'data-verdict': c.verdict, title: g ? 'guardrail ' + (g.guardrail + 1) +
          ' breached: loss ' + pct(g.loss_pct) + ' %, up to ' + pct(g.bound_pct) + ' %' : '' },
          (deltaText(c) || '–') + ' ' + (c.verdict || '') + star + (g ? ' !' : ''));
      }
      return E('tr', { 'data-point': r.point }, [E('td', null, r.configuration)].concat(r.cells.map(function (c) {
        return cell(c, c.workload);
      })).concat([cell(r.mean, null), E('td', { class: 'suite-row verdict ' + (SUITE_CLASS[r.verdict] || 'verdict-unclear'),
        'data-verdict': r.verdict }, r.verdict.replace('_', ' '))]));
    });
    var out = [E('table', { class: 'suite-matrix', id: id }, [E('thead', null, head), E('tbody', null, body)])];
    rows.forEach(function (r) {
      (r.guardrails || []).forEach(function (g) {
        if (!g.breached) return;
        var gr = su.guardrails[g.guardrail] || {};
        out.push(E('p', { class: 'warning suite-breach-line' }, 'guardrail ' + (g.guardrail + 1) + ' (' + gr.metric +
          ' may lose at most ' + gr.max_loss_pct + ' %) breached by ' + r.configuration + ' on \'' + g.workload + '\': ' +
          (FT.isNum(g.loss_pct) ? 'loss ' + pct(g.loss_pct) + ' %, up to ' + pct(g.bound_pct) + ' %, ' +
            FT.fmt(g.over_pct, 1) + ' points over' : 'no figure')));
      });
    });
    return out;
  }
  function suiteSection(doc) {
    var su = doc.suite, rows = su.matrix || [];
    var wrap = E('section', { id: 'suite' }, E('h2', null, 'Suite: ' + su.workloads.length + ' workloads, rule ' + su.rule),
      E('p', { class: 'hint' }, 'Rule ' + su.rule + ': ' + su.rule_words + (su.primary ? ' (' + su.primary + ')' : '') +
        '. Each cell is the configuration\'s Δ on that workload against the baseline with its 95 % interval and verdict' +
        (su.correction === 'holm' ? ' (Holm-corrected within the configuration; * a claim the correction withdrew)' : '') +
        '; ! a guardrail is breached.'));
    matrixGrid(su, rows, 'suite-matrix').forEach(function (n) { wrap.appendChild(n); });
    /* The suite's decision splits by cohort: each cohort's own matrix (its rule judged on its
     * own figures where a workload's row splits by cohort) and its decision last. */
    if (su.cohorts_differ) (su.cohorts || []).forEach(function (co) {
      var c = (doc.cohorts || [])[co.cohort] || {}, name = (c.key || 'cohort ' + (co.cohort + 1)) +
        ' (' + (c.nodes || []).length + ' node' + ((c.nodes || []).length === 1 ? '' : 's') + ')';
      var box = E('div', { class: 'suite-cohort', id: 'suite-cohort-' + co.cohort, 'data-cohort': co.cohort },
        E('h3', null, 'matrix of cohort ' + name));
      matrixGrid(su, co.matrix || [], 'suite-matrix-cohort-' + co.cohort).forEach(function (n) { box.appendChild(n); });
      box.appendChild(E('p', { class: 'suite-cohort-decision ' + (co.decision && co.decision.state === 'confirmed' ?
        'verdict-gain' : 'verdict-unclear') }, 'decision of ' + name + ': ' + co.words));
      wrap.appendChild(box);
    });
    su.workloads.forEach(function (w, i) {
      var chartRows = [{ label: 'baseline', base: true, delta: 0, verdict: 'baseline', text: 'baseline', nodes: [] }]
        .concat(rows.map(function (r) {
          var c = r.cells[i];
          return { label: r.configuration, delta: FT.isNum(c.delta_pct) ? c.delta_pct : null, lo: c.ci_low_pct,
            hi: c.ci_high_pct, level: 95, verdict: c.verdict || 'none', text: c.verdict, nodes: [] };
        }));
      var canvas = E('canvas', { class: 'suite-chart', id: 'suite-chart-' + i, 'data-workload': w.name,
        'aria-label': 'Δ ' + w.metric + ' of ' + w.name });
      wrap.appendChild(E('div', { class: 'axis suite-workload' },
        E('h3', null, 'workload ' + (i + 1) + ': ' + w.name + ' (Δ ' + w.metric + ', ' +
          (w.goal === 'minimize' ? 'lower' : 'higher') + ' is better)'),
        E('div', { class: 'chart-box' }, canvas)));
      FT.deltaRows(canvas, 'configuration', chartRows, []);
    });
    return wrap;
  }

  /* The banner: what the sweep decided (its decision, version 4; older documents: best_line),
   * green only for a confirmed decision of a completed sweep; a sweep that did not complete
   * says so and what was measured. */
  function banner(doc) {
    var d = doc.decision || null;
    var state = d ? d.state : doc.best ? 'confirmed' : 'none';
    var done = !doc.status || doc.status === 'completed';
    var cls = 'best best-' + (done ? state : 'stopped');
    var box = E('div', { class: cls, id: 'best', 'data-decision': state, 'data-status': doc.status || '' });
    if (!done) {
      var ran = (doc.points || []).filter(function (p) {
        return (p.nodes || []).some(function (n) { return n.state === 'ok'; });
      }).length;
      box.appendChild(E('p', { class: 'stopped-note', id: 'stopped' }, 'This sweep was ' + doc.status +
        ': ' + ran + ' of ' + (doc.points || []).length + ' points finished on some node; ' +
        'what follows is only what was measured before it stopped.'));
    }
    var text = doc.best_line || (d && d.summary) ||
      (doc.best ? 'best: ' + cfgText(doc.best.params) + ' ' + pct(doc.best.delta_pct) + ' %'
        : 'best: the baseline (' + cfgText(doc.baseline) + '); nothing beat it.');
    box.appendChild(E('p', { class: 'best-line' }, text));
    return box;
  }

  function render(doc) {
    var root = FT.clear(document.getElementById('report'));
    document.title = 'fleettune sweep ' + (doc.id !== undefined ? doc.id : '') + ' · ' + (doc.name || '');
    root.appendChild(header(doc));
    root.appendChild(banner(doc));
    (doc.warnings || []).forEach(function (w) {
      root.appendChild(E('p', { class: 'warning' }, '⚠ ' + w));
    });
    root.appendChild(E('h2', null, 'Sweep'));
    root.appendChild(sweepTables(doc));
    if (doc.noise && doc.noise.text) root.appendChild(E('p', { class: 'noise', id: 'noise' }, 'noise: ' + doc.noise.text));
    /* Version 3: the drift and warm-up lines, and how the rows were judged (the words are
     * fleettune-ctl's). */
    var d = doc.drift || {};
    if (d.text) root.appendChild(E('p', { class: 'drift', id: 'drift' }, 'drift: ' + d.text));
    if (d.warmup_text) root.appendChild(E('p', { class: 'drift', id: 'warmup' }, 'warm-up: ' + d.warmup_text));
    if (d.rounds_text) root.appendChild(E('p', { class: 'drift', id: 'rounds' }, 'rounds: ' + d.rounds_text));
    var within = doc.format_version >= 3 && d.rounds;
    root.appendChild(E('p', { class: 'hint' }, 'Each node cell is the mean ± stdev of its passes. ' + (doc.format_version === 1
      ? 'Δ is the fleet mean against the row\'s baseline with its 95 % Welch confidence interval'
      : within
        ? 'Δ is the fleet effect against the row\'s baseline: each node\'s passes paired by round (the points of a round ran one after another), pooled across the nodes (random effects), with its 95 % interval'
        : 'Δ is the fleet effect against the row\'s baseline: each node\'s ratio of means, pooled across the nodes (random effects), with its 95 % interval') +
      '; a → marks a value the kernel adjusted.'));
    if (doc.suite) root.appendChild(suiteSection(doc));
    if ((doc.axes || []).length) root.appendChild(axisCharts(doc));
    root.appendChild(E('section', { id: 'plan' }, E('h2', null, 'Plan'),
      E('pre', { class: 'plan' }, JSON.stringify(doc.plan !== undefined && doc.plan !== null ? doc.plan : {
        baseline: doc.baseline, axes: doc.axes
      }, null, 2))));
    root.setAttribute('data-state', 'ready');
  }

  function start() {
    var root = document.getElementById('report');
    var el = document.getElementById('sweep-data');
    var doc = null;
    try {
      doc = JSON.parse(el ? el.textContent : '');
    } catch (e) {
      root.appendChild(E('p', { class: 'error' }, 'This report holds no sweep data (' + e.message + '). It is a template: make one with fleettune-ctl report ID --html FILE.'));
      root.setAttribute('data-state', 'error');
      return;
    }
    try {
      render(doc);
    } catch (e) {
      root.appendChild(E('p', { class: 'error' }, 'cannot render the sweep: ' + e.message));
      root.setAttribute('data-state', 'error');
    }
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
