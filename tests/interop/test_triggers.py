"""Stream triggers (docs/triggers.md): Kura delivers a table's stream to a real HTTP
function (a Python server speaking Lambda's invoke shape) and to a command, with batching,
filtering, retries, bisecting, partial batch responses and failure destinations, on streams
with parallel shards that split, across kill -9 of Kura and of the function."""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import boto3
import pytest

from conftest import KURA_BIN

FUNCTION = pathlib.Path(__file__).parent / "functions" / "recorder.py"
BINARY = KURA_BIN


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Kura:
    """`kura serve` on a data directory, killed with SIGKILL and started again at will."""

    def __init__(self, home, args):
        self.home = pathlib.Path(home)
        self.args = args
        self.proc = None
        self.endpoint = None
        self.starts = 0

    def start(self):
        self.starts += 1
        log = self.home / f"kura-{self.starts}.log"
        with open(log, "w") as err:
            self.proc = subprocess.Popen(
                [str(BINARY), "serve", "--port", "0", *self.args],
                stderr=err, stdout=subprocess.DEVNULL, env={**os.environ, "KURA_LOG": "info"})
        for _ in range(300):
            found = re.search(r"kura ready on (http:\S+)", log.read_text())
            if found:
                self.endpoint = found.group(1)
                return self
            assert self.proc.poll() is None, log.read_text()
            time.sleep(0.1)
        raise AssertionError(log.read_text())

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def client(self):
        return boto3.client("dynamodb", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="k", aws_secret_access_key="s")

    def streams(self):
        return boto3.client("dynamodbstreams", endpoint_url=self.endpoint,
                            region_name="us-east-1", aws_access_key_id="k",
                            aws_secret_access_key="s")

    def admin(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.endpoint + path, data=data, method=method)
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                text = r.read().decode()
                return r.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read().decode() or "null")


class HttpFunction:
    """recorder.py serving on a fixed port, killed with SIGKILL and started again."""

    def __init__(self, out, *flags):
        self.port = free_port()
        self.out = out
        self.flags = flags
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, str(FUNCTION), "http", str(self.port), str(self.out), *self.flags],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().startswith("listening")
        return self

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/2015-03-31/functions/function/invocations"


def lines(path):
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def wait_for(what, check, timeout=90):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def create_table(client, name, view="NEW_AND_OLD_IMAGES"):
    client.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": view})


def check_in_order(delivered, finals):
    """Per item: every version from 1 to the final one arrived; a version never arrived
    before its predecessor (a redelivered batch repeats a run it already sent)."""
    per_item = {}
    for line in delivered:
        per_item.setdefault(line["pk"], []).append(int(line["v"]))
    assert sorted(per_item) == sorted(finals), (sorted(per_item), sorted(finals))
    for pk, values in per_item.items():
        highest = 0
        for v in values:
            assert v <= highest + 1, f"{pk}: version {v} before {highest + 1}: {values}"
            highest = max(highest, v)
        assert sorted(set(values)) == list(range(1, finals[pk] + 1)), (pk, values)


def test_http_trigger_survives_kill9_of_kura_and_of_the_function(tmp_path):
    out = tmp_path / "delivered.jsonl"
    function = HttpFunction(out).start()
    triggers = tmp_path / "triggers.json"
    triggers.write_text(json.dumps({"Triggers": [{
        "Name": "to-http",
        "Table": "orders",
        "Function": {"Url": function.url},
        "BatchSize": 10,
        "MaximumBatchingWindowInSeconds": 1,
        "StartingPosition": "TRIM_HORIZON",
        "FilterCriteria": {"Filters": [
            {"Pattern": json.dumps({"dynamodb": {"Keys": {"pk": {"S": [{"prefix": "o"}]}}}})}]},
    }]}))
    kura = Kura(tmp_path, ["--data-dir", str(tmp_path / "data"), "--triggers", str(triggers),
                           "--stream-split-records", "40", "--stream-max-shards", "8"]).start()
    try:
        create_table(kura.client(), "orders")
        finals = {}
        stop = threading.Event()
        errors = []

        def writer(keys):
            client = kura.client()
            while not stop.is_set():
                for pk in keys:
                    try:
                        out_ = client.update_item(
                            TableName="orders", Key={"pk": {"S": pk}},
                            UpdateExpression="ADD v :one",
                            ExpressionAttributeValues={":one": {"N": "1"}},
                            ReturnValues="UPDATED_NEW")
                        finals[pk] = int(out_["Attributes"]["v"]["N"])
                    except Exception as e:  # the server is being killed
                        errors.append(e)
                        time.sleep(0.2)
                        client = kura.client()

        keys = [f"o{i}" for i in range(16)] + [f"x{i}" for i in range(4)]
        threads = [threading.Thread(target=writer, args=(keys[i::2],)) for i in range(2)]
        for t in threads:
            t.start()
        time.sleep(3)
        function.kill9()  # the function dies: batches fail and are retried
        time.sleep(2)
        function.start()
        time.sleep(2)
        kura.kill9()  # Kura dies mid-delivery: checkpoints bring the trigger back
        kura.start()
        time.sleep(3)
        stop.set()
        for t in threads:
            t.join()
        # The last acknowledged values (after the restart the writers read them back).
        client = kura.client()
        finals = {pk: int(client.get_item(TableName="orders", Key={"pk": {"S": pk}},
                                          ConsistentRead=True)["Item"]["v"]["N"])
                  for pk in keys}
        wanted = {pk: v for pk, v in finals.items() if pk.startswith("o")}

        def complete():
            got = {}
            for line in lines(out):
                got[line["pk"]] = max(got.get(line["pk"], 0), int(line["v"]))
            return got == wanted

        wait_for("every version delivered", complete)
        delivered = lines(out)
        check_in_order(delivered, wanted)
        assert all(line["size"] <= 10 for line in delivered), "BatchSize"
        assert not any(line["pk"].startswith("x") for line in delivered), "FilterCriteria"
        assert all(line["source"].startswith("arn:aws:dynamodb:") for line in delivered)

        # The stream had parallel shards and split (a parent with two children).
        arn = client.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
        shards = kura.streams().describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        roots = [s for s in shards if "ParentShardId" not in s]
        assert len(roots) == 4, shards
        parents = [s.get("ParentShardId") for s in shards if "ParentShardId" in s]
        assert any(parents.count(p) == 2 for p in parents), shards

        # Without --trigger-admin, triggers are not created or deleted at run time (a
        # trigger may run a command).
        status, body = kura.admin("POST", "/kura/triggers", {
            "Name": "sneaky", "Table": "orders", "Function": {"Command": ["true"]}})
        assert status == 403 and "--trigger-admin" in body["message"], body
        assert kura.admin("DELETE", "/kura/triggers/to-http")[0] == 403

        # The admin endpoint and the metrics show the trigger's positions and figures.
        status, body = kura.admin("GET", "/kura/triggers/to-http")
        assert status == 200, body
        assert body["Origin"] == "File" and body["State"] == "Enabled"
        assert body["StreamArn"] == arn
        assert len(body["Shards"]) >= 4
        assert all(s.get("Checkpoint") or s["Finished"] for s in body["Shards"])
        with urllib.request.urlopen(kura.endpoint + "/metrics") as r:
            metrics = r.read().decode()
        assert 'kura_trigger_records_delivered_total{trigger="to-http"}' in metrics
        assert 'kura_trigger_iterator_age_seconds{trigger="to-http"}' in metrics
    finally:
        kura.stop()
        function.stop()


def test_command_trigger_bisects_a_poison_record_to_the_failure_table(tmp_path):
    out = tmp_path / "delivered.jsonl"
    triggers = tmp_path / "triggers.json"
    triggers.write_text(json.dumps({"Triggers": [{
        "Name": "to-command",
        "Table": "events",
        "Function": {"Command": [sys.executable, str(FUNCTION), "command", str(out)]},
        "BatchSize": 8,
        "MaximumBatchingWindowInSeconds": 2,
        "BisectBatchOnFunctionError": True,
        "MaximumRetryAttempts": 2,
        "DestinationConfig": {"OnFailure": {"Destination": "table/events-dlq"}},
    }]}))
    # One shard, so that the 20 records make batches of 8 in order.
    kura = Kura(tmp_path, ["--in-memory", "--triggers", str(triggers),
                           "--stream-shards", "1"]).start()
    try:
        client = kura.client()
        create_table(client, "events", view="NEW_IMAGE")
        client.create_table(
            TableName="events-dlq", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
        for i in range(20):
            item = {"pk": {"S": f"e{i:02d}"}, "v": {"N": "1"}}
            if i == 5:
                item["poison"] = {"BOOL": True}
            client.put_item(TableName="events", Item=item)

        def dead_letters():
            return client.scan(TableName="events-dlq")["Items"]

        wait_for("the poison record in the failure table", lambda: dead_letters())
        wait_for("the other records delivered", lambda: len(lines(out)) >= 19)
        delivered = lines(out)
        assert sorted(l["pk"] for l in delivered) == sorted(
            f"e{i:02d}" for i in range(20) if i != 5), delivered
        # Records come in stream order on one shard, redelivery aside.
        firsts = []
        for line in delivered:
            if line["pk"] not in firsts:
                firsts.append(line["pk"])
        assert firsts == sorted(firsts), firsts
        (letter,) = dead_letters()
        info = letter["DDBStreamBatchInfo"]["M"]
        assert info["batchSize"]["N"] == "1", letter
        assert letter["requestContext"]["M"]["condition"]["S"] == "RetryAttemptsExhausted"
        assert letter["records"]["L"][0]["M"]["dynamodb"]["M"]["Keys"]["M"]["pk"]["M"]["S"]["S"] == "e05"
        status, body = kura.admin("GET", "/kura/triggers/to-command")
        assert body["RecordsFailed"] == 1 and body["FunctionErrors"] >= 3, body
        assert body["Retries"] >= 2, body
    finally:
        kura.stop()


def test_partial_batch_responses_lanes_latest_and_the_admin_endpoint(tmp_path):
    out = tmp_path / "delivered.jsonl"
    failed_file = tmp_path / "failures.jsonl"
    function = HttpFunction(out, "--report").start()
    broken = HttpFunction(tmp_path / "never.jsonl", "--always-fail").start()
    kura = Kura(tmp_path, ["--data-dir", str(tmp_path / "data"), "--trigger-admin"]).start()
    try:
        client = kura.client()
        create_table(client, "items")
        for i in range(5):
            client.put_item(TableName="items", Item={"pk": {"S": f"before{i}"}, "v": {"N": "1"}})
        # Created at run time: LATEST skips what the stream already holds.
        status, body = kura.admin("POST", "/kura/triggers", {
            "Name": "partial", "Table": "items", "Function": {"Url": function.url},
            "StartingPosition": "LATEST", "BatchSize": 5, "ParallelizationFactor": 3,
            "FunctionResponseTypes": ["ReportBatchItemFailures"]})
        assert status == 201, body
        assert body["ParallelizationFactor"] == 3 and body["Origin"] == "Api"
        status, body = kura.admin("POST", "/kura/triggers", {
            "Name": "to-file", "Table": "items", "Function": {"Url": broken.url},
            "MaximumRetryAttempts": 0,
            "DestinationConfig": {"OnFailure": {"Destination": f"file:{failed_file}"}}})
        assert status == 201, body
        assert kura.admin("POST", "/kura/triggers", {"Name": "partial", "Table": "items",
                                                      "Function": {"Url": function.url}})[0] == 409
        # Never from a browser page, whatever the flag.
        request = urllib.request.Request(
            kura.endpoint + "/kura/triggers", method="POST",
            data=json.dumps({"Name": "page", "Table": "items",
                             "Function": {"Command": ["true"]}}).encode(),
            headers={"Origin": "https://evil.example", "Content-Type": "text/plain"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
        assert kura.admin("POST", "/kura/triggers", {"Name": "bad", "Table": "items",
                                                      "Function": {"Url": function.url},
                                                      "BatchSize": 0})[0] == 400
        # Wait for the triggers to bind their stream before writing.
        wait_for("the triggers to start", lambda: all(
            kura.admin("GET", f"/kura/triggers/{n}")[1].get("StreamArn")
            for n in ("partial", "to-file")))
        finals = {}
        for round_ in range(1, 4):
            for i in range(12):
                item = {"pk": {"S": f"k{i}"}, "v": {"N": str(round_)}}
                if i % 4 == 0:
                    item["flaky"] = {"BOOL": True}
                client.put_item(TableName="items", Item=item)
                finals[f"k{i}"] = round_

        def complete():
            got = {}
            for line in lines(out):
                got[line["pk"]] = max(got.get(line["pk"], 0), int(line["v"]))
            return got == finals

        wait_for("every version delivered", complete)
        check_in_order(lines(out), finals)
        wait_for("failed batches in the file", lambda: sum(
            int(l["DDBStreamBatchInfo"]["batchSize"]) for l in lines(failed_file)) >= 41)
        for letter in lines(failed_file):
            assert letter["requestContext"]["condition"] == "RetryAttemptsExhausted"
            assert letter["DDBStreamBatchInfo"]["streamArn"].startswith("arn:aws:dynamodb:")

        # Restarted, the run-time triggers come back with their checkpoints.
        kura.stop()
        kura.start()
        status, body = kura.admin("GET", "/kura/triggers")
        assert sorted(t["Name"] for t in body["Triggers"]) == ["partial", "to-file"]
        client = kura.client()
        client.put_item(TableName="items", Item={"pk": {"S": "after"}, "v": {"N": "1"}})
        wait_for("the record written after the restart",
                 lambda: any(l["pk"] == "after" for l in lines(out)))
        assert not any(l["pk"].startswith("before") for l in lines(out)), "LATEST"
        assert kura.admin("DELETE", "/kura/triggers/to-file")[0] == 204
        assert kura.admin("GET", "/kura/triggers/to-file")[0] == 404
        assert kura.admin("DELETE", "/kura/triggers/to-file")[0] == 404
    finally:
        kura.stop()
        function.stop()
        broken.stop()


def test_at_timestamp_and_a_disabled_trigger(tmp_path):
    out = tmp_path / "delivered.jsonl"
    idle = tmp_path / "idle.jsonl"
    function = HttpFunction(out).start()
    idle_function = HttpFunction(idle).start()
    kura = Kura(tmp_path, ["--in-memory", "--trigger-admin"]).start()
    try:
        client = kura.client()
        create_table(client, "timed")
        for i in range(3):
            client.put_item(TableName="timed", Item={"pk": {"S": f"early{i}"}, "v": {"N": "1"}})
        # ApproximateCreationDateTime has whole seconds: the next second starts the window.
        time.sleep(1.1)
        start = float(int(time.time()))
        time.sleep(1.0 - (time.time() - start) + 0.05)
        for i in range(3):
            client.put_item(TableName="timed", Item={"pk": {"S": f"late{i}"}, "v": {"N": "1"}})
        status, body = kura.admin("POST", "/kura/triggers", {
            "Name": "from-time", "Table": "timed", "Function": {"Url": function.url},
            "StartingPosition": "AT_TIMESTAMP", "StartingPositionTimestamp": start})
        assert status == 201, body
        assert body["StartingPosition"] == "AT_TIMESTAMP"
        status, body = kura.admin("POST", "/kura/triggers", {
            "Name": "off", "Table": "timed", "Function": {"Url": idle_function.url},
            "Enabled": False})
        assert status == 201 and body["State"] == "Disabled", body
        wait_for("the records from the timestamp", lambda: len(lines(out)) >= 3)
        time.sleep(1)
        assert sorted(l["pk"] for l in lines(out)) == ["late0", "late1", "late2"]
        assert lines(idle) == [], "a disabled trigger reads nothing"
        assert kura.admin("GET", "/kura/triggers/off")[1]["Invocations"] == 0
    finally:
        kura.stop()
        function.stop()
        idle_function.stop()


def test_bad_trigger_definitions_stop_kura_with_the_reason(tmp_path):
    bad = tmp_path / "triggers.json"
    bad.write_text(json.dumps({"Triggers": [
        {"Name": "t", "Table": "orders", "Function": {"Url": "http://127.0.0.1:1/"},
         "BatchSize": 0}]}))
    served = subprocess.run([str(BINARY), "serve", "--port", "0", "--in-memory",
                             "--triggers", str(bad)], capture_output=True, text=True, timeout=60)
    assert served.returncode != 0
    assert "Member must have value greater than or equal to 1" in served.stderr, served.stderr
    config = tmp_path / "kura.dev.json"
    config.write_text(json.dumps({"App": "shop", "Modules": ["order"], "Tumbling": 5}))
    dev = subprocess.run([str(BINARY), "dev", "--port", "0", "--in-memory",
                          "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert dev.returncode != 0
    assert "unknown field `Tumbling`" in dev.stderr, dev.stderr
