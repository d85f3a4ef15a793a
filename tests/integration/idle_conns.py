#!/usr/bin/env python3
"""idle_conns.py PORT N HOLD_S [ADDRS] -- open N TCP connections to 127.0.0.1:PORT that never
send a byte, from ADDRS loopback source addresses in turn (127.0.0.10, .11, ...; default 1:
127.0.0.1 only), print "opened", and hold them HOLD_S seconds. For it_http_limits.sh and
bench/soak.sh."""
import socket
import sys
import time

port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
addrs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
held = []
for k in range(n):
    s = socket.socket()
    s.bind(("127.0.0.1" if addrs == 1 else "127.0.0.%d" % (10 + k % addrs), 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    held.append(s)
print("opened", flush=True)
time.sleep(hold)
