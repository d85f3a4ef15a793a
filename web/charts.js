/* charts.js -- shared by the agent's page (app.js) and the sweep report (report.js):
 * safe DOM building, number formatting, statistics helpers and the Chart.js chart builders.
 * A classic script (no modules) so the controller can inline it into one file:// report.
 * Everything user-provided goes through textContent or attributes, never innerHTML. */
(function (global) {
  'use strict';

  var FT = global.FT || (global.FT = {});

  /* el(tag, attrs, ...children): attrs keys are DOM properties or 'class', 'data-*', 'aria-*';
   * children are nodes, strings (inserted as text) or arrays of them; null is skipped. */
  FT.el = function (tag, attrs) {
    var node = document.createElement(tag);
    var k, v;
    if (attrs) {
      for (k in attrs) {
        if (!Object.prototype.hasOwnProperty.call(attrs, k)) continue;
        v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') node.className = v;
        else if (k.indexOf('data-') === 0 || k.indexOf('aria-') === 0 || k === 'for' || k === 'role')
          node.setAttribute(k, String(v));
        else if (k.indexOf('on') === 0 && typeof v === 'function')
          node.addEventListener(k.slice(2), v);
        else node[k] = v;
      }
    }
    for (var i = 2; i < arguments.length; i++) FT.append(node, arguments[i]);
    return node;
  };

  FT.append = function (node, child) {
    if (child === null || child === undefined || child === false) return node;
    if (Array.isArray(child)) {
      child.forEach(function (c) { FT.append(node, c); });
    } else if (typeof child === 'object' && child.nodeType) {
      node.appendChild(child);
    } else {
      node.appendChild(document.createTextNode(String(child)));
    }
    return node;
  };

  FT.clear = function (node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  };

  /* table(headers, rows, cls): rows are arrays of cells (string/node/array); a cell given as
   * {v: content, cls: 'num'} gets a class. */
  FT.table = function (headers, rows, cls) {
    var thead = FT.el('thead', null, FT.el('tr', null, headers.map(function (h) {
      return h && typeof h === 'object' && !h.nodeType ? FT.el('th', { class: h.cls || null }, h.v) : FT.el('th', null, h);
    })));
    var tbody = FT.el('tbody');
    rows.forEach(function (r) {
      var tr = FT.el('tr', r.attrs || null);
      (r.cells || r).forEach(function (c) {
        if (c && typeof c === 'object' && !c.nodeType && !Array.isArray(c))
          tr.appendChild(FT.el('td', { class: c.cls || null }, c.v));
        else tr.appendChild(FT.el('td', null, c));
      });
      tbody.appendChild(tr);
    });
    return FT.el('table', { class: cls || 'grid' }, thead, tbody);
  };

  FT.isNum = function (x) { return typeof x === 'number' && isFinite(x); };

  /* fmt(x): a metric value with 3-4 significant digits, '–' for missing. */
  FT.fmt = function (x, digits) {
    if (!FT.isNum(x)) return x === null || x === undefined ? '–' : String(x);
    var a = Math.abs(x);
    var d = digits !== undefined ? digits : a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : a === 0 ? 0 : 3;
    return x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0, useGrouping: a >= 10000 });
  };

  FT.fmtPct = function (x) {
    if (!FT.isNum(x)) return '–';
    var s = (x * 100).toFixed(1);
    return (x > 0 ? '+' : x < 0 ? '−' : '') + s.replace('-', '') + ' %';
  };

  /* fmtTime('2026-11-29T23:10:05Z') -> '2026-11-29 23:10:05Z' (kept in UTC, as the API sends it). */
  FT.fmtTime = function (iso) {
    if (!iso) return '–';
    var m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(String(iso));
    return m ? m[1] + ' ' + m[2] + (m[3] === 'Z' || !m[3] ? 'Z' : m[3]) : String(iso);
  };

  /* unit of a metric from its name suffix: write.bw_mib -> MiB/s. */
  FT.unit = function (metric) {
    var m = String(metric || '');
    if (/bw_mib$/.test(m)) return 'MiB/s';
    if (/iops$/.test(m)) return 'IOPS';
    if (/_us$/.test(m)) return 'µs';
    if (/_ms$/.test(m)) return 'ms';
    if (/_pct$/.test(m)) return '%';
    if (/_per_s$/.test(m)) return '/s';
    return '';
  };

  FT.mean = function (xs) {
    if (!xs.length) return NaN;
    var s = 0;
    xs.forEach(function (x) { s += x; });
    return s / xs.length;
  };

  FT.stdev = function (xs) {
    if (xs.length < 2) return 0;
    var m = FT.mean(xs), s = 0;
    xs.forEach(function (x) { s += (x - m) * (x - m); });
    return Math.sqrt(s / (xs.length - 1));
  };

  /* Natural order for parameter values: numbers numerically, then strings. */
  FT.cmpValues = function (a, b) {
    var na = Number(a), nb = Number(b);
    var an = a !== '' && isFinite(na), bn = b !== '' && isFinite(nb);
    if (an && bn) return na - nb;
    if (an) return -1;
    if (bn) return 1;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  };

  FT.valueText = function (v) {
    if (v === null || v === undefined) return '–';
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  };

  /* ---- charts (Chart.js 4, web/vendor/chart.umd.js) ---- */

  FT.palette = ['#2f6fb3', '#d9822b', '#3a9b5c', '#b8443e', '#7d5ba6', '#8c6d31', '#c2559b', '#5b8c99'];

  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }
  FT.alpha = alpha;

  function baseOptions(yTitle) {
    return {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { display: true, position: 'bottom' } },
      scales: {
        x: { grid: { display: false } },
        y: { beginAtZero: true, title: { display: !!yTitle, text: yTitle || '' } }
      }
    };
  }

  function yTitle(metric) {
    var u = FT.unit(metric);
    return metric + (u ? ' (' + u + ')' : '');
  }

  /* A chart on canvas; destroys a chart already bound to it first. */
  FT.chart = function (canvas, config) {
    if (typeof global.Chart !== 'function') {
      canvas.replaceWith(FT.el('p', { class: 'error' }, 'Chart.js did not load (web/vendor/chart.umd.js).'));
      return null;
    }
    var old = global.Chart.getChart(canvas);
    if (old) old.destroy();
    return new global.Chart(canvas, config);
  };

  /* passBars(canvas, metric, passes[{loop, value}], mean): one bar per pass, the mean as a line. */
  FT.passBars = function (canvas, metric, passes, mean) {
    var labels = passes.map(function (p) { return 'pass ' + p.loop; });
    var datasets = [{
      type: 'bar', label: metric, order: 2,
      data: passes.map(function (p) { return FT.isNum(p.value) ? p.value : null; }),
      backgroundColor: alpha(FT.palette[0], 0.75), borderColor: FT.palette[0], borderWidth: 1
    }];
    if (FT.isNum(mean)) {
      datasets.push({
        type: 'line', label: 'mean ' + FT.fmt(mean), order: 1,
        data: passes.map(function () { return mean; }),
        borderColor: FT.palette[1], borderDash: [6, 4], borderWidth: 2, pointRadius: 0, fill: false
      });
    }
    var opts = baseOptions(yTitle(metric));
    return FT.chart(canvas, { type: 'bar', data: { labels: labels, datasets: datasets }, options: opts });
  };

  /* groupDots(canvas, metric, groups[{label, mean, points:[y...]}], xTitle): one group per
   * parameter value, the mean as a bar and each pass as a dot on top. */
  FT.groupDots = function (canvas, metric, groups, xTitle) {
    var labels = groups.map(function (g) { return g.label; });
    var dots = [];
    groups.forEach(function (g) {
      g.points.forEach(function (y) { dots.push({ x: g.label, y: y }); });
    });
    var opts = baseOptions(yTitle(metric));
    opts.scales.x.title = { display: !!xTitle, text: xTitle || '' };
    opts.plugins.legend.labels = { usePointStyle: true };
    return FT.chart(canvas, {
      type: 'bar',
      data: {
        labels: labels,
        datasets: [
          { type: 'scatter', label: 'passes', order: 1, data: dots, pointRadius: 4, pointHoverRadius: 6,
            backgroundColor: alpha(FT.palette[3], 0.8), borderColor: '#ffffff', borderWidth: 1 },
          { type: 'bar', label: 'mean', order: 2, data: groups.map(function (g) { return g.mean; }),
            backgroundColor: alpha(FT.palette[0], 0.55), borderColor: FT.palette[0], borderWidth: 1 }
        ]
      },
      options: opts
    });
  };

  var VERDICT_COLOURS = { gain: '#3a9b5c', loss: '#b8443e', equivalent: '#8a8f98', inconclusive: '#d9a22b',
    heterogeneous: '#7d5ba6', cohorts: '#7d5ba6', baseline: '#c8ccd2', none: '#c8ccd2' };

  /* deltaRows(canvas, xTitle, rows[{label, delta, lo, hi, level, verdict, text, nodes:[{delta,
   * lo, hi}|null]}], nodeNames): what a sweep judged: per row its fleet Δ % as a bar from 0
   * (coloured by verdict), the interval its verdict was taken on as a black whisker (labelled
   * with its level in the legend and the tooltip), and each node's own Δ as a thin mark with its
   * 95 % interval. The y axis is Δ %, 0 drawn. chart.ftRows keeps the rows for the tests. */
  FT.deltaRows = function (canvas, xTitle, rows, nodeNames) {
    var labels = rows.map(function (r) { return r.label; });
    var levels = {};
    rows.forEach(function (r) { if (FT.isNum(r.level)) levels[FT.fmt(r.level, r.level % 1 ? 2 : 0)] = 1; });
    var levelText = Object.keys(levels).join(' / ') || '95';
    var datasets = [{
      type: 'bar', label: 'fleet Δ (bar, coloured by its verdict)', stack: 'fleet', order: 3,
      data: rows.map(function (r) { return FT.isNum(r.delta) ? r.delta : null; }),
      backgroundColor: rows.map(function (r) { return alpha(VERDICT_COLOURS[r.verdict] || '#c8ccd2', 0.75); }),
      borderColor: rows.map(function (r) { return VERDICT_COLOURS[r.verdict] || '#c8ccd2'; }), borderWidth: 1
    }, {
      type: 'bar', label: 'deciding interval of the fleet Δ (' + levelText + ' %)', stack: 'fleet', order: 2,
      data: rows.map(function (r) { return FT.isNum(r.lo) && FT.isNum(r.hi) ? [r.lo, r.hi] : null; }),
      backgroundColor: '#222222', borderColor: '#222222', barPercentage: 0.06, maxBarThickness: 3
    }];
    /* The nodes' marks are drawn by nodeMarks beside the fleet bar; these datasets (no data)
     * give each node its legend entry. */
    (nodeNames || []).forEach(function (name, k) {
      var c = FT.palette[k % FT.palette.length];
      datasets.push({ type: 'scatter', label: name + ' own Δ (tick) and 95 % interval', order: 0, data: [],
        ftNode: k, pointStyle: 'line', borderColor: c, backgroundColor: c, borderWidth: 2 });
    });
    var opts = baseOptions('Δ against the baseline (%)');
    opts.scales.x.title = { display: !!xTitle, text: xTitle || '' };
    opts.scales.y.stacked = false;
    /* The nodes' intervals are drawn by a plugin: keep them inside the scale. */
    var ext = [0];
    rows.forEach(function (r) {
      (r.nodes || []).forEach(function (n) { if (n) [n.lo, n.hi, n.delta].forEach(function (v) { if (FT.isNum(v)) ext.push(v); }); });
    });
    opts.scales.y.suggestedMin = Math.min.apply(null, ext);
    opts.scales.y.suggestedMax = Math.max.apply(null, ext);
    opts.scales.y.grid = { color: function (ctx) { return ctx.tick && ctx.tick.value === 0 ? '#222222' : 'rgba(0,0,0,0.08)'; } };
    opts.plugins.tooltip = { callbacks: { afterBody: function (items) {
      var r = rows[items[0].dataIndex];
      return r ? [r.text || '', FT.isNum(r.lo) ? 'decided on the ' + FT.fmt(r.level) + ' % interval [' + FT.fmt(r.lo) + ', ' + FT.fmt(r.hi) + ']' : ''] : [];
    } } };
    var chart = FT.chart(canvas, { type: 'bar', data: { labels: labels, datasets: datasets }, options: opts,
      plugins: [nodeMarks] });
    if (chart) chart.ftRows = rows;
    return chart;
  };

  /* Each node's own Δ of a row as a short tick with its 95 % interval as a thin line, side by
   * side to the right of the row's fleet bar, in the node's colour (deltaRows). The marks drawn
   * are kept on the chart as chart.ftMarks [{row, node, x, y}] for the tests. */
  var nodeMarks = {
    id: 'ftNodeMarks',
    afterDatasetsDraw: function (chart) {
      var rows = chart.ftRows || [], y = chart.scales.y, ctx = chart.ctx, area = chart.chartArea;
      var bars = chart.getDatasetMeta(0).data || [];
      chart.ftMarks = [];
      rows.forEach(function (r, j) {
        var bar = bars[j];
        if (!bar || !r.nodes) return;
        var half = (bar.width || 20) / 2;
        r.nodes.forEach(function (n, k) {
          if (!n || !FT.isNum(n.delta)) return;
          var ds = chart.data.datasets.filter(function (d) { return d.ftNode === k; })[0];
          var i = chart.data.datasets.indexOf(ds);
          if (i >= 0 && !chart.isDatasetVisible(i)) return;
          var x = bar.x + half + 8 + k * 7;
          ctx.save();
          ctx.beginPath();
          ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
          ctx.clip();
          ctx.strokeStyle = ds ? ds.borderColor : '#555555';
          if (FT.isNum(n.lo) && FT.isNum(n.hi)) {
            ctx.globalAlpha = 0.55;
            ctx.lineWidth = 1.5;
            ctx.beginPath();
            ctx.moveTo(x, y.getPixelForValue(n.lo));
            ctx.lineTo(x, y.getPixelForValue(n.hi));
            ctx.stroke();
          }
          ctx.globalAlpha = 1;
          ctx.lineWidth = 2.5;
          ctx.beginPath();
          ctx.moveTo(x - 4, y.getPixelForValue(n.delta));
          ctx.lineTo(x + 4, y.getPixelForValue(n.delta));
          ctx.stroke();
          ctx.restore();
          chart.ftMarks.push({ row: j, node: k, x: x, y: n.delta });
        });
      });
    }
  };

  /* runsChart(canvas, labels, effects[%|null], baselines[value|null], bestTexts, metric, unit):
   * a plan's completed runs in time order: the confirmed configuration's effect (left axis, %,
   * 0 drawn) and the original baseline's figure (right axis, from 0), one point per run. */
  FT.runsChart = function (canvas, labels, effects, baselines, bestTexts, metric, unit) {
    var opts = baseOptions('confirmed configuration\'s effect (%)');
    /* Both axes from 0: a 0.1 % wobble of the baseline must not fill the chart. */
    opts.scales.y.beginAtZero = true;
    opts.scales.y2 = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
      title: { display: true, text: 'baseline ' + metric + (unit ? ' (' + unit + ')' : '') } };
    opts.plugins.tooltip = { callbacks: { afterLabel: function (item) {
      return item.datasetIndex === 0 ? 'best: ' + bestTexts[item.dataIndex] : '';
    } } };
    return FT.chart(canvas, {
      type: 'line',
      data: {
        labels: labels,
        datasets: [
          { label: 'confirmed configuration\'s effect (%)', yAxisID: 'y', data: effects, spanGaps: false,
            borderColor: FT.palette[2], backgroundColor: alpha(FT.palette[2], 0.8), pointRadius: 4, borderWidth: 2 },
          { label: 'baseline ' + metric, yAxisID: 'y2', data: baselines, spanGaps: false,
            borderColor: FT.palette[0], backgroundColor: alpha(FT.palette[0], 0.8), borderDash: [6, 4], pointRadius: 3, borderWidth: 2 }
        ]
      },
      options: opts
    });
  };
})(typeof window !== 'undefined' ? window : this);
