/* app.js -- the agent's page: API client (token prompt on 401), hash router and the views
 * #/history, #/job/ID, #/compare and #/devices (with the profiles the agent keeps). Data from the API is only ever put in the page
 * as text (FT.el / textContent), never as HTML. */
(function () {
  'use strict';

  var E = FT.el;
  var TOKEN_KEY = 'fleettune.token';
  var API = 'api/v1/';
  var POLL_MS = 1000;
  var COMPARE_MAX_JOBS = 2000;
  var main = document.getElementById('main');

  /* ---------------- API client ---------------- */

  function ApiError(code, message, status) {
    this.code = code;
    this.message = message;
    this.status = status;
  }

  var tokenWaiters = null;

  /* askToken(msg): show the token form; resolves once the user submitted a token. Concurrent
   * 401s share one prompt. */
  function askToken(msg) {
    if (tokenWaiters) return new Promise(function (r) { tokenWaiters.push(r); });
    tokenWaiters = [];
    return new Promise(function (resolve) {
      tokenWaiters.push(resolve);
      var box = document.getElementById('auth');
      document.getElementById('auth-msg').textContent = msg;
      box.hidden = false;
      var input = document.getElementById('auth-token');
      input.value = '';
      input.focus();
    });
  }

  document.getElementById('auth-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var t = document.getElementById('auth-token').value.trim();
    if (!t) return;
    sessionStorage.setItem(TOKEN_KEY, t);
    document.getElementById('auth').hidden = true;
    var w = tokenWaiters || [];
    tokenWaiters = null;
    w.forEach(function (r) { r(); });
  });

  /* request(path, {text}): GET path under /api/v1/ with the token if we have one; on 401 ask for
   * the token and retry. Resolves with the parsed JSON (or text); rejects with ApiError. */
  function request(path, opts) {
    opts = opts || {};
    var tok = sessionStorage.getItem(TOKEN_KEY);
    var headers = { Accept: opts.text ? 'text/plain, application/json' : 'application/json' };
    if (tok) headers.Authorization = 'Bearer ' + tok;
    return fetch(API + path, { headers: headers, cache: 'no-store', credentials: 'same-origin' })
      .catch(function (e) {
        throw new ApiError('network', 'cannot reach the agent: ' + e.message, 0);
      })
      .then(function (res) {
        if (res.status === 401) {
          if (tok) sessionStorage.removeItem(TOKEN_KEY);
          return askToken(tok ? 'The agent refused that token (401). Enter it again.'
            : 'This agent needs its access token.').then(function () { return request(path, opts); });
        }
        if (!res.ok) {
          return res.text().then(function (body) {
            var code = 'http_' + res.status, msg = res.statusText || 'HTTP ' + res.status;
            try {
              var j = JSON.parse(body);
              if (j && j.error) { code = j.error.code || code; msg = j.error.message || msg; }
            } catch (e) { /* not JSON */ }
            throw new ApiError(code, msg, res.status);
          });
        }
        return opts.text ? res.text() : res.json();
      });
  }

  function qs(params) {
    var parts = [];
    Object.keys(params).forEach(function (k) {
      var v = params[k];
      if (v === undefined || v === null || v === '') return;
      parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(v));
    });
    return parts.length ? '?' + parts.join('&') : '';
  }

  /* "key=value" -> [key, value]; null when not of that form. */
  function splitKV(s) {
    s = (s || '').trim();
    var i = s.indexOf('=');
    if (i <= 0) return null;
    return [s.slice(0, i).trim(), s.slice(i + 1).trim()];
  }

  /* The /results query for a filter object {device, engine, label, param}. */
  function resultsQuery(f, limit, beforeId) {
    var q = { device: f.device, engine: f.engine, limit: limit, before_id: beforeId };
    var kv = splitKV(f.label);
    if (kv) q['label.' + kv[0]] = kv[1];
    kv = splitKV(f.param);
    if (kv) q['param.' + kv[0]] = kv[1];
    return 'results' + qs(q);
  }

  /* ---------------- router ---------------- */

  var gen = 0;          /* bumped on every navigation: stale async work checks it */
  var timers = [];

  function parseHash() {
    var h = location.hash.replace(/^#\/?/, '');
    var qi = h.indexOf('?');
    var path = qi >= 0 ? h.slice(0, qi) : h;
    var query = {};
    if (qi >= 0) {
      h.slice(qi + 1).split('&').forEach(function (p) {
        if (!p) return;
        var i = p.indexOf('=');
        var k = decodeURIComponent((i >= 0 ? p.slice(0, i) : p).replace(/\+/g, ' '));
        query[k] = i >= 0 ? decodeURIComponent(p.slice(i + 1).replace(/\+/g, ' ')) : '';
      });
    }
    var seg = path.split('/').filter(Boolean).map(decodeURIComponent);
    return { view: seg[0] || 'history', arg: seg[1], query: query };
  }

  function hashFor(view, arg, query) {
    return '#/' + view + (arg !== undefined ? '/' + encodeURIComponent(arg) : '') + qs(query || {});
  }

  function go(view, arg, query) {
    var h = hashFor(view, arg, query);
    if (location.hash === h) route();
    else location.hash = h;
  }

  var views = {};

  function route() {
    gen++;
    timers.forEach(clearTimeout);
    timers = [];
    var r = parseHash();
    var fn = views[r.view];
    document.querySelectorAll('header nav a').forEach(function (a) {
      a.classList.toggle('active', a.getAttribute('data-view') === (r.view === 'job' ? 'history' : r.view));
    });
    FT.clear(main);
    if (!fn) {
      main.appendChild(E('p', { class: 'error' }, 'No such view: ' + r.view));
      return;
    }
    main.setAttribute('data-view', r.view);
    main.setAttribute('data-state', 'loading');
    main.setAttribute('data-gen', String(gen));
    var my = gen;
    Promise.resolve()
      .then(function () { return fn(r, my); })
      .then(function () {
        if (my !== gen) return;
        main.setAttribute('data-state', 'ready');
        if (window.performance && performance.mark) performance.mark('ft-ready:' + r.view);
      })
      .catch(function (e) {
        if (my !== gen) return;
        main.setAttribute('data-state', 'error');
        main.appendChild(errorBox(e));
      });
  }

  function errorBox(e) {
    var msg = e instanceof ApiError ? e.message + ' (' + e.code + (e.status ? ', HTTP ' + e.status : '') + ')'
      : String(e && e.message ? e.message : e);
    return E('p', { class: 'error' }, msg);
  }

  function later(my, ms, fn) {
    if (my !== gen) return;
    timers.push(setTimeout(function () { if (my === gen) fn(); }, ms));
  }

  /* ---------------- shared bits ---------------- */

  var devicesCache = null, hostCache = null;
  function getDevices() {
    if (!devicesCache) {
      devicesCache = request('devices').then(function (j) { hostCache = j.host || null; return j.devices || []; })
        .catch(function (e) { devicesCache = null; throw e; });
    }
    return devicesCache;
  }

  var METRIC_ORDER = ['write.bw_mib', 'read.bw_mib', 'write.iops', 'read.iops', 'rewrite.bw_mib',
    'initial_write.bw_mib', 'write.clat_p99_us', 'read.clat_p99_us'];

  /* The job's main metric: the first of METRIC_ORDER it has, else its first summary key. */
  function mainMetric(job, wanted) {
    var s = job.summary || {};
    if (wanted && s[wanted]) return wanted;
    for (var i = 0; i < METRIC_ORDER.length; i++) if (s[METRIC_ORDER[i]]) return METRIC_ORDER[i];
    var keys = Object.keys(s);
    return keys.length ? keys[0] : null;
  }

  /* The history's metric cell: "mean ± stdev unit (n passes)"; one pass has no spread, so it
   * reads "value unit (1 pass)", never "± 0". */
  function metricCell(job, wanted) {
    var m = mainMetric(job, wanted);
    if (!m) return { v: '–', cls: 'num' };
    var s = job.summary[m];
    var n = FT.isNum(s.n) ? s.n : (job.passes || []).length;
    var val = n === 1 ? FT.fmt(s.mean) + ' ' + FT.unit(m)
      : FT.fmt(s.mean) + ' ± ' + FT.fmt(s.stdev) + ' ' + FT.unit(m);
    return {
      v: [E('span', { class: 'metric-name' }, m + ' '), E('span', { class: 'metric-val' }, val),
        E('span', { class: 'metric-n' }, ' (' + n + ' pass' + (n === 1 ? '' : 'es') +
          (job.state !== 'succeeded' && FT.isNum(job.loops) && n < job.loops ? ' of ' + job.loops : '') + ')')],
      cls: 'num'
    };
  }

  /* The labels the controller sets on a sweep's jobs; sweep_config is shown as what the job
   * changed, not as a chip. */
  var SWEEP_CONFIG = 'sweep_config';

  /* What a job changed: its own params ("nr_requests=64"), or for a sweep's job the point's
   * configuration as the controller applied it ("sweep 7: read_ahead_kb=4096 nr_requests=128");
   * older controllers only label the point. */
  function changedText(job) {
    var asked = (job.spec || {}).params || {};
    var keys = Object.keys(asked);
    if (keys.length) return keys.map(function (k) { return k + '=' + FT.valueText(asked[k]); }).join(' ');
    var l = job.labels || {};
    if (l[SWEEP_CONFIG] !== undefined) return 'sweep ' + l.sweep + ': ' + l[SWEEP_CONFIG];
    if (l.sweep !== undefined) return 'sweep ' + l.sweep + ' point ' + l.sweep_point;
    return '–';
  }

  /* What a job set, {name: value}: its params, or the settings of its sweep_config label. */
  function changedSettings(job) {
    var asked = (job.spec || {}).params || {};
    var cfg = (job.labels || {})[SWEEP_CONFIG];
    if (!Object.keys(asked).length && cfg) {
      asked = {};
      cfg.split(' ').forEach(function (kv) { var p = splitKV(kv); if (p) asked[p[0]] = p[1]; });
    }
    return asked;
  }

  function changedNames(job) { return Object.keys(changedSettings(job)); }

  function labelChips(labels) {
    var keys = Object.keys(labels || {}).filter(function (k) { return k !== SWEEP_CONFIG; }).sort();
    if (!keys.length) return '';
    return E('span', { class: 'labels' }, keys.map(function (k) {
      return E('span', { class: 'chip' }, k + '=' + FT.valueText(labels[k]));
    }));
  }

  /* The key options of a job spec for the history's rw, bs, iodepth and numjobs columns
   * (dd: its direction and bs; other engines: none). */
  function keyOptions(job) {
    var spec = job.spec || {};
    var eng = job.engine || spec.engine;
    var o = spec[eng] || {};
    var keys = eng === 'fio' ? ['rw', 'bs', 'iodepth', 'numjobs'] : eng === 'dd' ? ['direction', 'bs', null, null] : [null, null, null, null];
    return keys.map(function (k) { return [k, k ? o[k] : undefined]; });
  }

  function stateBadge(state) {
    return E('span', { class: 'state state-' + String(state).replace(/[^a-z]/g, '') }, String(state));
  }

  function metricsOf(jobs) {
    var set = {};
    jobs.forEach(function (j) {
      Object.keys(j.summary || {}).forEach(function (k) { set[k] = 1; });
      (j.passes || []).forEach(function (p) { Object.keys(p.metrics || {}).forEach(function (k) { set[k] = 1; }); });
    });
    return Object.keys(set).sort(function (a, b) {
      var ia = METRIC_ORDER.indexOf(a), ib = METRIC_ORDER.indexOf(b);
      if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
      return a < b ? -1 : a > b ? 1 : 0;
    });
  }

  function select(id, options, value, attrs) {
    var s = E('select', Object.assign({ id: id, name: id }, attrs || {}));
    options.forEach(function (o) {
      var v = Array.isArray(o) ? o[0] : o, t = Array.isArray(o) ? o[1] : o;
      s.appendChild(E('option', { value: v, selected: String(v) === String(value) }, t));
    });
    return s;
  }

  function field(label, input) {
    return E('label', { class: 'field' }, E('span', null, label), input);
  }

  /* filterForm(query, onSubmit, extra): device/engine/label/param filters shared by two views. */
  function filterForm(q, devices, extra, onSubmit) {
    var devOpts = [['', 'any device']].concat(devices.map(function (d) { return [d.name, d.name]; }));
    if (q.device && !devices.some(function (d) { return d.name === q.device; })) devOpts.push([q.device, q.device]);
    var form = E('form', { class: 'filters', id: 'filters' },
      field('Device', select('f-device', devOpts, q.device || '')),
      field('Engine', select('f-engine', [['', 'any engine'], 'fio', 'dd', 'bonnie', 'iozone'], q.engine || '')),
      field('Label', E('input', { id: 'f-label', name: 'label', type: 'text', placeholder: 'key=value', value: q.label || '' })),
      field('Parameter', E('input', { id: 'f-param', name: 'param', type: 'text', placeholder: 'name=value', value: q.param || '' })),
      extra || null,
      E('button', { type: 'submit', id: 'f-apply' }, 'Apply'),
      E('button', { type: 'button', id: 'f-reset', class: 'secondary', onclick: function () { onSubmit({}); } }, 'Reset'));
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var f = {};
      ['device', 'engine', 'label', 'param'].forEach(function (k) {
        var v = form.querySelector('#f-' + k).value.trim();
        if (v) f[k] = v;
      });
      form.querySelectorAll('[data-extra]').forEach(function (el) { if (el.value) f[el.name] = el.value; });
      onSubmit(f);
    });
    return form;
  }

  function pickFilters(q) {
    var f = {};
    ['device', 'engine', 'label', 'param'].forEach(function (k) { if (q[k]) f[k] = q[k]; });
    return f;
  }

  /* ---------------- History ---------------- */

  views.history = function (r, my) {
    var q = r.query;
    var limit = Math.max(1, Math.min(500, parseInt(q.limit, 10) || 50));
    var before = q.before ? parseInt(q.before, 10) : undefined;
    var pageNo = parseInt(q.page, 10) || 1;
    var f = pickFilters(q);
    main.appendChild(E('h1', null, 'Result history'));
    var body = E('div', { id: 'history-body' }, E('p', { class: 'muted' }, 'Loading…'));

    // The devices (for the filter) and the page of results are fetched together.
    var results = request(resultsQuery(f, limit, before));
    results.catch(function () {});
    return getDevices().catch(function () { return []; }).then(function (devices) {
      if (my !== gen) return;
      var extra = [
        field('Metric', select('f-metric', [['', 'main metric']].concat(METRIC_ORDER), q.metric || '', { 'data-extra': 1 })),
        field('Per page', select('f-limit', ['25', '50', '100', '200', '500'], String(limit), { 'data-extra': 1 }))
      ];
      extra[0].querySelector('select').name = 'metric';
      extra[1].querySelector('select').name = 'limit';
      main.appendChild(filterForm(q, devices, extra, function (nf) { go('history', undefined, nf); }));
      main.appendChild(body);
      return results;
    }).then(function (res) {
      if (my !== gen || !res) return;
      FT.clear(body);
      var jobs = res.results || [];
      var rows = jobs.map(function (j) {
        var opts = keyOptions(j);
        return {
          attrs: { 'data-id': j.id, class: 'row-link' },
          cells: [
            E('a', { href: hashFor('job', j.id) }, '#' + j.id),
            { v: FT.fmtTime(j.finished_at || j.started_at || j.created_at), cls: 'time' },
            j.device,
            // A suite job: its metric below is its first workload's (the job view has them all).
            j.engine + (((j.spec || {}).workloads || []).length ? ' · ' + j.spec.workloads.length + ' workloads' : ''),
          ].concat(opts.map(function (o) { return { v: o[1] === undefined ? '–' : FT.valueText(o[1]), cls: 'opt' }; }))
            .concat([{ v: changedText(j), cls: 'changed' }, labelChips(j.labels), metricCell(j, q.metric), stateBadge(j.state)])
        };
      });
      var optNames = ['rw', 'bs', 'iodepth', 'numjobs'];
      var head = ['Job', 'Time (UTC)', 'Device', 'Engine'].concat(optNames.map(function (n) { return { v: n, cls: 'opt' }; }))
        .concat([{ v: 'Changed', cls: 'changed' }, 'Labels', { v: 'Metric (mean ± stdev)', cls: 'num' }, 'State']);
      var status = E('p', { class: 'muted', id: 'history-count' },
        jobs.length ? 'Page ' + pageNo + ': ' + jobs.length + ' job' + (jobs.length === 1 ? '' : 's')
          : 'No finished jobs' + (Object.keys(f).length ? ' match these filters.' : ' yet.'));
      var tbl = FT.table(head, rows, 'grid history');
      tbl.id = 'history-table';
      // Clicking anywhere in a row opens the job.
      tbl.addEventListener('click', function (ev) {
        var tr = ev.target.closest('tr[data-id]');
        if (tr && !ev.target.closest('a')) go('job', tr.getAttribute('data-id'));
      });
      var nav = E('div', { class: 'pager' },
        E('button', {
          type: 'button', id: 'page-newest', class: 'secondary', disabled: !before,
          onclick: function () { var nq = Object.assign({}, q); delete nq.before; delete nq.page; go('history', undefined, nq); }
        }, '« Newest'),
        E('button', {
          type: 'button', id: 'page-newer', class: 'secondary', disabled: !before,
          onclick: function () { history.back(); }
        }, '‹ Newer'),
        E('button', {
          type: 'button', id: 'page-older', disabled: res.next_before_id === null || res.next_before_id === undefined,
          onclick: function () {
            go('history', undefined, Object.assign({}, q, { before: res.next_before_id, page: pageNo + 1 }));
          }
        }, 'Older ›'));
      FT.append(body, [status, tbl, nav]);
    });
  };

  /* ---------------- Job ---------------- */

  /* A suite job's workload names, in the job's order (its spec, else its first pass). */
  function workloadNames(job) {
    var ws = (job.spec || {}).workloads;
    if (ws && ws.length) return ws.map(function (w) { return w.name; });
    var p = (job.passes || [])[0];
    return p && p.workloads ? p.workloads.map(function (w) { return w.name; }) : [];
  }

  /* Workload name's metrics in pass p, or {}. */
  function workloadMetrics(p, name) {
    var w = (p.workloads || []).filter(function (x) { return x.name === name; })[0];
    return (w && w.metrics) || {};
  }

  /* The "Passes by workload" section: a table (a row per workload, a column per pass, then the
   * summary) and a chart per workload for one metric, and each workload's own options. */
  function workloadsSection(job) {
    var names = workloadNames(job), passes = job.passes || [];
    var specs = {};
    ((job.spec || {}).workloads || []).forEach(function (w) { specs[w.name] = w.fio || {}; });
    var sums = {};
    (job.summary_workloads || []).forEach(function (w) { sums[w.name] = w.summary || {}; });
    var all = [];
    names.forEach(function (n) {
      all.push({ summary: sums[n] || {}, passes: passes.map(function (p) { return { metrics: workloadMetrics(p, n) }; }) });
    });
    var metrics = metricsOf(all);
    var sec = E('section', { id: 'job-workloads' }, E('h2', null, 'Passes by workload (' + names.length + ')'));
    var body = E('div');
    var wsel = select('job-wl-metric', metrics.length ? metrics : [''], metrics.indexOf(wlMetric) >= 0 ? wlMetric : '');
    function draw() {
      var m = wsel.value || metrics[0];
      wlMetric = m;
      FT.clear(body);
      if (!m) { body.appendChild(E('p', { class: 'muted' }, 'No pass has finished yet.')); return; }
      var head = ['workload'].concat(passes.map(function (p) { return { v: 'pass ' + p.loop, cls: 'num' }; }),
        [{ v: 'mean', cls: 'num' }, { v: 'stdev', cls: 'num' }, { v: 'n', cls: 'num' }, 'unit', 'options']);
      var rows = names.map(function (n) {
        var sm = (sums[n] || {})[m] || {};
        var opts = specs[n] || {};
        return { attrs: { 'data-workload': n }, cells: [n].concat(passes.map(function (p) {
          var v = workloadMetrics(p, n)[m];
          return { v: FT.isNum(v) ? FT.fmt(v) : '–', cls: 'num' };
        }), [{ v: FT.fmt(sm.mean), cls: 'num' }, { v: FT.fmt(sm.stdev), cls: 'num' }, { v: FT.fmt(sm.n), cls: 'num' }, FT.unit(m),
          { v: Object.keys(opts).map(function (k) { return k + '=' + FT.valueText(opts[k]); }).join(' '), cls: 'opt' }]) };
      });
      body.appendChild(FT.table(head, rows, 'grid workloads'));
      var charts = E('div', { class: 'cols' });
      body.appendChild(charts);
      names.forEach(function (n, i) {
        var pts = passes.map(function (p) { return { loop: p.loop, value: workloadMetrics(p, n)[m] }; });
        if (!pts.some(function (x) { return FT.isNum(x.value); })) return;
        var canvas = E('canvas', { id: 'wl-chart-' + i, class: 'wl-chart', 'aria-label': n + ': per-pass ' + m });
        charts.appendChild(E('section', null, E('h3', null, n), E('div', { class: 'chart-box' }, canvas)));
        var sm = (sums[n] || {})[m];
        FT.passBars(canvas, m, pts, sm ? sm.mean : FT.mean(pts.map(function (x) { return x.value; }).filter(FT.isNum)));
      });
    }
    wsel.addEventListener('change', draw);
    if (metrics.length) sec.appendChild(field('Metric', wsel));
    sec.appendChild(E('p', { class: 'hint' }, 'One fio run per pass, the workloads as stonewalled sections in this order; ' +
      'the Passes chart above and the Summary below are the first workload\'s.'));
    sec.appendChild(body);
    setTimeout(draw, 0);
    return sec;
  }
  var wlMetric = null;

  views.job = function (r, my) {
    var id = parseInt(r.arg, 10);
    if (!(id > 0)) throw new Error('bad job id: ' + r.arg);
    var chosen = r.query.metric || null;
    var box = E('div', { id: 'job-body' });
    main.appendChild(box);

    function load() {
      return request('jobs/' + id).then(function (job) {
        if (my !== gen) return;
        chosen = render(job, chosen);
        if (job.state === 'queued' || job.state === 'running') later(my, POLL_MS, function () {
          load().catch(function (e) { box.appendChild(errorBox(e)); });
        });
      });
    }

    /* render(job, metric): draws the whole job view; returns the metric in use. */
    function render(job, metric) {
      var scrollY = window.scrollY;
      FT.clear(box);
      var metrics = metricsOf([job]);
      if (!metric || metrics.indexOf(metric) < 0) metric = mainMetric(job, null) || metrics[0] || null;
      var live = job.state === 'queued' || job.state === 'running';
      box.setAttribute('data-job-state', job.state);

      box.appendChild(E('h1', null, 'Job #' + job.id + ' ', stateBadge(job.state)));
      if (live) {
        var pct = Math.round((FT.isNum(job.progress) ? job.progress : 0) * 100);
        box.appendChild(E('div', { class: 'progress-row', id: 'job-progress' },
          E('progress', { max: 1, value: FT.isNum(job.progress) ? job.progress : 0 }),
          E('span', null, pct + ' % · loop ' + (job.loops_done || 0) + ' of ' + (job.loops || '?') + ' done · updating every ' + POLL_MS / 1000 + ' s')));
      }
      if (job.error) box.appendChild(E('p', { class: 'error', id: 'job-error' }, (job.error.code || 'error') + ': ' + (job.error.message || '')));

      var info = [
        ['Device', job.device], ['Engine', job.engine],
        ['Loops', (job.loops_done !== undefined ? job.loops_done + ' / ' : '') + (job.loops !== undefined ? job.loops : '–')],
        ['Created', FT.fmtTime(job.created_at)], ['Started', FT.fmtTime(job.started_at)], ['Finished', FT.fmtTime(job.finished_at)]
      ];
      var spec = job.spec || {};
      var engOpts = spec[job.engine] || spec[String(job.engine).replace(/\+/g, '')] || {};
      var optRows = Object.keys(engOpts).map(function (k) { return [k, FT.valueText(engOpts[k])]; });
      ['directory', 'params'].forEach(function (k) { if (spec[k] !== undefined) optRows.push([k, FT.valueText(spec[k])]); });

      box.appendChild(E('div', { class: 'cols' },
        E('section', null, E('h2', null, 'Job'), FT.table(['', ''], info, 'kv')),
        E('section', null, E('h2', null, 'Options (' + job.engine + ')'),
          optRows.length ? FT.table(['option', 'value'], optRows, 'kv') : E('p', { class: 'muted' }, 'none')),
        E('section', { id: 'job-labels' }, E('h2', null, 'Labels'),
          Object.keys(job.labels || {}).length ? FT.table(['label', 'value'], Object.keys(job.labels).sort().map(function (k) {
            return [k, FT.valueText(job.labels[k])];
          }), 'kv') : E('p', { class: 'muted' }, 'none')),
        identitySection('job-identity', 'Device and host', (job.identity || {}).device, (job.identity || {}).host)));

      // The filesystem the job made (mkfs and mount options, and what the tools report).
      var fsReq = spec.filesystem, fsMade = job.filesystem;
      if (fsReq || fsMade) box.appendChild(filesystemSection(fsReq || {}, fsMade, job));

      // Per-pass bars.
      var passes = job.passes || [];
      var sec = E('section', { id: 'job-passes' }, E('h2', null, 'Passes'));
      var msel = select('job-metric', metrics.length ? metrics : [''], metric || '');
      msel.addEventListener('change', function () {
        chosen = msel.value;
        history.replaceState(null, '', hashFor('job', id, { metric: chosen }));
        render(job, chosen);
      });
      if (metrics.length) sec.appendChild(field('Metric', msel));
      if (passes.length && metric) {
        var canvas = E('canvas', { id: 'pass-chart', 'aria-label': 'per-pass ' + metric });
        sec.appendChild(E('div', { class: 'chart-box' }, canvas));
        box.appendChild(sec);
        var pts = passes.map(function (p) { return { loop: p.loop, value: (p.metrics || {})[metric] }; });
        var sm = (job.summary || {})[metric];
        FT.passBars(canvas, metric, pts, sm ? sm.mean : FT.mean(pts.map(function (p) { return p.value; }).filter(FT.isNum)));
      } else {
        sec.appendChild(E('p', { class: 'muted' }, live ? 'No pass has finished yet.' : 'No passes recorded.'));
        box.appendChild(sec);
      }

      // A suite job (issue 29): every workload's passes, side by side, on a metric of its own.
      if (workloadNames(job).length) box.appendChild(workloadsSection(job));

      // Summary.
      var summary = job.summary || {};
      box.appendChild(E('section', { id: 'job-summary' }, E('h2', null, 'Summary'),
        Object.keys(summary).length ? FT.table(['metric', { v: 'mean', cls: 'num' }, { v: 'stdev', cls: 'num' },
          { v: 'min', cls: 'num' }, { v: 'max', cls: 'num' }, { v: 'n', cls: 'num' }, 'unit'],
        metricsOf([{ summary: summary }]).map(function (k) {
          var s = summary[k];
          return { attrs: { class: k === metric ? 'hl' : null }, cells: [k, { v: FT.fmt(s.mean), cls: 'num' }, { v: FT.fmt(s.stdev), cls: 'num' },
            { v: FT.fmt(s.min), cls: 'num' }, { v: FT.fmt(s.max), cls: 'num' }, { v: FT.fmt(s.n), cls: 'num' }, FT.unit(k)] };
        })) : E('p', { class: 'muted' }, 'No summary yet.')));

      // Raw output per pass.
      var pre = E('pre', { id: 'raw-out', class: 'raw', hidden: true });
      box.appendChild(E('section', { id: 'job-raw' }, E('h2', null, 'Raw output'),
        passes.length ? E('p', null, passes.map(function (p) {
          var url = API + 'jobs/' + id + '/raw' + qs({ loop: p.loop });
          return E('a', {
            href: url, class: 'raw-link', 'data-loop': p.loop, target: '_blank', rel: 'noopener',
            onclick: function (ev) {
              ev.preventDefault();
              pre.hidden = false;
              pre.textContent = 'Loading pass ' + p.loop + '…';
              request('jobs/' + id + '/raw' + qs({ loop: p.loop }), { text: true }).then(function (t) {
                pre.textContent = t;
              }, function (e) { pre.textContent = 'error: ' + e.message; });
            }
          }, 'pass ' + p.loop);
        })) : E('p', { class: 'muted' }, 'none'), pre));

      // Parameter snapshot.
      // Parameter snapshot, in up to three side-by-side tables; the job's own params highlighted.
      var params = job.params || {};
      var asked = changedSettings(job);
      // The fs.* entries of a job's filesystem are shown with it, above.
      var pkeys = Object.keys(params).filter(function (k) {
        return !(fsMade && k.indexOf('fs.') === 0);
      }).sort();
      var per = Math.ceil(pkeys.length / 3) || 1;
      var chunks = [];
      for (var i = 0; i < pkeys.length; i += per) chunks.push(pkeys.slice(i, i + per));
      box.appendChild(E('section', { id: 'job-params' }, E('h2', null, 'Parameters of ' + job.device + ' before the first loop'),
        Object.keys(asked).length ? E('p', { class: 'hint' }, 'Highlighted: set by this job (' +
          Object.keys(asked).map(function (k) { return k + '=' + FT.valueText(asked[k]); }).join(', ') + ').') : null,
        pkeys.length ? E('div', { class: 'cols params-cols' }, chunks.map(function (keys) {
          return FT.table(['parameter', 'value'], keys.map(function (k) {
            var v = params[k];
            if (v && typeof v === 'object' && 'value' in v) v = v.value;
            return { attrs: { class: k in asked ? 'hl' : null }, cells: [k, FT.valueText(v)] };
          }), 'kv params');
        })) : E('p', { class: 'muted' }, 'none recorded')));
      window.scrollTo(0, scrollY);
      return metric;
    }

    return load();
  };

  /* The figures shown first, in this order, when the tools reported them. */
  var FS_KEY_FIGURES = ['block_size_bytes', 'inode_size_bytes', 'agcount', 'sunit_blocks', 'swidth_blocks',
    'sunit_bytes', 'swidth_bytes', 'log_blocks', 'log_size_bytes', 'log_version', 'raid_stride_blocks',
    'raid_stripe_width_blocks', 'journal_blocks', 'journal_size_bytes', 'inode_count', 'block_count'];

  /* filesystemSection(asked, made, job): what the job asked of mkfs and mount, and what they did. */
  function filesystemSection(asked, made, job) {
    var rows = [
      ['type', FT.valueText((made && made.type) || asked.type)],
      ['mkfs options', (asked.mkfs || []).length ? asked.mkfs.join(' ') : '(defaults)'],
      ['mount options', asked.mount ? asked.mount : '(defaults)']
    ];
    if (made) {
      rows.push(['mkfs ran', made.mkfs]);
      rows.push(['mounted with', made.mount_options + ' · ' + made.super_options]);
      rows.push(['mount point', made.mount_point]);
      rows.push(['mkfs took', FT.fmt(made.mkfs_s) + ' s']);
    }
    var figs = (made && made.figures) || {};
    var keys = FS_KEY_FIGURES.filter(function (k) { return k in figs; });
    Object.keys(figs).sort().forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    return E('section', { id: 'job-filesystem' },
      E('h2', null, 'Filesystem (' + FT.valueText((made && made.type) || asked.type) + ' on ' + job.device + ')'),
      E('div', { class: 'cols' },
        FT.table(['', ''], rows, 'kv'),
        keys.length ? FT.table(['figure', 'value'], keys.map(function (k) {
          return { attrs: { class: FS_KEY_FIGURES.indexOf(k) >= 0 ? 'hl' : null }, cells: [k, FT.valueText(figs[k])] };
        }), 'kv params') : E('p', { class: 'muted' }, made ? 'no figures recorded' : 'not made yet')));
  }

  /* ---------------- Compare ---------------- */

  /* fetchAll(filters): pages through /results (500 at a time) up to COMPARE_MAX_JOBS jobs. */
  function fetchAll(f, my) {
    var out = [];
    function step(before) {
      return request(resultsQuery(f, 500, before)).then(function (res) {
        if (my !== gen) return out;
        out = out.concat(res.results || []);
        var next = res.next_before_id;
        if (next === null || next === undefined || out.length >= COMPARE_MAX_JOBS || !(res.results || []).length) return out;
        return step(next);
      });
    }
    return step(undefined);
  }

  function paramValue(v) {
    if (v && typeof v === 'object' && 'value' in v) v = v.value;
    return v === undefined ? undefined : FT.valueText(v);
  }

  /* A job's workload: its engine with every option, its device and directory. Jobs of
   * different workloads are never compared: a 4k randwrite's figure says nothing of a 1M one. */
  function workloadOf(j) {
    var spec = j.spec || {};
    var eng = j.engine || spec.engine;
    var o = spec[eng] || {};
    var keys = Object.keys(o).sort();
    var text = eng + ' ' + keys.map(function (k) { return k + '=' + FT.valueText(o[k]); }).join(' ') +
      ' on ' + j.device + (spec.directory ? ' in ' + spec.directory : '');
    return { key: JSON.stringify([eng, j.device, spec.directory || null, keys.map(function (k) { return [k, o[k]]; })]),
      text: text, device: j.device };
  }

  /* A short stable id for a workload key, for the URL (FNV-1a, 32 bits, hex). */
  function workloadId(key) {
    var h = 0x811c9dc5;
    for (var i = 0; i < key.length; i++) {
      h ^= key.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return ('0000000' + h.toString(16)).slice(-8);
  }

  /* The finished jobs grouped by workload, the most recent workload (newest job) first. Only
   * jobs that succeeded are compared (jobs); a cancelled or failed job ran only some of its
   * loops (partial counts them). Workloads without a succeeded job are left out. */
  function workloadsOf(jobs) {
    var by = {}, list = [];
    jobs.forEach(function (j) {
      var w = workloadOf(j);
      var g = by[w.key];
      if (!g) {
        g = by[w.key] = { key: w.key, id: workloadId(w.key), text: w.text, device: w.device, jobs: [], partial: 0, newest: null };
        list.push(g);
      }
      if (j.state !== 'succeeded') {
        g.partial++;
        return;
      }
      g.jobs.push(j);
      if (!g.newest || j.id > g.newest.id) g.newest = j;
    });
    return list.filter(function (g) { return g.jobs.length; })
      .sort(function (x, y) { return y.newest.id - x.newest.id; });
  }

  /* The device's writable parameters as the agent reports them now: {name: true}, or null when
   * the device is not allowlisted here (every parameter reads as not writable) or is gone. */
  function writableParams(dev) {
    return request('devices/' + encodeURIComponent(dev) + '/params').then(function (j) {
      var p = j.params || {}, w = {}, any = false;
      Object.keys(p).forEach(function (k) { if (p[k] && p[k].writable) { w[k] = true; any = true; } });
      return any ? w : null;
    }, function () { return null; });
  }

  views.compare = function (r, my) {
    var q = r.query;
    var f = pickFilters(q);
    main.appendChild(E('h1', null, 'Compare by parameter'));
    var body = E('div', { id: 'compare-body' }, E('p', { class: 'muted' }, 'Loading…'));
    var all, wl, work;
    return getDevices().catch(function () { return []; }).then(function (devices) {
      if (my !== gen) return;
      main.appendChild(filterForm(q, devices, null, function (nf) {
        go('compare', undefined, Object.assign(nf, { workload: q.workload, by: q.by, metric: q.metric }));
      }));
      main.appendChild(body);
      return fetchAll(f, my);
    }).then(function (fetched) {
      all = fetched;
      if (my !== gen || !all) return;
      FT.clear(body);
      wl = workloadsOf(all);
      if (!wl.length) {
        body.appendChild(E('p', { class: 'muted' }, 'No succeeded jobs match these filters.'));
        return;
      }
      work = wl.filter(function (w) { return w.id === q.workload; })[0] || wl[0];
      return writableParams(work.device);
    }).then(function (writable) {
      if (my !== gen || !work) return;
      var jobs = work.jobs;
      // The parameters that vary among this workload's jobs and that one can set: writable on
      // the device now, an iosched attribute, or set by one of the jobs.
      var distinct = {}, set = {};
      jobs.forEach(function (j) {
        Object.keys(j.params || {}).forEach(function (k) {
          (distinct[k] = distinct[k] || {})[paramValue(j.params[k])] = 1;
        });
        changedNames(j).forEach(function (k) { set[k] = true; });
      });
      var varying = Object.keys(distinct).filter(function (k) {
        return Object.keys(distinct[k]).length > 1 &&
          (!writable || writable[k] || set[k] || /^iosched\./.test(k));
      });
      // Parameters that move with another that varies are not parameters of their own: setra
      // is 2 x read_ahead_kb, iosched.* are reset by a scheduler switch, async_depth follows
      // nr_requests. They are named, never offered or grouped by.
      var moves = {};
      varying.forEach(function (k) {
        var w = movesWith(k, varying);
        if (w) moves[k] = w;
      });
      var pnames = varying.filter(function (k) { return !moves[k]; }).sort(function (a, b) {
        if (!!set[a] !== !!set[b]) return set[a] ? -1 : 1;
        return a < b ? -1 : a > b ? 1 : 0;
      });
      var first = sweepFirstAxis(jobs, pnames);
      var newestSet = changedNames(work.newest).filter(function (k) { return pnames.indexOf(k) >= 0; });
      var by = q.by && pnames.indexOf(q.by) >= 0 ? q.by : first || newestSet[0] || pnames[0];
      var metrics = metricsOf(jobs);
      var metric = q.metric && metrics.indexOf(q.metric) >= 0 ? q.metric : metrics[0];

      var wsel = select('c-workload', wl.map(function (w) {
        return [w.id, w.text + ' — ' + w.jobs.length + ' job' + (w.jobs.length === 1 ? '' : 's') + ', newest #' + w.newest.id];
      }), work.id);
      var psel = select('c-param', pnames.map(function (p) {
        var n = Object.keys(distinct[p]).length;
        return [p, p + ' (' + n + ' values)' + (p === first ? ', the sweep\'s first axis' : '')];
      }), by);
      var msel = select('c-metric', metrics, metric);
      function change(ev) {
        var nq = Object.assign({}, f, { workload: wsel.value, metric: msel.value });
        if (ev.target !== wsel) nq.by = psel.value;
        go('compare', undefined, nq);
      }
      wsel.addEventListener('change', change);
      psel.addEventListener('change', change);
      msel.addEventListener('change', change);
      body.appendChild(E('div', { class: 'filters' }, field('Workload', wsel),
        pnames.length ? field('Parameter', psel) : null, field('Metric', msel)));
      body.appendChild(E('p', { class: 'hint', id: 'compare-workload' },
        'One workload at a time: ' + work.text + '. ' + (wl.length > 1 ? (wl.length - 1) + ' other workload' +
          (wl.length === 2 ? '' : 's') + ' in these results (pick one above); their jobs are never pooled with these.' : '')));
      var mk = Object.keys(moves);
      if (mk.length) {
        body.appendChild(E('p', { class: 'hint', id: 'compare-moves' }, 'Not parameters of their own here: ' +
          mk.sort().map(function (k) { return k + ' moves with ' + moves[k]; }).join('; ') + '.'));
      }
      if (!pnames.length || !metric) {
        body.appendChild(E('p', { class: 'muted', id: 'compare-count' }, !metric ? 'These jobs have no metrics.'
          : 'No settable parameter varies among the ' + jobs.length + ' job' + (jobs.length === 1 ? '' : 's') + ' of this workload.'));
        return;
      }
      if (!writable) {
        body.appendChild(E('p', { class: 'hint' }, work.device + ' is not allowlisted on this agent (or gone), so its ' +
          'read-only attributes cannot be told apart: every parameter that varies is offered.'));
      }
      // Jobs grouped by their full configuration (every parameter that varies); by's effect is
      // shown only between configurations that differ in by alone: one block per setting of
      // the other parameters. Nothing is pooled across another varying parameter.
      var others = pnames.filter(function (k) { return k !== by; });
      var blocks = {}, blockList = [], used = 0;
      jobs.forEach(function (j) {
        var v = paramValue((j.params || {})[by]);
        if (v === undefined) return;
        var pts = (j.passes || []).map(function (p) { return (p.metrics || {})[metric]; }).filter(FT.isNum);
        if (!pts.length) return;
        used++;
        var ctx = others.map(function (k) { var x = paramValue((j.params || {})[k]); return k + '=' + (x === undefined ? '?' : x); }).join(' ');
        var bl = blocks[ctx];
        if (!bl) {
          bl = blocks[ctx] = { ctx: ctx, groups: {}, jobs: 0 };
          blockList.push(bl);
        }
        bl.jobs++;
        var g = bl.groups[v] || (bl.groups[v] = { label: v, points: [], jobs: 0 });
        g.jobs++;
        g.points = g.points.concat(pts);
      });
      blockList.forEach(function (bl) {
        bl.list = Object.keys(bl.groups).sort(FT.cmpValues).map(function (k) {
          var g = bl.groups[k];
          g.mean = FT.mean(g.points);
          g.stdev = FT.stdev(g.points);
          return g;
        });
      });
      var comparable = blockList.filter(function (bl) { return bl.list.length >= 2; });
      var alone = blockList.filter(function (bl) { return bl.list.length < 2; });
      body.appendChild(E('p', { class: 'muted', id: 'compare-count' },
        used + ' of ' + jobs.length + ' jobs of this workload have ' + metric + ' and ' + by + '; ' +
        comparable.length + ' setting' + (comparable.length === 1 ? '' : 's') + ' of the other parameters ' +
        (others.length ? '(' + others.join(', ') + ') ' : '') + 'where ' + by + ' alone differs.' +
        (work.partial ? ' ' + work.partial + ' cancelled or failed job' + (work.partial === 1 ? '' : 's') + ' of it left out (partial loops).' : '') +
        (all.length >= COMPARE_MAX_JOBS ? ' Only the newest ' + COMPARE_MAX_JOBS + ' jobs are read: narrow them with the filters.' : '')));
      if (alone.length) {
        body.appendChild(E('p', { class: 'hint', id: 'compare-alone' }, alone.length + ' configuration' + (alone.length === 1 ? '' : 's') +
          ' with a single ' + by + ' value (nothing differing in ' + by + ' alone to compare with), not compared: ' +
          alone.map(function (bl) { return by + '=' + bl.list[0].label + (bl.ctx ? ' with ' + bl.ctx : ''); }).join('; ') + '.'));
      }
      if (!comparable.length) {
        body.appendChild(E('p', { class: 'muted', id: 'compare-none' }, 'No two configurations of these jobs differ in ' + by +
          ' alone, so its effect cannot be shown without mixing another parameter\'s.'));
        return;
      }
      var dots = [];
      comparable.forEach(function (bl) {
        bl.list.forEach(function (g) {
          dots.push({ label: others.length ? bl.ctx + ' · ' + by + '=' + g.label : g.label, points: g.points, mean: g.mean });
        });
      });
      var canvas = E('canvas', { id: 'compare-chart', 'aria-label': metric + ' by ' + by });
      body.appendChild(E('div', { class: 'chart-box tall' }, canvas));
      FT.groupDots(canvas, metric, dots, by + (others.length ? ' (within each setting of ' + others.join(', ') + ')' : ''));
      comparable.forEach(function (bl, i) {
        var ref = bl.list[0].mean;
        if (others.length) body.appendChild(E('h3', { class: 'compare-block-title' }, 'with ' + bl.ctx));
        body.appendChild(FT.table([by, { v: 'jobs', cls: 'num' }, { v: 'passes', cls: 'num' }, { v: 'mean', cls: 'num' },
          { v: 'stdev', cls: 'num' }, { v: 'vs ' + bl.list[0].label, cls: 'num' }],
        bl.list.map(function (g) {
          return { attrs: { 'data-group': g.label, 'data-block': bl.ctx }, cells: [g.label, { v: g.jobs, cls: 'num' }, { v: g.points.length, cls: 'num' },
            { v: FT.fmt(g.mean) + ' ' + FT.unit(metric), cls: 'num' }, { v: g.points.length > 1 ? FT.fmt(g.stdev) : '–', cls: 'num' },
            { v: g === bl.list[0] ? '' : FT.fmtPct(g.mean / ref - 1), cls: 'num' }] };
        }), 'grid compare' + (i ? '' : ' compare-first')));
      });
    });
  };

  /* The parameter k moves with, among the varying ones: setra with read_ahead_kb (setra is
   * 512-byte sectors of it), iosched.async_depth with nr_requests, any other iosched.* with the
   * scheduler (a switch resets them); undefined when it is a parameter of its own. */
  function movesWith(k, varying) {
    if (k === 'setra' && varying.indexOf('read_ahead_kb') >= 0) return 'read_ahead_kb';
    if (k === 'iosched.async_depth' && varying.indexOf('nr_requests') >= 0) return 'nr_requests';
    if (/^iosched\./.test(k) && varying.indexOf('scheduler') >= 0) return 'scheduler';
    return undefined;
  }

  /* The newest sweep's first axis among these jobs: the parameter its first point after the
   * baseline changed (labels sweep, sweep_point, sweep_config); undefined for jobs of no sweep. */
  function sweepFirstAxis(jobs, names) {
    var newest = null;
    jobs.forEach(function (j) {
      var l = j.labels || {};
      if (l.sweep !== undefined && l[SWEEP_CONFIG] !== undefined && (!newest || j.id > newest.id)) newest = j;
    });
    if (!newest) return undefined;
    var sw = String(newest.labels.sweep);
    var pts = {};
    jobs.forEach(function (j) {
      var l = j.labels || {};
      if (String(l.sweep) === sw && l[SWEEP_CONFIG] !== undefined) pts[Number(l.sweep_point)] = changedSettings(j);
    });
    var idx = Object.keys(pts).map(Number).sort(function (a, b) { return a - b; });
    if (!idx.length) return undefined;
    var base = pts[idx[0]];
    for (var i = 1; i < idx.length; i++) {
      var cfg = pts[idx[i]];
      var d = names.filter(function (k) { return cfg[k] !== undefined && String(cfg[k]) !== String(base[k]); });
      if (d.length) return d[0];
    }
    return undefined;
  }

  /* ---------------- Devices ---------------- */

  /* The profiles the agent keeps ([] from an agent without them, or on an error: the device
   * view then reads as before). */
  function getProfiles() {
    return request('profiles').then(function (j) { return j.profiles || []; }, function () { return []; });
  }

  /* What the profiles are to device name: [{profile, dev}] for each profile that matches it. */
  function profilesOf(profiles, name) {
    var out = [];
    profiles.forEach(function (p) {
      (p.devices || []).forEach(function (d) { if (d.device === name) out.push({ profile: p, dev: d }); });
    });
    return out;
  }

  var STATE_TEXT = {
    held: 'held', drifted: 'drifted', reapplied: 'drift put back', pending: 'pending',
    yielded: 'yielded to', failed: 'failed', absent: 'absent', not_allowed: 'not in --allow-device',
    conflict: 'held by'
  };

  function stateChip(d) {
    var cls = d.state === 'drifted' || d.state === 'failed' || d.state === 'conflict' ? 'bad'
      : d.state === 'held' || d.state === 'reapplied' ? 'good' : 'muted';
    return E('span', { class: 'chip state-' + d.state + ' ' + cls, 'data-state': d.state },
      STATE_TEXT[d.state] + (d.owner ? ' ' + d.owner : ''));
  }

  /* One profile on one device: its state, when and why, and each held value wanted vs live. */
  function profileSection(x) {
    var p = x.profile, d = x.dev;
    var keys = Object.keys(d.params || {});
    var rows = keys.map(function (k) {
      var v = d.params[k];
      return { attrs: { class: v.drifted ? 'drift' : null, 'data-param': k }, cells: [k,
        FT.valueText(v.wanted) + (v.adjusted ? ' (kernel-adjusted)' : ''), v.live === null ? '–' : FT.valueText(v.live),
        v.drifted ? 'drifted' + (v.since ? ' since ' + FT.fmtTime(v.since) : '') : 'held'] };
    });
    var facts = [['State', stateChip(d)], ['Since', FT.fmtTime(d.since)],
      ['Drift', p.enforce ? 'put back (enforce: true)' : 'reported only (enforce: false)']];
    if (d.applied_at) facts.push(['Applied', FT.fmtTime(d.applied_at) + ' ' + d.applied_by]);
    if (d.reapplied) facts.push(['Put back', d.reapplied.count + '× , last ' + FT.fmtTime(d.reapplied.at) + ': ' + d.reapplied.what]);
    if (d.checked_at) facts.push(['Checked', FT.fmtTime(d.checked_at)]);
    if (d.error) facts.push(['Error', d.error]);
    return E('section', { class: 'profile', 'data-profile': p.name },
      E('h3', null, 'Profile ' + p.name),
      FT.table(['', ''], facts, 'kv'),
      FT.table(['parameter', 'profile', 'live', ''], rows, 'grid profile-params'));
  }

  /* #/devices[/NAME]: the device list (with the profile each one is held by), and the parameters
   * of one device (NAME, else the first benchmarkable one, else the first) with its profiles'
   * values and drift. */
  views.devices = function (r, my) {
    main.appendChild(E('h1', null, 'Devices'));
    main.appendChild(E('p', { class: 'muted' }, 'Current parameters as the kernel reports them (read-only), and the profiles the agent keeps on them.'));
    devicesCache = null;
    return Promise.all([getDevices(), getProfiles()]).then(function (got) {
      var devs = got[0], profiles = got[1];
      if (my !== gen) return;
      if (!devs.length) { main.appendChild(E('p', { class: 'muted' }, 'The agent sees no block devices.')); return; }
      var pick = devs.filter(function (d) { return d.name === r.arg; })[0] ||
        devs.filter(function (d) { return d.writable; })[0] || devs[0];
      main.appendChild(FT.table(['device', 'model', 'firmware', 'transport', { v: 'size', cls: 'num' }, 'rotational', 'scheduler', 'writable (--allow-device)', 'profile'],
        devs.map(function (d) {
          var id = d.identity || {};
          var ps = profilesOf(profiles, d.name);
          return { attrs: { class: d === pick ? 'hl' : null }, cells: [E('a', { href: hashFor('devices', d.name), 'data-dev': d.name }, d.name),
            id.model || '–', id.firmware || '–', id.transport || '–',
            { v: fmtBytes(d.size_bytes), cls: 'num' }, d.rotational ? 'yes' : 'no', FT.valueText(d.scheduler), d.writable ? 'yes' : 'no',
            E('span', { class: 'profiles' }, ps.map(function (x) {
              return E('span', null, [x.profile.name + ' ', stateChip(x.dev)]);
            }))] };
        }), 'grid devices'));
      if (hostCache) main.appendChild(identitySection('dev-host', 'Host', null, hostCache));
      var sec = E('section', { class: 'device', id: 'dev-' + pick.name }, E('h2', null, pick.name), E('p', { class: 'muted' }, 'Loading…'));
      main.appendChild(sec);
      return request('devices/' + encodeURIComponent(pick.name) + '/params').then(function (j) {
        if (my !== gen) return;
        FT.clear(sec);
        var p = j.params || {};
        var keys = Object.keys(p).sort();
        var half = Math.ceil(keys.length / 2) || 1;
        sec.appendChild(identitySection('dev-identity', 'What ' + pick.name + ' is', pick.identity, null));
        var held = {};
        var mine = profilesOf(profiles, pick.name);
        mine.forEach(function (x) { Object.keys(x.dev.params || {}).forEach(function (k) { held[k] = x; }); });
        if (mine.length) {
          sec.appendChild(E('h2', null, 'Profiles of ' + pick.name));
          mine.forEach(function (x) { sec.appendChild(profileSection(x)); });
        }
        sec.appendChild(E('h2', null, 'Parameters of ' + pick.name + (pick.writable ? '' : ' (not in --allow-device: read-only)')));
        sec.appendChild(E('div', { class: 'cols params-cols' }, [keys.slice(0, half), keys.slice(half)].map(function (ks) {
          return FT.table(['parameter', 'value', 'writable', 'allowed values', 'profile'], ks.map(function (k) {
            var x = p[k] || {};
            var allowed = x.choices ? x.choices.map(FT.valueText).join(' | ')
              : (x.min !== undefined || x.max !== undefined) ? (x.min !== undefined ? x.min : '') + ' … ' + (x.max !== undefined ? x.max : '') : '';
            var h = held[k], hv = h && h.dev.params[k];
            return { attrs: { class: hv && hv.drifted ? 'drift' : null }, cells: [k, FT.valueText(x.value) + (x.unit ? ' ' + x.unit : ''),
              x.writable ? 'yes' : 'no', allowed, h ? h.profile.name + ': ' + FT.valueText(hv.wanted) + (hv.drifted ? ' (drifted)' : '') : ''] };
          }), 'grid params');
        })));
      }, function (e) { FT.clear(sec); sec.appendChild(E('h2', null, pick.name)); sec.appendChild(errorBox(e)); });
    });
  };

  /* identitySection(id, title, device, host): a device's and/or a host's identity fields (GET
   * /devices, a job's identity) as a key/value table; absent fields are left out. */
  var IDENTITY_FIELDS = [['vendor', 'vendor'], ['model', 'model'], ['firmware', 'firmware'], ['serial', 'serial'],
    ['wwid', 'WWID'], ['transport', 'transport'], ['rotational', 'rotational'], ['logical_block_bytes', 'logical block'],
    ['physical_block_bytes', 'physical block'], ['size_bytes', 'size']];
  var HOST_FIELDS = [['kernel', 'kernel'], ['machine', 'machine'], ['hostname', 'hostname']];
  function identitySection(id, title, device, host) {
    var rows = [];
    function add(obj, fields) {
      fields.forEach(function (f) {
        var v = (obj || {})[f[0]];
        if (v === undefined || v === null) return;
        if (typeof v === 'boolean') v = v ? 'yes' : 'no';
        else if (f[0] === 'size_bytes') v = fmtBytes(v);
        else if (/_bytes$/.test(f[0])) v = v + ' B';
        rows.push([f[1], FT.valueText(v)]);
      });
    }
    add(device, IDENTITY_FIELDS);
    add(host, HOST_FIELDS);
    return E('section', { id: id, class: 'identity' }, E('h2', null, title),
      rows.length ? FT.table(['', ''], rows, 'kv identity') : E('p', { class: 'muted' }, 'not recorded'));
  }

  function fmtBytes(n) {
    if (!FT.isNum(n)) return '–';
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return FT.fmt(n, i ? 1 : 0) + ' ' + u[i];
  }

  /* ---------------- start ---------------- */

  request('health').then(function (h) {
    document.getElementById('node').textContent = (h.node || '') + (h.version ? ' · fleettune ' + h.version : '');
    document.title = 'fleettune · ' + (h.node || '');
  }, function () { /* shown by the views */ });

  window.addEventListener('hashchange', route);
  if (!location.hash || location.hash === '#' || location.hash === '#/') history.replaceState(null, '', '#/history');
  route();
})();
