// validate.js -- checks behind it_openapi.sh and it_deploy.sh: the spec against the OpenAPI 3.0
// meta-schema, the agent's route table (paths and query parameters) against the spec's paths,
// the engines' option tables against the spec's option schemas, real responses (and the request
// bodies sent) against the spec's schemas with ajv, and YAML documents parsed with js-yaml.
// Prints one "ok - ..." or "not ok - ..." line per check; exits 1 if any failed.
'use strict';
const fs = require('fs');
const yaml = require('js-yaml');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

let failures = 0;
function ok(desc) { console.log(`ok - ${desc}`); }
function notOk(desc, why) { failures++; console.log(`not ok - ${desc}: ${why}`); }

function loadSpec(path) { return yaml.load(fs.readFileSync(path, 'utf8')); }

// An ajv that knows the spec's component schemas as spec.json#/definitions/NAME (their
// "#/components/schemas/" references rewritten to match). ajv understands OpenAPI's "nullable";
// "example" is an annotation we declare.
function specAjv(spec) {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary(['example', 'externalDocs', 'xml']);
  ajv.addSchema({ $id: 'spec.json', definitions: rewriteRefs(spec.components.schemas) });
  return ajv;
}

function rewriteRefs(schema) {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\/components\/schemas\//g,
    '"$ref":"spec.json#/definitions/'));
}

// Resolve a local "#/a/b" reference inside the spec.
function deref(spec, obj) {
  while (obj && obj.$ref) {
    obj = obj.$ref.replace(/^#\//, '').split('/').reduce((o, k) => o && o[k], spec);
  }
  return obj;
}

function compileRef(ajv, schema) {
  return ajv.compile(rewriteRefs(schema));
}

function errText(validate) {
  return (validate.errors || []).slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params && e.params.additionalProperty ?
      ` '${e.params.additionalProperty}'` : ''}`).join('; ');
}

// Routes of agent/api/api.c: the entries of `const struct route api_routes[] = { ... };`.
function routesFromSource(path) {
  const src = fs.readFileSync(path, 'utf8');
  const m = src.match(/api_routes\[\]\s*=\s*\{([\s\S]*?)\n\};/);
  if (!m) throw new Error(`no api_routes[] table in ${path}`);
  const routes = [];
  const re = /\{\s*"([A-Z]+)"\s*,\s*"([^"]+)"\s*,/g;
  let r;
  while ((r = re.exec(m[1])) !== null) routes.push(`${r[1]} ${r[2]}`);
  return routes;
}

// Each route's query parameters from agent/api/api.c: route -> [{key, type}] (type: QUERY_INT, ...),
// from the route table's last field and the `static const struct query_param NAME[]` tables.
function routeQueriesFromSource(path) {
  const src = fs.readFileSync(path, 'utf8');
  const tables = {};
  const tre = /static const struct query_param (\w+)\[\] = \{([\s\S]*?)\n\};/g;
  let t;
  while ((t = tre.exec(src)) !== null) {
    tables[t[1]] = [...t[2].matchAll(/\.key = "([^"]+)", \.type = (QUERY_\w+)/g)]
      .map((k) => ({ key: k[1], type: k[2] }));
  }
  const m = src.match(/api_routes\[\]\s*=\s*\{([\s\S]*?)\n\};/);
  const out = {};
  const re = /\{\s*"([A-Z]+)"\s*,\s*"([^"]+)"\s*,\s*\w+\s*,\s*[^,]+,\s*(\w+)\s*\}/g;
  let r;
  while ((r = re.exec(m[1])) !== null) {
    if (r[3] !== 'NULL' && !tables[r[3]]) throw new Error(`no query table ${r[3]} in ${path}`);
    out[`${r[1]} ${r[2]}`] = r[3] === 'NULL' ? [] : tables[r[3]];
  }
  return out;
}

// The spec's query parameters of every operation must be the route table's, of the same kind.
function checkQueries(spec, apiC) {
  const fromCode = routeQueriesFromSource(apiC);
  const kind = { QUERY_INT: 'integer', QUERY_BOOL: 'boolean', QUERY_ENUM: 'enum', QUERY_TEXT: 'string' };
  let bad = 0;
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const code = fromCode[where];
      if (!code) continue; // reported by the route check
      const params = [...(item.parameters || []), ...(op.parameters || [])].map((p) => deref(spec, p))
        .filter((p) => p.in === 'query');
      const plain = params.filter((p) => deref(spec, p.schema).type !== 'object');
      const filters = params.filter((p) => deref(spec, p.schema).type === 'object');
      const codeKeys = code.filter((q) => q.type !== 'QUERY_PREFIX').map((q) => q.key).sort();
      const specKeys = plain.map((p) => p.name).sort();
      if (JSON.stringify(codeKeys) !== JSON.stringify(specKeys)) {
        notOk(`${where} query parameters`, `agent takes [${codeKeys}], spec declares [${specKeys}]`);
        bad++;
        continue;
      }
      if (code.some((q) => q.type === 'QUERY_PREFIX') !== (filters.length > 0)) {
        notOk(`${where} prefixed query filters`, 'agent and spec disagree on label./param. keys');
        bad++;
      }
      for (const p of plain) {
        const q = code.find((c) => c.key === p.name);
        const sch = deref(spec, p.schema);
        const specKind = sch.enum ? 'enum' : sch.type;
        if (kind[q.type] !== specKind) {
          notOk(`${where} ?${p.name}`, `agent ${q.type}, spec ${specKind}`);
          bad++;
        }
      }
    }
  }
  if (!bad) ok('every operation declares exactly the query parameters the agent takes');
}

// Engine option tables of agent/engines/{fio,dd,bonnie,iozone}.c: { ENGINE_OPT(S, key, EOPT_T), ... }.
function engineOptsFromSource(path) {
  const src = fs.readFileSync(path, 'utf8');
  const arrays = {};
  for (const a of src.matchAll(/static const char \*const (\w+)\[\] = \{([\s\S]*?)\};/g))
    arrays[a[1]] = [...a[2].matchAll(/"([^"]*)"/g)].map((x) => x[1]);
  const opts = [];
  // ENGINE_OPT(S, key, T) and ENGINE_OPT_AS(S, key, field, T): the key is the JSON's.
  for (const o of src.matchAll(/\{ ENGINE_OPT(?:_AS)?\(\w+, (\w+),(?: \w+,)? (EOPT_\w+)\)([^}]*)\}/g)) {
    const field = (name) => {
      const f = o[3].match(new RegExp(`\\.${name} = ([^,]+?)\\s*(,|$)`));
      return f ? f[1].trim() : undefined;
    };
    const choices = field('choices');
    opts.push({ key: o[1], type: o[2], min: field('min'), max: field('max'),
      choices: choices ? arrays[choices] : undefined });
  }
  return opts;
}

// The spec's FioOptions, DdOptions, BonnieOptions and IozoneOptions say what the engines enforce.
function checkEngines(specPath, agentDir) {
  const spec = loadSpec(specPath);
  const engines = { fio: 'FioOptions', dd: 'DdOptions', bonnie: 'BonnieOptions', iozone: 'IozoneOptions' };
  for (const [eng, schemaName] of Object.entries(engines)) {
    const opts = engineOptsFromSource(`${agentDir}/engines/${eng}.c`);
    const schema = spec.components.schemas[schemaName];
    const problems = [];
    if (opts.length < 3) problems.push(`only ${opts.length} options parsed from ${eng}.c`);
    const codeKeys = opts.map((o) => o.key).sort();
    const specKeys = Object.keys(schema.properties).sort();
    if (JSON.stringify(codeKeys) !== JSON.stringify(specKeys))
      problems.push(`keys: agent [${codeKeys}], spec [${specKeys}]`);
    for (const o of opts) {
      const p = schema.properties[o.key];
      if (!p) continue;
      const sch = p.allOf ? deref(spec, p.allOf[0]) : deref(spec, p);
      if (o.type === 'EOPT_INT') {
        if (sch.type !== 'integer') problems.push(`${o.key}: spec type ${sch.type}`);
        if (String(sch.minimum) !== o.min || String(sch.maximum) !== evalInt(o.max))
          problems.push(`${o.key}: agent ${o.min}..${evalInt(o.max)}, spec ${sch.minimum}..${sch.maximum}`);
      } else if (o.type === 'EOPT_BOOL' && sch.type !== 'boolean') {
        problems.push(`${o.key}: spec type ${sch.type}`);
      } else if (o.type === 'EOPT_ENUM' && JSON.stringify(sch.enum) !== JSON.stringify(o.choices)) {
        problems.push(`${o.key}: agent [${o.choices}], spec [${sch.enum}]`);
      } else if (o.type === 'EOPT_SET' &&
                 JSON.stringify(sch.items && sch.items.enum) !== JSON.stringify(o.choices)) {
        problems.push(`${o.key}: agent [${o.choices}], spec [${sch.items && sch.items.enum}]`);
      } else if (o.type === 'EOPT_SIZE' && !(p.$ref || p.allOf)) {
        problems.push(`${o.key}: not a Size in the spec`);
      } else if (o.type === 'EOPT_DURATION') {
        // an integer in the option's unit, or a time in fio's units
        const int = (p.oneOf || []).map((x) => deref(spec, x)).find((x) => x.type === 'integer');
        const str = (p.oneOf || []).map((x) => deref(spec, x)).find((x) => x.type === 'string');
        if (!int || !str) problems.push(`${o.key}: not oneOf an integer and a time in the spec`);
        else if (String(int.minimum) !== o.min || String(int.maximum) !== evalInt(o.max))
          problems.push(`${o.key}: agent ${o.min}..${evalInt(o.max)}, spec ${int.minimum}..${int.maximum}`);
      } else if (o.type === 'EOPT_TEXT' && sch.type !== 'string') {
        problems.push(`${o.key}: spec type ${sch.type}`);
      }
    }
    if (problems.length) notOk(`${schemaName} says what agent/engines/${eng}.c enforces`, problems.join('; '));
    else ok(`${schemaName} says what agent/engines/${eng}.c enforces`);
  }
}

// "16 << 20" and plain integers, as the tables write their limits.
function evalInt(text) {
  if (text === undefined) return undefined;
  const m = text.match(/^(\d+)(?:LL)?\s*<<\s*(\d+)$/);
  return m ? String(BigInt(m[1]) << BigInt(m[2])) : text.replace(/LL$/, '');
}

async function checkSpec(specPath) {
  const { Validator } = require('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const res = await validator.validate(specPath);
  if (res.valid) ok(`${specPath} is a valid OpenAPI ${validator.version} document`);
  else notOk(`${specPath} is a valid OpenAPI document`, JSON.stringify(res.errors).slice(0, 800));

  const spec = loadSpec(specPath);
  const ajv = specAjv(spec);
  const before = failures;
  for (const name of Object.keys(spec.components.schemas)) {
    try { compileRef(ajv, { $ref: `#/components/schemas/${name}` }); } catch (e) {
      notOk(`schema ${name} compiles`, e.message);
    }
  }
  if (failures === before) ok('every component schema compiles under ajv strict mode');
  const scheme = spec.components.securitySchemes && spec.components.securitySchemes.bearerAuth;
  if (scheme && scheme.type === 'http' && scheme.scheme === 'bearer') ok('bearerAuth is declared');
  else notOk('bearerAuth is declared', JSON.stringify(scheme));
  for (const [path, item] of Object.entries(spec.paths)) {
    const caps = (path.match(/\{[^}]+\}/g) || []).map((s) => s.slice(1, -1)).sort();
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const params = [...(item.parameters || []), ...(op.parameters || [])].map((p) => deref(spec, p));
      const declared = params.filter((p) => p.in === 'path').map((p) => p.name).sort();
      if (JSON.stringify(caps) !== JSON.stringify(declared))
        notOk(`${where} declares its path parameters`, `pattern has ${caps}, declared ${declared}`);
      const isHealth = path === '/api/v1/health';
      const open = Array.isArray(op.security) && op.security.length === 0;
      if (isHealth !== open)
        notOk(`${where} security`, isHealth ? 'health must be public' : 'must need bearerAuth');
      const rb = op.requestBody && deref(spec, op.requestBody);
      if (rb) {
        const media = rb.content['application/json'];
        const schema = deref(spec, media.schema);
        if (schema.additionalProperties !== false)
          notOk(`${where} request body is strict`, 'additionalProperties is not false');
        if (media.example !== undefined) {
          const v = compileRef(ajv, media.schema);
          if (v(media.example)) ok(`${where} request example matches its schema`);
          else notOk(`${where} request example matches its schema`, errText(v));
        }
      }
      for (const [status, resp] of Object.entries(op.responses)) {
        const r = deref(spec, resp);
        if (/^[45]/.test(status) || status === 'default') {
          const s = r.content && r.content['application/json'] && r.content['application/json'].schema;
          if (!s || s.$ref !== '#/components/schemas/Error')
            notOk(`${where} ${status} uses the error object`, JSON.stringify(s));
        }
      }
    }
  }
  ok('path parameters, security and error responses checked on every operation');
}

function checkRoutes(specPath, apiC) {
  const spec = loadSpec(specPath);
  const fromCode = routesFromSource(apiC);
  const fromSpec = [];
  for (const [path, item] of Object.entries(spec.paths))
    for (const method of Object.keys(item))
      if (['get', 'put', 'post', 'patch', 'delete', 'head', 'options'].includes(method))
        fromSpec.push(`${method.toUpperCase()} ${path}`);
  if (fromCode.length < 10) notOk('route table parsed', `only ${fromCode.length} routes found`);
  else ok(`route table of ${apiC} parsed: ${fromCode.length} routes`);
  const missingInSpec = fromCode.filter((r) => !fromSpec.includes(r));
  const missingInCode = fromSpec.filter((r) => !fromCode.includes(r));
  if (missingInSpec.length) notOk('every agent route is in the spec', missingInSpec.join(', '));
  else ok('every agent route is in the spec');
  if (missingInCode.length) notOk('every spec route is in the agent', missingInCode.join(', '));
  else ok('every spec route is in the agent');
  checkQueries(spec, apiC);
}

// cases.tsv: DESC \t METHOD \t PATTERN \t STATUS \t CONTENT_TYPE \t RESPONSE_FILE \t REQUEST_FILE
// (REQUEST_FILE may be "-"). The response must match the schema of exactly that status and
// content type. A request body is checked too: a 2xx request must match the request schema, and
// a request the agent answered 400 because of its body must not (strictness kept in step).
function checkResponses(specPath, casesPath) {
  const spec = loadSpec(specPath);
  const ajv = specAjv(spec);
  const lines = fs.readFileSync(casesPath, 'utf8').split('\n').filter((l) => l.trim());
  const seen = new Set();
  for (const line of lines) {
    const [desc, method, pattern, status, ctype, respFile, reqFile, reqExpect] = line.split('\t');
    const where = `${desc} (${method} ${pattern} -> ${status})`;
    const op = spec.paths[pattern] && spec.paths[pattern][method.toLowerCase()];
    if (!op) { notOk(where, 'operation not in the spec'); continue; }
    seen.add(`${method} ${pattern}`);
    const resp = deref(spec, op.responses[status]);
    if (!resp) { notOk(where, `status ${status} not documented`); continue; }
    const norm = (t) => t.toLowerCase().replace(/\s+/g, '');
    const mediaKey = Object.keys(resp.content || {}).find((k) => norm(k) === norm(ctype));
    if (!mediaKey) { notOk(where, `content type '${ctype}' not documented`); continue; }
    const schema = resp.content[mediaKey].schema;
    const body = fs.readFileSync(respFile, 'utf8');
    let instance = body;
    if (mediaKey.startsWith('application/json')) {
      try { instance = JSON.parse(body); } catch (e) { notOk(where, `body is not JSON: ${e.message}`); continue; }
    }
    const v = compileRef(ajv, schema);
    if (v(instance)) ok(where);
    else notOk(where, `${errText(v)}; body: ${body.slice(0, 300)}`);

    if (reqFile && reqFile !== '-') {
      const rb = op.requestBody && deref(spec, op.requestBody);
      if (!rb) { notOk(`${where} request`, 'operation takes no request body in the spec'); continue; }
      const rv = compileRef(ajv, rb.content['application/json'].schema);
      let req;
      try { req = JSON.parse(fs.readFileSync(reqFile, 'utf8')); } catch (e) { req = undefined; }
      const valid = req !== undefined && rv(req);
      if (reqExpect === 'valid' && valid) ok(`${where}: request body matches the spec`);
      else if (reqExpect === 'valid') notOk(`${where}: request body matches the spec`, errText(rv));
      else if (reqExpect === 'invalid' && !valid) ok(`${where}: spec rejects the request body too`);
      else if (reqExpect === 'invalid') notOk(`${where}: spec rejects the request body too`, 'it accepts it');
    }
  }
  return seen;
}

// Every GET route of the spec must have been exercised by the live cases.
function checkCoverage(specPath, seen) {
  const spec = loadSpec(specPath);
  const missing = [];
  for (const [path, item] of Object.entries(spec.paths))
    if (item.get && !seen.has(`GET ${path}`)) missing.push(`GET ${path}`);
  if (missing.length) notOk('every GET route was validated live', missing.join(', '));
  else ok('every GET route was validated live');
}

function parseYaml(file) {
  const docs = yaml.loadAll(fs.readFileSync(file, 'utf8'));
  process.stdout.write(JSON.stringify(docs));
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  if (cmd === 'spec') await checkSpec(args[0]);
  else if (cmd === 'routes') checkRoutes(args[0], args[1]);
  else if (cmd === 'engines') checkEngines(args[0], args[1]);
  else if (cmd === 'responses') checkCoverage(args[0], checkResponses(args[0], args[1]));
  else if (cmd === 'yaml2json') { parseYaml(args[0]); return; }
  else { console.error('usage: validate.js spec|routes|engines|responses|yaml2json ...'); process.exit(2); }
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.log(`not ok - ${e.stack}`); process.exit(1); });
