#!/usr/bin/env python3
"""dryrun_load.py -- health latency while clients keep the agent busy with filesystem dry runs.

usage: dryrun_load.py URL TOKEN CLIENTS SECONDS BODY_JSON

CLIENTS threads POST BODY_JSON to URL/api/v1/jobs?dry_run=true one after another for SECONDS;
one more thread GETs URL/api/v1/health every 0.1 s meanwhile (10 s timeout). Prints one line:
"health n=N p50=S p95=S max=S timeouts=T dry_runs=D statuses=CODE:COUNT,...", times in seconds.
"""
import http.client
import sys
import threading
import time
from urllib.parse import urlparse


def main():
    url, token, clients, seconds, body = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    u = urlparse(url)
    stop = time.monotonic() + seconds
    statuses = {}
    lock = threading.Lock()
    lat = []
    timeouts = [0]

    def dry():
        while time.monotonic() < stop:
            try:
                c = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
                c.request("POST", "/api/v1/jobs?dry_run=true", body,
                          {"Authorization": "Bearer " + token, "Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                code = r.status
                c.close()
            except Exception:
                code = "error"
            with lock:
                statuses[code] = statuses.get(code, 0) + 1

    def health():
        while time.monotonic() < stop:
            t0 = time.monotonic()
            try:
                c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
                c.request("GET", "/api/v1/health", headers={"Authorization": "Bearer " + token})
                c.getresponse().read()
                c.close()
                lat.append(time.monotonic() - t0)
            except Exception:
                timeouts[0] += 1
                lat.append(time.monotonic() - t0)
            time.sleep(0.1)

    ts = [threading.Thread(target=dry) for _ in range(clients)] + [threading.Thread(target=health)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    lat.sort()
    n = len(lat)
    pct = lambda q: lat[min(n - 1, int(q * n))] if n else 0
    print("health n=%d p50=%.3f p95=%.3f max=%.3f timeouts=%d dry_runs=%d statuses=%s" % (
        n, pct(0.5), pct(0.95), lat[-1] if n else 0, timeouts[0], sum(statuses.values()),
        ",".join("%s:%d" % (k, v) for k, v in sorted(statuses.items(), key=str))))


main()
