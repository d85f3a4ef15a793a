// validate.js -- checks behind it_openapi.sh and it_deploy.sh: the spec against the OpenAPI 3.0
// meta-schema, the agent's route table against the spec's paths, real responses (and the request
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

// Routes of agent/api.c: the entries of `const struct route api_routes[] = { ... };`.
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
  else if (cmd === 'responses') checkCoverage(args[0], checkResponses(args[0], args[1]));
  else if (cmd === 'yaml2json') { parseYaml(args[0]); return; }
  else { console.error('usage: validate.js spec|routes|responses|yaml2json ...'); process.exit(2); }
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.log(`not ok - ${e.stack}`); process.exit(1); });
