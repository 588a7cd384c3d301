#!/usr/bin/env python3
"""A reference memory service for Memory Workbench (protocol memory-workbench/1).

Standard library only: BM25 over the conversation's turns, served either as JSON lines on
stdio (the default; the workbench starts it with --memory-command "python3 memory_service.py")
or over HTTP on 127.0.0.1 (--http [--port N]; prints "listening on http://127.0.0.1:N").

The protocol is in docs/memory-protocol.md and docs/memory-protocol.schema.json. Copy this file
and replace the Bm25Memory class with your own memory system; the transports stay as they are.
"""

import argparse
import json
import math
import re
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROTOCOL = "memory-workbench/1"
NAME = "bm25-python"
VERSION = "1.0.0"

K1 = 1.2
B = 0.75
TOKEN = re.compile(r"[a-z0-9]+")
# Words too common to say anything about which turn answers a question.
STOPWORDS = frozenset(
    "a an the and or but of to in on at for with by from is are was were be been being do does "
    "did have has had i you he she it we they me him her us them my your his its our their this "
    "that these those what when where who whom which why how there here as so if than then not "
    "no yes can could would should will shall may might must just about into over also too very".split()
)


def tokens(text):
    return [t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


class ProtocolError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Bm25Memory:
    """One conversation: every turn is a document; Okapi BM25 ranks them for a question."""

    def __init__(self, sample_id, speakers):
        self.sample_id = sample_id
        self.speakers = speakers
        self.turns = []  # dicts: dia_id, speaker, text, date_time, tf, length
        self.df = {}
        self.total_length = 0

    def insert(self, packet):
        for turn in packet["turns"]:
            toks = tokens(turn["speaker"] + " " + turn["text"])
            tf = {}
            for t in toks:
                tf[t] = tf.get(t, 0) + 1
            for t in tf:
                self.df[t] = self.df.get(t, 0) + 1
            self.total_length += len(toks)
            self.turns.append(
                {
                    "dia_id": turn["dia_id"],
                    "speaker": turn["speaker"],
                    "text": turn["text"],
                    # The conversation's own clock, never the wall clock.
                    "date_time": packet.get("date_time"),
                    "tf": tf,
                    "length": len(toks),
                }
            )

    def retrieve(self, question, top_k):
        n = len(self.turns)
        if n == 0:
            return []
        avg = self.total_length / n if self.total_length > 0 else 1.0
        query = list(dict.fromkeys(tokens(question)))
        scored = []
        for position, turn in enumerate(self.turns):
            score = 0.0
            for t in query:
                f = turn["tf"].get(t, 0)
                if f == 0:
                    continue
                df = self.df[t]
                idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
                score += idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * turn["length"] / avg))
            if score > 0.0:
                scored.append((-score, position, turn))
        scored.sort(key=lambda s: (s[0], s[1]))
        return [
            {
                "text": turn["speaker"] + ": " + turn["text"],
                "score": -neg,
                "dia_ids": [turn["dia_id"]],
                "speaker": turn["speaker"],
                "date_time": turn["date_time"],
            }
            for neg, _, turn in scored[:top_k]
        ]


class Service:
    """The protocol's methods over any number of open conversations (sessions)."""

    def __init__(self):
        self.sessions = {}
        self.lock = threading.Lock()

    def session(self, params):
        memory = self.sessions.get(params.get("session"))
        if memory is None:
            raise ProtocolError("UNKNOWN_SESSION", "no open session %r" % params.get("session"))
        return memory

    def handle(self, method, params):
        if not isinstance(params, dict):
            raise ProtocolError("INVALID_REQUEST", "params must be an object")
        with self.lock:
            if method == "hello":
                if params.get("protocol") != PROTOCOL:
                    raise ProtocolError("UNSUPPORTED", "this service speaks " + PROTOCOL)
                return {
                    "protocol": PROTOCOL,
                    "name": NAME,
                    "version": VERSION,
                    "description": "BM25 over turns (Python standard library reference service)",
                    "capabilities": {"retrieve": True, "answer": False, "reset": True, "snapshot": False},
                }
            if method == "open":
                session = uuid.uuid4().hex
                self.sessions[session] = Bm25Memory(params["sample_id"], params["speakers"])
                return {"session": session}
            if method == "insert":
                self.session(params).insert(params["packet"])
                return {}
            if method == "retrieve":
                memory = self.session(params)
                return {"items": memory.retrieve(params["question"], int(params["top_k"]))}
            if method == "reset":
                old = self.session(params)
                self.sessions[params["session"]] = Bm25Memory(old.sample_id, old.speakers)
                return {}
            if method == "close":
                self.sessions.pop(params.get("session"), None)
                return {}
            raise ProtocolError("UNSUPPORTED", "no method %r" % method)

    def respond(self, method, params):
        """(result, None) or (None, error object)."""
        try:
            return self.handle(method, params), None
        except ProtocolError as e:
            return None, {"code": e.code, "message": e.message}
        except (KeyError, TypeError, ValueError) as e:
            return None, {"code": "INVALID_REQUEST", "message": "%s: %r" % (type(e).__name__, e)}


def serve_stdio(service):
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
            request_id = request["id"]
            method = request["method"]
            params = request.get("params", {})
        except (ValueError, KeyError, TypeError) as e:
            print(json.dumps({"id": None, "error": {"code": "INVALID_REQUEST", "message": str(e)}}), flush=True)
            continue
        result, error = service.respond(method, params)
        reply = {"id": request_id, "error": error} if error else {"id": request_id, "result": result}
        # stdout carries responses only; logs go to stderr.
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def serve_http(service, port):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as separate writes; with Nagle on, each reply waits ~40 ms.
        disable_nagle_algorithm = True

        def do_POST(self):
            method = self.path.strip("/").split("/")[-1]
            try:
                length = int(self.headers.get("content-length", "0"))
                params = json.loads(self.rfile.read(length) or b"{}")
            except ValueError as e:
                self.reply(400, {"error": {"code": "INVALID_REQUEST", "message": str(e)}})
                return
            result, error = service.respond(method, params)
            if error:
                status = 404 if error["code"] in ("UNKNOWN_SESSION", "UNSUPPORTED") else 400
                self.reply(status, {"error": error})
            else:
                self.reply(200, result)

        def reply(self, status, body):
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", action="store_true", help="serve HTTP on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=0, help="HTTP port (default: any free port)")
    args = parser.parse_args()
    service = Service()
    if args.http:
        serve_http(service, args.port)
    else:
        serve_stdio(service)


if __name__ == "__main__":
    main()
