"""A stand-in for a Lambda function fed by a Kinesis event source mapping, for Kura's
trigger tests: `kinesis_recorder.py OUT` reads one event on stdin.

Each record becomes a JSON line in OUT (synced before it answers): {"seq", "pk", "data",
"shape"}, where `shape` is the record's members besides `kinesis`. Data (JSON) with
`poison`, or a DynamoDB change whose NewImage has it, fails the whole invocation (exit
status 1)."""

import base64
import json
import os
import sys


def main():
    out = sys.argv[1]
    event = json.load(sys.stdin)
    records = event.get("Records", [])
    decoded = [json.loads(base64.b64decode(r["kinesis"]["data"])) for r in records]
    if any(d.get("poison") or d.get("dynamodb", {}).get("NewImage", {}).get("poison")
           for d in decoded):
        print("poison record", file=sys.stderr)
        sys.exit(1)
    with open(out, "a") as f:
        for r, d in zip(records, decoded):
            shape = {k: v for k, v in r.items() if k != "kinesis"}
            shape["kinesisKeys"] = sorted(r["kinesis"])
            f.write(json.dumps({"seq": r["kinesis"]["sequenceNumber"],
                                "pk": r["kinesis"]["partitionKey"], "data": d,
                                "shape": shape}) + "\n")
        f.flush()
        os.fsync(f.fileno())
    print("{}")


if __name__ == "__main__":
    main()
