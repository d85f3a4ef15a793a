#!/usr/bin/env python3
"""hostile_agent.py UPSTREAM_URL PORT_FILE MODE[,MODE...] -- a hostile fleettune agent for the
controller's tests: it listens on 127.0.0.1 (an ephemeral port, written to PORT_FILE), passes
every request on to the real agent at UPSTREAM_URL and turns its answers hostile:

  escapes   every text an operator reads (version, node, parameter and applied values,
            identity, profile state/owner/error, error messages, job errors) gets ESC
            sequences, the C1 CSI (U+009B), bidi overrides and isolates (U+202E, U+2066),
            <script>, <img onerror> and <!--<script>
  comment   text values get only "x <!--<script> y" (what blanks an HTML page)
  huge      /health and /devices answer a ~60 MB [{},{},...] (under the old 64 MiB cap)
  bomb      /health answers ~2 MB of {} elements, /devices 30 000 nested arrays
  hang      a job never ends: GET /jobs/{id} says running at progress 0.99 (long-polls
            held up to their wait_s, at most 5 s); DELETE is passed on; health lists the
            pass_deadline feature and jobs a run_deadline_s of 3
  figures   every pass's metrics are non-physical: 1e308, -1e308, -5 by turns
  unauth    every request answered 401 (forbidden: 403)

Requests are counted per path in PORT_FILE.log (one line each: METHOD PATH)."""
import http.client
import http.server
import json
import re
import socketserver
import sys
import threading
import time
import urllib.parse

UPSTREAM = urllib.parse.urlparse(sys.argv[1])
PORT_FILE = sys.argv[2]
MODES = set(sys.argv[3].split(","))
LOG = open(PORT_FILE + ".log", "a", buffering=1)
LOCK = threading.Lock()

EVIL = ("\x1b[2J\x1b]0;pwned\x07\x1b[31m" "\u009b31m" "\u202eevil\u2066x\u2069"
        "<script>alert(1)</script><img src=x onerror=alert(2)><!--<script>")
COMMENT = "x <!--<script> y"
# Members whose text the controller matches or parses: left as the agent sent them.
KEEP = {"name", "device", "started_at", "finished_at", "since", "created_at", "updated_at",
        "code", "unit", "engine", "features", "choices", "mapped_to", "status", "rw",
        "type", "metrics", "metric", "sweep", "sweep_point", "sweep_config", "test", "expires_at", "outcome"}


def evil(s, key):
    if "comment" in MODES:
        return s + " " + COMMENT
    return s + EVIL


def mutate(o, path, key=None):
    if isinstance(o, dict):
        return {k: mutate(v, path, k) for k, v in o.items()}
    if isinstance(o, list):
        return [mutate(v, path, key) for v in o]
    if isinstance(o, str) and key not in KEEP:
        # A job's state is the protocol; a profile device's state is words.
        if key == "state" and path.startswith("/api/v1/jobs"):
            return o
        return evil(o, key)
    return o


def huge_body():
    return b'{"status":"ok","x":[' + b"{}," * (20 * 1024 * 1024) + b"{}]}"


def bomb_body(path):
    if path.startswith("/api/v1/health"):
        return b'{"status":"ok","x":[' + b"{}," * 700000 + b"{}]}"
    return b'{"devices":' + b"[" * 30000 + b"]" * 30000 + b"}"


HUGE = None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def upstream(self, method, body, path=None):
        c = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=90)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() in ("authorization", "content-type", "accept")}
        c.request(method, path or self.path, body=body, headers=hdrs)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, data

    def handle_any(self, method):
        global HUGE
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        path = urllib.parse.urlparse(self.path).path
        with LOCK:
            LOG.write("%s %s\n" % (method, self.path))
        if "unauth" in MODES or "forbidden" in MODES:
            st = 401 if "unauth" in MODES else 403
            msg = {"error": {"code": "unauthorized" if st == 401 else "forbidden",
                             "message": "bad token"}}
            return self.answer(st, json.dumps(msg).encode())
        if "huge" in MODES and method == "GET" and path in ("/api/v1/health", "/api/v1/devices"):
            if HUGE is None:
                HUGE = huge_body()
            return self.answer(200, HUGE)
        if "bomb" in MODES and method == "GET" and path in ("/api/v1/health", "/api/v1/devices"):
            return self.answer(200, bomb_body(path))
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        up = None
        if "hang" in MODES and method == "GET" and re.match(r"^/api/v1/jobs/\d+$", path):
            up = path  # the whole job, at once: the agent's own long-poll is not used
            if "wait_s" in q:
                time.sleep(min(float(q["wait_s"][0]), 5.0))
        status, data = self.upstream(method, body, up)
        try:
            o = json.loads(data) if data else None
        except ValueError:
            o = None
        if o is not None and isinstance(o, dict):
            if "hang" in MODES and path == "/api/v1/health":
                o["features"] = (o.get("features") or []) + ["pass_deadline"]
            if "hang" in MODES and path.startswith("/api/v1/jobs") and "id" in o:
                o["run_deadline_s"] = 3  # what an agent that ends hung passes says
            if "hang" in MODES and method == "GET" and re.match(r"^/api/v1/jobs/\d+$", path):
                o["state"] = "running"
                o["progress"] = 0.99
                o.pop("finished_at", None)
                o.pop("error", None)
            if "figures" in MODES and path.startswith("/api/v1/jobs/"):
                bad = [1e308, -1e308, -5.0]
                for i, ps in enumerate(o.get("passes") or []):
                    m = ps.get("metrics") if isinstance(ps, dict) else None
                    if isinstance(m, dict):
                        for k in m:
                            if isinstance(m[k], (int, float)):
                                m[k] = bad[i % 3]
            if "escapes" in MODES or "comment" in MODES:
                o = mutate(o, path)
            data = json.dumps(o).encode()
        self.answer(status, data)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a controller that hangs up on a huge answer is what the tests want


srv = Server(("127.0.0.1", 0), Handler)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402

os.rename(PORT_FILE + ".tmp", PORT_FILE)
srv.serve_forever()
