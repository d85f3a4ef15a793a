#!/usr/bin/env python3
"""raw_http.py PORT TIMEOUT_S -- send stdin (with "\\n" turned into CRLF) as one raw request to
127.0.0.1:PORT and print the status line's code, then "closed" if the agent closed the
connection after its answer (else "open"), or "timeout" if no answer came within TIMEOUT_S.
For the framing tests (it_http_holds.sh)."""
import socket
import sys
import time

port, timeout = int(sys.argv[1]), float(sys.argv[2])
data = sys.stdin.buffer.read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
s = socket.create_connection(("127.0.0.1", port))
s.sendall(data)
s.settimeout(timeout)
buf = b""
until = time.time() + timeout
try:
    while b"\r\n\r\n" not in buf and time.time() < until:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
except socket.timeout:
    pass
if not buf.startswith(b"HTTP/"):
    print("timeout" if b"\r\n\r\n" not in buf and time.time() >= until else "closed-without-answer")
    sys.exit(0)
print(buf.split(b" ", 2)[1].decode())
if len(sys.argv) > 3:
    sys.stderr.write(buf.decode(errors="replace") + "\n")
# After the answer: does the connection close within 2 s?
s.settimeout(2)
state = "open"
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            state = "closed"
            break
except socket.timeout:
    pass
except OSError:
    state = "closed"
print(state)
