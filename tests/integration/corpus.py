#!/usr/bin/env python3
"""corpus.py -- send every case of tests/corpus/bad_requests.txt to a running agent, byte for
byte, and check after each one: the status, a JSON error body with a code and a message, every
file of /sys/block/DEV/queue unchanged, every table of the agent's database unchanged (the
audit rows of a write the kernel refused excepted). Run by it_corpus.sh, which sets up the
agent and the fixtures and passes them in the environment (CORPUS_*).

Prints one line per case ("ok", "not ok", and for tagged cases "waiting" / "passes now"),
then a summary; exits 1 when an untagged case fails."""
import json
import os
import re
import socket
import sqlite3
import sys

ENV = os.environ
PORT = int(ENV["CORPUS_PORT"])
DB = ENV["CORPUS_DB"]
DEVICES = ENV["CORPUS_DEVICES"].split()
PLACES = {
    "dev": ENV["CORPUS_DEV"],
    "ro": ENV["CORPUS_RO"],
    "dir": ENV["CORPUS_DIR"],
    "job": ENV["CORPUS_JOB"],
    "session": ENV["CORPUS_SESSION"],
    "open": ENV["CORPUS_OPEN"],
    "token": ENV["CORPUS_TOKEN"],
    "tokenprefix": ENV["CORPUS_TOKEN"][: len(ENV["CORPUS_TOKEN"]) // 2],
}
CODE_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def expand(field):
    """Placeholders, then the escapes \\\\ \\t \\n \\r \\xHH; returns bytes."""
    def repl(m):
        name = m.group(1)
        if name.startswith("repeat:"):
            _, text, n = name.split(":", 2)
            return text * int(n)
        return PLACES[name]

    text = re.sub(r"\{([a-z]+(?::[^:}]*:[0-9]+)?)\}", repl, field)
    out = bytearray()
    raw = text.encode()
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):  # backslash
            n = raw[i + 1]
            if n == ord("x") and i + 3 < len(raw):
                out.append(int(raw[i + 2 : i + 4], 16))
                i += 4
                continue
            if n not in b"tnr\\":
                raise ValueError("bad escape \\%c in %r" % (n, field))
            out.append({ord("t"): 9, ord("n"): 10, ord("r"): 13, 0x5C: 0x5C}[n])
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


def request(method, path, headers, body):
    """Send one request; returns (status, body bytes)."""
    auth = b"Authorization: Bearer " + PLACES["token"].encode()
    lines = []
    if headers != "-":
        for h in headers.split(" ;; "):
            if h == "noauth":
                auth = None
            elif h.lower().startswith("authorization:"):
                auth = expand(h)
            else:
                lines.append(expand(h))
    data = b"" if body == "-" else expand(body)
    head = [expand(method) + b" " + expand(path) + b" HTTP/1.1", b"Host: 127.0.0.1",
            b"Connection: close"]
    if auth is not None:
        head.append(auth)
    head += lines
    framed = any(h.lower().startswith((b"content-length:", b"transfer-encoding:")) for h in lines)
    if body != "-":
        head.append(b"Content-Type: application/json")
        if not framed:
            head.append(b"Content-Length: %d" % len(data))
    s = socket.create_connection(("127.0.0.1", PORT), timeout=60)
    s.sendall(b"\r\n".join(head) + b"\r\n\r\n" + data)
    resp = bytearray()
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        resp += chunk
    s.close()
    head, _, payload = bytes(resp).partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(m.group(1)) if m else 0), payload


def sysfs_snapshot():
    snap = {}
    for dev in DEVICES:
        top = "/sys/block/%s/queue" % dev
        for root, _, files in os.walk(top):
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    with open(path, "rb") as f:
                        snap[path] = f.read()
                except OSError:
                    pass
    return snap


def db_snapshot():
    """{table: rows}; "changes" separately as (max id, rows)."""
    con = sqlite3.connect("file:%s?mode=ro" % DB, uri=True, timeout=30)
    tables = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    snap = {t: con.execute('SELECT * FROM "%s"' % t.replace('"', '""')).fetchall()
            for t in tables}
    con.close()
    return snap


def changes_before(rows, max_id):
    return [r for r in rows if r[0] <= max_id]


def error_body_ok(payload):
    try:
        o = json.loads(payload)
        e = o["error"]
        return (isinstance(e["code"], str) and CODE_RE.match(e["code"])
                and isinstance(e["message"], str) and e["message"] != ""), e["code"]
    except (ValueError, KeyError, TypeError):
        return False, None


def main():
    cases = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) not in (5, 6):
                print("bad corpus line %d: %d fields" % (n, len(fields)))
                return 2
            cases.append((n, fields))
    counts = {"ok": 0, "fail": 0}
    tagged = {}
    sys_before, db_before = sysfs_snapshot(), db_snapshot()
    for n, fields in cases:
        method, path, headers, body, want = fields[:5]
        tags = fields[5].split() if len(fields) == 6 else []
        desc = "line %d: %s %s" % (n, method, path if len(path) < 90 else path[:87] + "...")
        status, payload = request(method, path, headers, body)
        problems = []
        if status != int(want):
            problems.append("status %d, expected %s" % (status, want))
        good, code = error_body_ok(payload)
        if not good and "mhd" not in tags:
            problems.append("body is not a JSON error with a code and a message: %r"
                            % payload[:160])
        sys_after, db_after = sysfs_snapshot(), db_snapshot()
        changed = sorted(p for p in set(sys_before) | set(sys_after)
                         if sys_before.get(p) != sys_after.get(p))
        if changed:
            problems.append("sysfs changed: " + ", ".join(
                "%s %r -> %r" % (p, sys_before.get(p), sys_after.get(p)) for p in changed[:4]))
        for t in sorted(set(db_before) | set(db_after)):
            before, after = db_before.get(t, []), db_after.get(t, [])
            if t == "changes" and code == "kernel_rejected":
                max_id = max([r[0] for r in before], default=0)
                if changes_before(after, max_id) == before:
                    continue
            # The write was attempted: its apply was recorded and removed again (the
            # applies table is as before), which advances the applies id counter.
            if t == "sqlite_sequence" and code == "kernel_rejected":
                continue
            if before != after:
                problems.append("table %s changed (%d -> %d rows)" % (t, len(before), len(after)))
        sys_before, db_before = sys_after, db_after
        if tags and tags != ["mhd"]:
            key = " ".join(tags)
            tagged.setdefault(key, {"waiting": [], "passing": []})
            tagged[key]["passing" if not problems else "waiting"].append(n)
            print("%s [%s] - %s%s" % ("passes now" if not problems else "waiting", key, desc,
                                      (": " + "; ".join(problems)) if problems else ""))
            continue
        if problems:
            counts["fail"] += 1
            print("not ok - %s: %s" % (desc, "; ".join(problems)))
        else:
            counts["ok"] += 1
            print("ok - %s -> %d %s" % (desc, status, code if code else
                                        "(libmicrohttpd's own answer)"))
    total = len(cases)
    print("corpus: %d cases; untagged: %d passed, %d failed" % (total, counts["ok"],
                                                                 counts["fail"]))
    for key, r in sorted(tagged.items()):
        print("corpus: tagged %-10s %d waiting (lines %s), %d pass already%s" % (
            key, len(r["waiting"]), ",".join(map(str, r["waiting"])) or "-", len(r["passing"]),
            " (lines %s: the tag can go)" % ",".join(map(str, r["passing"]))
            if r["passing"] else ""))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
