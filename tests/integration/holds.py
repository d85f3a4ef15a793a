#!/usr/bin/env python3
"""holds.py PORT PATH TOKEN N ADDRS ANSWER_S HOLD_S -- open N connections from each of the
loopback source addresses 127.0.0.2 .. 127.0.0.(ADDRS+1), send "GET PATH" with the bearer
token (TOKEN "-": none) on each, and wait ANSWER_S seconds for answers. Prints "opened", then
one line per status seen ("503 12" ...) and "unanswered N"; then keeps the unanswered
connections open HOLD_S seconds (until killed), so that the agent holds them. For
it_http_holds.sh."""
import selectors
import socket
import sys
import time

port, path, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n, addrs, answer_s, hold_s = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
auth = "" if token == "-" else "Authorization: Bearer %s\r\n" % token
req = ("GET %s HTTP/1.1\r\nHost: a\r\n%s\r\n" % (path, auth)).encode()
socks = []
for a in range(addrs):
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + a), 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(req)
        except OSError:
            s.close()
            continue
        s.setblocking(False)
        socks.append(s)
print("opened %d" % len(socks), flush=True)
codes, got = {}, {}
until = time.time() + answer_s
open_socks = list(socks)
sel = selectors.DefaultSelector()
for s in socks:
    sel.register(s, selectors.EVENT_READ)
while open_socks and time.time() < until:
    for key, _ in sel.select(max(0.0, until - time.time())):
        s = key.fileobj
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if data:
            got[s] = got.get(s, b"") + data
            if b"\r\n\r\n" not in got[s]:
                continue
        head = got.get(s, b"")
        code = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "closed"
        codes[code] = codes.get(code, 0) + 1
        open_socks.remove(s)
        sel.unregister(s)
for c in sorted(codes):
    print(c, codes[c], flush=True)
print("unanswered %d" % len(open_socks), flush=True)
time.sleep(hold_s)
