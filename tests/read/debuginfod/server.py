#!/usr/bin/python3
"""Misbehaving debuginfod servers for the tests, on 127.0.0.1.

  server.py PORTFILE hang           accepts connections, never answers
  server.py PORTFILE garbage        200 with bytes that are no ELF file
  server.py PORTFILE file PATH      200 with PATH's bytes for any build-id
  server.py PORTFILE record LOG     404 for everything, each path logged
  server.py PORTFILE slow PATH      PATH's bytes, trickled over about 3 s

The port chosen by the kernel is written to PORTFILE once listening.  With
$SERVER_LOG set, every mode but hang appends each path it is asked to it.
"""
import http.server
import os
import socket
import sys
import time

portfile, mode = sys.argv[1], sys.argv[2]
arg = sys.argv[3] if len(sys.argv) > 3 else None


def announce(port):
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % port)
    os.rename(portfile + ".tmp", portfile)


if mode == "hang":
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    announce(s.getsockname()[1])
    held = []
    while True:
        held.append(s.accept()[0])


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if os.environ.get("SERVER_LOG"):
            with open(os.environ["SERVER_LOG"], "a") as f:
                f.write(self.path + "\n")
        if mode == "record":
            with open(arg, "a") as f:
                f.write(self.path + "\n")
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = os.urandom(8192) if mode == "garbage" else open(arg, "rb").read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode != "slow":
            self.wfile.write(body)
            return
        step = max(1, len(body) // 15)
        for i in range(0, len(body), step):
            self.wfile.write(body[i:i + step])
            self.wfile.flush()
            time.sleep(0.2)


httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
announce(httpd.server_address[1])
httpd.serve_forever()
