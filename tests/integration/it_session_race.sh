#!/usr/bin/env bash
# it_session_race.sh -- one open session per device under real concurrency: 10 rounds of 40
# POST /devices/DEV/sessions sent at once from 40 threads of one process (curl processes
# serialise): exactly one 201 per round, the other 39 are 409 conflict, one session is open.
. "$(dirname "$0")/lib.sh"
it_need_root_sysfs
command -v python3 >/dev/null || it_skip "python3 not installed"

dev=$(it_loop_create 64M)
it_agent_start a --allow-device "$dev" || exit 1

out=$(python3 - "${a_URL##*:}" "$a_TOKEN" "$dev" <<'PY'
import http.client, json, sys, threading

port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
H = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}


def call(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, body=body, headers=H)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


for rnd in range(10):
    go = threading.Barrier(40)
    got = []
    lock = threading.Lock()

    def opener():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.connect()  # connected before the barrier: the requests leave together
        go.wait()
        c.request("POST", "/api/v1/devices/%s/sessions" % dev, body='{"ttl_s":60}', headers=H)
        r = c.getresponse()
        body = json.loads(r.read())
        c.close()
        with lock:
            got.append((r.status, body))

    threads = [threading.Thread(target=opener) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    created = [b["id"] for s, b in got if s == 201]
    conflicts = [b for s, b in got if s == 409 and b["error"]["code"] == "conflict"]
    status, body = call("GET", "/api/v1/sessions?state=open&device=" + dev)
    open_now = len(json.loads(body)["sessions"])
    print("round %d: %d created, %d conflict, %d other, %d open" % (
        rnd + 1, len(created), len(conflicts), 40 - len(created) - len(conflicts), open_now))
    for sid in created:
        call("DELETE", "/api/v1/sessions/%d" % sid)
PY
)
echo "$out" | sed 's/^/# /'
it_eq "10 rounds ran" 10 "$(echo "$out" | grep -c '^round')"
it_eq "every round: one 201, 39 conflicts, one open session" 10 \
	"$(echo "$out" | grep -c ': 1 created, 39 conflict, 0 other, 1 open$')"
it_http GET "$a_URL/api/v1/sessions?state=open" "$a_TOKEN"
it_eq "no session left open" 0 "$(echo "$HTTP_BODY" | jq '.sessions | length')"
it_done
