#!/usr/bin/env python3
"""ClickHouse's HTTP interface served by chdb, the current ClickHouse engine as a library (PyPI `chdb`).

Only ClickHouse 18.16 installs on our machines, while users run current releases. This server lets the real
@clickhouse/client, the services and the integration tests send their SQL, settings and inserts to a current
engine unchanged (docs/testing.md). It is a test tool: one session, one statement at a time, no authentication,
loopback only; `query_id` is not passed on, so `system.processes` never shows a statement by the id it was sent with.

usage: chdb-http.py PORT DATA_DIR
"""
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from chdb import session as chdb_session

# URL parameters of the HTTP interface that are not settings.
NOT_SETTINGS = {"query", "database", "query_id", "session_id", "default_format", "user", "password"}
SETTING_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
DATABASE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
ERROR_CODE = re.compile(r"Code: (\d+)")


def literal(value):
    if NUMBER.match(value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Engine:
    def __init__(self, path):
        self.session = chdb_session.Session(path)
        self.lock = threading.Lock()

    def run(self, sql, params):
        """Runs one statement with the request's database and settings, and puts the session back as it was."""
        database = params.get("database", "default")
        settings = {k: v for k, v in params.items() if k not in NOT_SETTINGS}
        if not DATABASE_NAME.match(database):
            raise ValueError(f"Code: 81. DB::Exception: Database {database!r} does not exist. (UNKNOWN_DATABASE)")
        for name in settings:
            if not SETTING_NAME.match(name):
                raise ValueError(f"Code: 115. DB::Exception: Unknown setting {name!r}. (UNKNOWN_SETTING)")
        with self.lock:
            self.session.query(f"USE `{database}`")
            applied = []
            try:
                for name, value in settings.items():
                    self.session.query(f"SET {name} = {literal(value)}")
                    applied.append(name)
                result = self.session.query(sql, params.get("default_format", "TabSeparated"))
                return result.bytes() if result is not None else b""
            finally:
                # Each reset on its own: one that fails must neither hide the statement's answer nor leave the
                # other settings to the next request.
                for name in applied:
                    try:
                        self.session.query(f"SET {name} = DEFAULT")
                    except Exception as err:  # noqa: BLE001
                        print(f"chdb-http: could not reset {name}: {err}", file=sys.stderr, flush=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    engine = None

    def log_message(self, format, *args):
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        # The client streams inserts, which Node sends chunked; the standard library does not decode that.
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path in ("/ping", "/"):
            return self.reply(200, b"Ok.\n")
        self.reply(404, b"Not found.\n")

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        params = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        try:
            body = self.read_body().decode("utf-8")
        except (ValueError, UnicodeDecodeError) as err:
            self.close_connection = True
            return self.reply(400, f"Code: 27. DB::Exception: Cannot read the request: {err}. (CANNOT_PARSE_INPUT)\n".encode())
        # Inserts send the statement in the URL and the rows in the body, which ClickHouse reads as inline data.
        sql = params["query"] + "\n" + body if "query" in params else body
        try:
            self.reply(200, self.engine.run(sql, params))
        except Exception as err:  # noqa: BLE001 - every engine error is the client's answer, as from a server
            message = str(err)
            code = ERROR_CODE.search(message)
            headers = [("X-ClickHouse-Exception-Code", code.group(1))] if code else []
            self.reply(500, (message + "\n").encode("utf-8"), headers)


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    Handler.engine = Engine(path)
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"chdb-http: ClickHouse {Handler.engine.run('SELECT version()', {}).decode().strip()} on :{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
