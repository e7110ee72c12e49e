"""A stand-in for a Lambda function, for Kura's trigger tests.

    recorder.py http PORT OUT [--report] [--always-fail]   serve Lambda's invoke shape
    recorder.py command OUT                                read one event on stdin

Each record the function takes becomes a JSON line in OUT (synced before it answers):
{"pk", "v", "seq", "event", "batch", "size"}. A record whose NewImage has `poison` true
fails the whole invocation (HTTP: 200 with X-Amz-Function-Error, as the Runtime Interface
Emulator answers; command: exit status 1). With --report, a record whose NewImage has
`flaky` is reported in batchItemFailures the first time it is seen (and nothing of the
batch from it on is recorded). With --always-fail every invocation answers 500.
"""

import http.server
import json
import os
import sys
import uuid

seen_flaky = set()


def value(image, name):
    attr = (image or {}).get(name)
    if not attr:
        return None
    return next(iter(attr.values()))


def handle(event, out, report):
    records = event.get("Records", [])
    if any(value(r["dynamodb"].get("NewImage"), "poison") is True for r in records):
        return None
    batch = uuid.uuid4().hex
    taken = []
    failed = []
    for r in records:
        seq = r["dynamodb"]["SequenceNumber"]
        if report and value(r["dynamodb"].get("NewImage"), "flaky") and seq not in seen_flaky:
            seen_flaky.add(seq)
            failed.append({"itemIdentifier": seq})
            break
        taken.append(r)
    with open(out, "a") as f:
        for r in taken:
            image = r["dynamodb"].get("NewImage") or {}
            f.write(json.dumps({
                "pk": value(r["dynamodb"]["Keys"], "pk"),
                "v": value(image, "v"),
                "seq": r["dynamodb"]["SequenceNumber"],
                "event": r["eventName"],
                "source": r.get("eventSourceARN"),
                "batch": batch,
                "size": len(records),
            }) + "\n")
        f.flush()
        os.fsync(f.fileno())
    return {"batchItemFailures": failed}


def serve(port, out, report, always_fail):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if always_fail:
                self.send_response(500)
                self.end_headers()
                return
            answer = handle(json.loads(body), out, report)
            self.send_response(200)
            if answer is None:
                self.send_header("X-Amz-Function-Error", "Unhandled")
                answer = {"errorMessage": "poison", "errorType": "Error"}
            payload = json.dumps(answer).encode()
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


def main():
    if sys.argv[1] == "http":
        serve(int(sys.argv[2]), sys.argv[3], "--report" in sys.argv, "--always-fail" in sys.argv)
    else:
        answer = handle(json.load(sys.stdin), sys.argv[2], False)
        if answer is None:
            print("poison", file=sys.stderr)
            sys.exit(1)
        print(json.dumps(answer))


if __name__ == "__main__":
    main()
