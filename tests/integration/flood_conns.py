#!/usr/bin/env python3
"""flood_conns.py PORT FIRST_ADDR N_ADDRS PER_ADDR SECONDS -- a fleet of clients hoarding an
agent's connection slots: PER_ADDR TCP connections to 127.0.0.1:PORT from each of N_ADDRS
loopback addresses (127.0.0.FIRST_ADDR, ...), none of which ever sends a byte; a connection the
agent closes is opened again at once. Prints "opened" once all were opened the first time, then
after SECONDS, or at SIGTERM (the test is done with it), "reopened N" (how many the agent closed
and were opened again) and exits. For
it_http_limits.sh (issue 31 item 12)."""
import selectors
import signal
import socket
import sys
import time

port, first, naddrs, per, secs = (int(a) for a in sys.argv[1:6])
sel = selectors.DefaultSelector()


def open_from(addr):
    s = socket.socket()
    s.bind((addr, 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    sel.register(s, selectors.EVENT_READ, addr)


for k in range(naddrs):
    for _ in range(per):
        open_from("127.0.0.%d" % (first + k))
print("opened", flush=True)
reopened = 0
until = time.monotonic() + secs
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
while time.monotonic() < until and not stop:
    for key, _ in sel.select(timeout=0.2):
        s, addr = key.fileobj, key.data
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if data:
            continue
        sel.unregister(s)
        s.close()
        open_from(addr)
        reopened += 1
print("reopened %d" % reopened, flush=True)
