#!/usr/bin/env python3
"""tests/helpers/kb-upstream.py — an upstream for the egress tests, on
127.0.0.1 only: it logs every TCP connection it accepts ("ACCEPT", before
any TLS), every TLS server name it is asked for ("SNI name") and every
request ("REQ METHOD PATH host=HOST"), so that a test can tell from outside
whether a byte of a refused request reached it.

  kb-upstream.py --log FILE --port-file FILE [--tls CERT KEY] [--root DIR]
                 [--ignore-close]

Routes: /hello (a line), /headers (the request's headers, one a line),
/redirect?to=URL (302 to URL), /big?n=BYTES (that many bytes, streamed),
and anything else a file under --root (git's dumb HTTP, a pip index).
--ignore-close: it answers every request it reads on a connection, as if
"Connection: close" were not there.
"""
import argparse
import os
import socket
import ssl
import sys
import threading
import urllib.parse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ARGS = None


def log(line):
    with LOCK:
        with open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")


class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def __init__(self, *a, **kw):
        super().__init__(*a, directory=ARGS.root, **kw)

    def log_message(self, *a):  # quiet: the log file says what counts
        pass

    def handle(self):
        if not ARGS.ignore_close:
            return super().handle()
        # a server that answers every request it reads, "Connection:
        # close" or not (what a pipelined request would meet)
        while True:
            self.handle_one_request()
            if not self.raw_requestline or self.wfile.closed:
                return

    def _reply(self, code, body, ctype="text/plain", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self):
        log("REQ %s %s host=%s" % (self.command, self.path,
                                   self.headers.get("Host", "")))
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/hello":
            self._reply(200, b"hello from upstream\n")
            return True
        if u.path == "/headers":
            body = "".join("%s: %s\n" % (k, v) for k, v in self.headers.items())
            self._reply(200, body.encode())
            return True
        if u.path == "/redirect":
            self._reply(302, b"moved\n", extra=[("Location", q["to"][0])])
            return True
        if u.path == "/big":
            n = int(q.get("n", ["0"])[0])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n))
            self.end_headers()
            chunk = b"k" * (1 << 20)
            while n > 0:
                m = min(n, len(chunk))
                self.wfile.write(chunk[:m])
                n -= m
            return True
        return False

    def do_GET(self):
        if not self._route():
            super().do_GET()

    def do_HEAD(self):
        if not self._route():
            super().do_HEAD()

    def _chunked(self):
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0], 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b""):
                    pass
                return body
            body += self.rfile.read(size)
            self.rfile.readline()

    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = self._chunked()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        log("REQ POST %s host=%s body=%d" % (self.path,
                                             self.headers.get("Host", ""), len(body)))
        self._reply(200, b"got %d bytes\n" % len(body))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    ctx = None

    def get_request(self):
        sock, addr = self.socket.accept()
        log("ACCEPT")
        if self.ctx is not None:
            sock = self.ctx.wrap_socket(sock, server_side=True)
        return sock, addr

    def handle_error(self, request, client_address):
        pass  # a refused or cut tunnel is not the server's concern


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--root", default=os.getcwd())
    p.add_argument("--ignore-close", action="store_true")
    ARGS = p.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    if ARGS.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.tls[0], ARGS.tls[1])

        def sni(_sock, name, _ctx):
            log("SNI %s" % name)
        ctx.sni_callback = sni
        srv.ctx = ctx
    # the TLS handshake happens in the handler's thread, not the accept
    if ARGS.tls:
        orig = srv.ctx

        def get_request():
            sock, addr = srv.socket.accept()
            log("ACCEPT")
            return orig.wrap_socket(sock, server_side=True,
                                    do_handshake_on_connect=False), addr
        srv.get_request = get_request
    with open(ARGS.port_file + ".tmp", "w", encoding="utf-8") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)
    sys.stdout.close()
    srv.serve_forever()


if __name__ == "__main__":
    main()
