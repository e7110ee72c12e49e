"""Test controls (docs/testing.md), through boto3 and the AWS CLI's shapes: capacity
emulation that botocore's retries meet and get past, injected faults seen by boto3 and
retried, snapshot / restore / reset of 100k items timed, a seeded start, and a manual clock
that expires TTL items and trims a stream."""

import gzip
import json
import time
import urllib.error
import urllib.request

import boto3
import botocore.config
import pytest

from conftest import KURA_BIN, kura_server

BINARY = KURA_BIN


def client(endpoint, retries=0):
    config = botocore.config.Config(retries={"total_max_attempts": retries + 1, "mode": "standard"})
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="k", aws_secret_access_key="s", config=config)


def admin(endpoint, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(endpoint + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, json.loads(r.read().decode() or "null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode() or "null")


def provisioned_table(ddb, name, read, write, gsi=None):
    spec = dict(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": read, "WriteCapacityUnits": write},
    )
    if gsi:
        spec["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        spec["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": gsi[0], "WriteCapacityUnits": gsi[1]},
        }]
    ddb.create_table(**spec)


def test_provisioned_capacity_throttles_and_botocore_retries_through(tmp_path):
    with kura_server(["--in-memory", "--enforce-capacity", "--burst-seconds", "2"],
                     tmp_path) as endpoint:
        ddb = client(endpoint)
        provisioned_table(ddb, "tbl", 5, 2)
        # 2 WCU with 2 seconds of burst: 4 one-unit writes (and what refills meanwhile),
        # then throttled.
        error, written = None, 0
        for i in range(20):
            try:
                ddb.put_item(TableName="tbl", Item={"pk": {"S": f"k{i}"}})
                written += 1
            except ddb.exceptions.ProvisionedThroughputExceededException as refused:
                error = refused.response
                break
        assert error and 4 <= written <= 6, written
        assert error["Error"]["Message"].startswith(
            "The level of configured provisioned throughput for the table was exceeded")
        assert error["ThrottlingReasons"] == [{
            "reason": "TableWriteProvisionedThroughputExceeded",
            "resource": "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"}]
        # PartiQL writes take the same bucket.
        with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException):
            ddb.execute_statement(Statement="INSERT INTO tbl VALUE {'pk': 'p1'}")
        # Reads have their own bucket.
        ddb.get_item(TableName="tbl", Key={"pk": {"S": "k0"}})
        ddb.execute_statement(Statement="SELECT * FROM tbl WHERE pk = 'k0'")
        # botocore's standard retries back off until the bucket refills, and succeed.
        patient = client(endpoint, retries=9)
        started = time.monotonic()
        for i in range(4):
            response = patient.put_item(TableName="tbl", Item={"pk": {"S": f"r{i}"}})
            assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
        # 4 more units at 2 per second: about 2 seconds of waiting, done by the retries.
        assert time.monotonic() - started > 0.5
        # UpdateTable raises the capacity and it applies at once: a tenth of a second
        # refills 100 units at the new rate (0.2 at the old one). Without the pause the
        # drained bucket refills one unit per millisecond, slower than sequential puts on
        # loopback, and throttles them as DynamoDB would.
        ddb.update_table(TableName="tbl", ProvisionedThroughput={
            "ReadCapacityUnits": 5, "WriteCapacityUnits": 1000})
        time.sleep(0.1)
        for i in range(50):
            ddb.put_item(TableName="tbl", Item={"pk": {"S": f"u{i}"}})
        # Throttles are counted in /metrics.
        with urllib.request.urlopen(endpoint + "/metrics") as r:
            metrics = r.read().decode()
        throttled = [line for line in metrics.splitlines()
                     if line.startswith("kura_throttled_requests_total")
                     and 'table_name="tbl"' in line and 'operation="PutItem"' in line]
        assert throttled and float(throttled[0].split()[-1]) >= 1, metrics


def test_a_gsi_out_of_capacity_throttles_the_tables_writes_and_batches_leave_it_unprocessed(
        tmp_path):
    with kura_server(["--in-memory", "--enforce-capacity", "--burst-seconds", "1"],
                     tmp_path) as endpoint:
        ddb = client(endpoint)
        provisioned_table(ddb, "tbl", 100, 100, gsi=(100, 1))
        provisioned_table(ddb, "free", 100, 100)
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException) as refused:
            ddb.put_item(TableName="tbl", Item={"pk": {"S": "b"}, "g": {"S": "x"}})
        assert refused.value.response["ThrottlingReasons"][0] == {
            "reason": "IndexWriteProvisionedThroughputExceeded",
            "resource": "arn:aws:dynamodb:us-east-1:000000000000:table/tbl/index/byG"}
        # A batch over a throttled table and a free one: the throttled table's requests
        # come back unprocessed, the others are written.
        answer = ddb.batch_write_item(RequestItems={
            "tbl": [{"PutRequest": {"Item": {"pk": {"S": "c"}, "g": {"S": "x"}}}}],
            "free": [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}],
        })
        assert list(answer["UnprocessedItems"]) == ["tbl"]
        assert ddb.get_item(TableName="free", Key={"pk": {"S": "c"}}).get("Item")
        # The advisor sees the throttled requests left unprocessed, waiting for a retry
        # (the guideline says to always retry them), and sees the retry.
        def unretried():
            with urllib.request.urlopen(endpoint + "/kura/advise") as r:
                findings = json.load(r)["findings"]
            return [f["evidence"] for f in findings
                    if f["rule"] == "api.unprocessed-retry" and f["table"] == "tbl"]
        assert unretried() == ["1 unprocessed key(s) answered, 0 sent again"], unretried()
        time.sleep(1.1)  # the GSI's 1 WCU refills
        retried = ddb.batch_write_item(RequestItems=answer["UnprocessedItems"])
        assert retried["UnprocessedItems"] == {}
        assert unretried() == []
        # A transaction over a throttled table is canceled, with a reason per action.
        with pytest.raises(ddb.exceptions.TransactionCanceledException) as canceled:
            ddb.transact_write_items(TransactItems=[
                {"Put": {"TableName": "free", "Item": {"pk": {"S": "t1"}}}},
                {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "t2"}, "g": {"S": "x"}}}},
            ])
        reasons = canceled.value.response["CancellationReasons"]
        assert [r["Code"] for r in reasons] == ["None", "ProvisionedThroughputExceeded"]
        # Every table throttled: the batch fails.
        with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException):
            ddb.batch_write_item(RequestItems={
                "tbl": [{"PutRequest": {"Item": {"pk": {"S": "d"}}}}]})
        # PartiQL's batch and transaction are admitted as the others: a throttled
        # statement of a batch is answered in place, the rest run; a transaction over
        # the throttled table is canceled; a batch wholly on it fails.
        answer = ddb.batch_execute_statement(Statements=[
            {"Statement": "INSERT INTO \"free\" VALUE {'pk': 'b1'}"},
            {"Statement": "INSERT INTO tbl VALUE {'pk': 'b2', 'g': 'x'}"},
        ])["Responses"]
        assert "Error" not in answer[0], answer
        assert answer[1]["Error"]["Code"] == "ProvisionedThroughputExceeded", answer
        assert answer[1]["TableName"] == "tbl"
        assert ddb.get_item(TableName="free", Key={"pk": {"S": "b1"}}).get("Item")
        assert not ddb.get_item(TableName="tbl", Key={"pk": {"S": "b2"}}).get("Item")
        with pytest.raises(ddb.exceptions.TransactionCanceledException) as canceled:
            ddb.execute_transaction(TransactStatements=[
                {"Statement": "INSERT INTO \"free\" VALUE {'pk': 'x1'}"},
                {"Statement": "INSERT INTO tbl VALUE {'pk': 'x2', 'g': 'x'}"},
            ])
        reasons = canceled.value.response["CancellationReasons"]
        assert [r["Code"] for r in reasons] == ["None", "ProvisionedThroughputExceeded"]
        with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException):
            ddb.batch_execute_statement(Statements=[
                {"Statement": "INSERT INTO tbl VALUE {'pk': 'b3', 'g': 'x'}"}])


def test_a_hot_partition_key_is_throttled_on_an_on_demand_table(tmp_path):
    with kura_server(["--in-memory", "--enforce-capacity"], tmp_path) as endpoint:
        ddb = client(endpoint)
        ddb.create_table(TableName="ondemand", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                    {"AttributeName": "sk", "KeyType": "RANGE"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                               {"AttributeName": "sk", "AttributeType": "S"}])
        ddb.update_contributor_insights(TableName="ondemand",
                                        ContributorInsightsAction="ENABLE")
        big = "x" * 390_000  # 381 WCU per write: the key's 1,000 WCU go in three
        codes = []
        for i in range(6):
            try:
                ddb.put_item(TableName="ondemand", Item={"pk": {"S": "hot"}, "sk": {"S": str(i)},
                                                   "v": {"S": big}})
                codes.append("ok")
            except ddb.exceptions.ProvisionedThroughputExceededException as e:
                codes.append(e.response["ThrottlingReasons"][0]["reason"])
        assert "TableWriteKeyRangeThroughputExceeded" in codes, codes
        # Contributor Insights lists the throttled key.
        status, report = admin(endpoint, "GET", "/kura/insights/ondemand?minutes=5")
        assert status == 200, report
        throttled = report["mostThrottledPartitionKeys"]["keys"]
        assert throttled and throttled[0]["key"] == "hot", report
        # Another key is not affected.
        ddb.put_item(TableName="ondemand", Item={"pk": {"S": "cold"}, "sk": {"S": "0"},
                                           "v": {"S": big}})


def test_injected_faults_are_seen_by_boto3_retried_counted_and_cleared(tmp_path):
    with kura_server(["--in-memory", "--test-controls"], tmp_path) as endpoint:
        ddb = client(endpoint)
        ddb.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        # Nothing is injected unless asked.
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "user#1"}})
        status, rule = admin(endpoint, "POST", "/kura/admin/faults", {
            "error": "InternalServerError", "operation": "GetItem", "table": "tbl",
            "key_prefix": "user#", "count": 2})
        assert status == 200, rule
        with pytest.raises(ddb.exceptions.InternalServerError):
            ddb.get_item(TableName="tbl", Key={"pk": {"S": "user#1"}})
        # Another key prefix is untouched; the second fault is retried through by botocore.
        ddb.get_item(TableName="tbl", Key={"pk": {"S": "order#1"}})
        patient = client(endpoint, retries=3)
        assert patient.get_item(TableName="tbl", Key={"pk": {"S": "user#1"}})["Item"]
        status, listed = admin(endpoint, "GET", "/kura/admin/faults")
        assert listed["faults"] == [], "the count of 2 is spent"
        # Throttling, with added latency, at a rate of 1, for a duration.
        admin(endpoint, "POST", "/kura/admin/faults", {
            "error": "throttling", "operation": "PutItem", "latency_ms": 200,
            "duration_seconds": 30})
        started = time.monotonic()
        with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException):
            ddb.put_item(TableName="tbl", Item={"pk": {"S": "user#2"}})
        assert time.monotonic() - started >= 0.2
        status, listed = admin(endpoint, "GET", "/kura/admin/faults")
        assert listed["faults"][0]["injected"] == 1
        # Every injected error is counted where requests are.
        with urllib.request.urlopen(endpoint + "/metrics") as r:
            metrics = r.read().decode()
        assert any(line.startswith("kura_throttled_requests_total") and 'table_name="tbl"' in line
                   and 'operation="PutItem"' in line and line.endswith(" 1.0")
                   for line in metrics.splitlines()), metrics
        status, cleared = admin(endpoint, "DELETE", "/kura/admin/faults")
        assert cleared == {"cleared": 1}
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "user#2"}})
        # Bad rules are refused with the reason.
        status, refused = admin(endpoint, "POST", "/kura/admin/faults", {"error": "Nope"})
        assert status == 400 and "unknown error Nope" in refused["message"]


def test_the_kura_fault_command_drives_the_rules(tmp_path):
    import subprocess
    with kura_server(["--in-memory", "--test-controls"], tmp_path) as endpoint:
        def kura(*args):
            done = subprocess.run([str(BINARY), "fault", "--endpoint", endpoint, *args],
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)
        rule = kura("add", "--error", "TransactionConflictException", "--operation",
                    "TransactWriteItems", "--rate", "1", "--count", "1")
        assert rule["id"] == 1 and rule["error"] == "TransactionConflictException"
        ddb = client(endpoint)
        with pytest.raises(ddb.exceptions.TransactionConflictException):
            ddb.transact_write_items(TransactItems=[{"Put": {
                "TableName": "nope", "Item": {"pk": {"S": "a"}}}}])
        assert kura("list") == {"faults": []}
        kura("add", "--error", "ServiceUnavailable", "--duration-seconds", "60")
        assert kura("clear", "2") == {"cleared": 1}


def test_admin_endpoints_are_off_unless_enabled(tmp_path):
    with kura_server(["--in-memory"], tmp_path) as endpoint:
        status, _ = admin(endpoint, "POST", "/kura/admin/reset")
        assert status in (404, 405)


def test_snapshot_restore_and_reset_of_100k_items_take_milliseconds(tmp_path):
    seed = tmp_path / "seed"
    seed.mkdir()
    # 100k items as a DynamoDB export (gzipped DYNAMODB_JSON lines), loaded by --seed.
    export = seed / "Big" / "AWSDynamoDB" / "01234-abcd" / "data"
    export.mkdir(parents=True)
    with gzip.open(export / "part-0.json.gz", "wt") as out:
        for i in range(100_000):
            out.write(json.dumps({"Item": {"pk": {"S": f"item-{i:06d}"},
                                           "n": {"N": str(i)}}}) + "\n")
    (seed / "Big" / "AWSDynamoDB" / "01234-abcd" / "manifest-summary.json").write_text("{}")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"Table": {
        "TableName": "Big", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"}, "TableStatus": "ACTIVE"}}))
    with kura_server(["--in-memory", "--test-controls", "--schema", str(schema),
                      "--seed", str(seed)], tmp_path) as endpoint:
        ddb = client(endpoint)
        count = ddb.scan(TableName="Big", Select="COUNT")
        total = count["Count"]
        while "LastEvaluatedKey" in count:
            count = ddb.scan(TableName="Big", Select="COUNT",
                             ExclusiveStartKey=count["LastEvaluatedKey"])
            total += count["Count"]
        assert total == 100_000
        status, taken = admin(endpoint, "POST", "/kura/admin/snapshots/before")
        assert status == 200 and taken["items"] == 100_000, taken
        ddb.delete_item(TableName="Big", Key={"pk": {"S": "item-000001"}})
        ddb.put_item(TableName="Big", Item={"pk": {"S": "new"}})
        status, reset = admin(endpoint, "POST", "/kura/admin/reset")
        assert status == 200
        assert ddb.list_tables()["TableNames"] == []
        status, restored = admin(endpoint, "POST", "/kura/admin/snapshots/before/restore")
        assert status == 200, restored
        assert ddb.get_item(TableName="Big", Key={"pk": {"S": "item-000001"}})["Item"]
        assert "Item" not in ddb.get_item(TableName="Big", Key={"pk": {"S": "new"}})
        # The seeded start is kept as the snapshot "seed".
        status, listed = admin(endpoint, "GET", "/kura/admin/snapshots")
        assert sorted(s["name"] for s in listed["snapshots"]) == ["before", "seed"]
        print(f"\n100k items: snapshot {taken['millis']:.2f} ms, "
              f"restore {restored['millis']:.2f} ms, reset {reset['millis']:.2f} ms")
        status, missing = admin(endpoint, "POST", "/kura/admin/snapshots/nope/restore")
        assert status == 404


def test_snapshots_are_refused_on_a_durable_data_directory(tmp_path):
    with kura_server(["--data-dir", str(tmp_path / "data"), "--test-controls"],
                     tmp_path) as endpoint:
        status, refused = admin(endpoint, "POST", "/kura/admin/reset")
        assert status == 409 and "in-memory" in refused["message"]


def test_seed_files_in_the_aws_cli_shapes(tmp_path):
    seed = tmp_path / "seed"
    seed.mkdir()
    (seed / "Users.json").write_text(json.dumps(
        [{"pk": {"S": "u1"}, "name": {"S": "Ann"}}, {"pk": {"S": "u2"}}]))
    (seed / "more.json").write_text(json.dumps({"RequestItems": {"Users": [
        {"PutRequest": {"Item": {"pk": {"S": "u3"}}}}]}}))
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps([{"Table": {
        "TableName": "Users", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}}}]))
    with kura_server(["--in-memory", "--schema", str(schema), "--seed", str(seed)],
                     tmp_path) as endpoint:
        ddb = client(endpoint)
        table = ddb.describe_table(TableName="Users")["Table"]
        assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 5
        assert table["StreamSpecification"]["StreamViewType"] == "NEW_IMAGE"
        assert ddb.scan(TableName="Users")["Count"] == 3
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "Users.json").write_text(json.dumps([{"nope": {"S": "x"}}]))
    import subprocess
    done = subprocess.run([str(BINARY), "serve", "--in-memory", "--port", "0",
                           "--schema", str(schema), "--seed", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Users.json" in done.stderr and "ValidationException" in done.stderr, done.stderr


def test_a_manual_clock_expires_ttl_items_and_trims_a_stream(tmp_path):
    with kura_server(["--in-memory", "--clock", "manual"], tmp_path) as endpoint:
        ddb = client(endpoint)
        streams = boto3.client("dynamodbstreams", endpoint_url=endpoint,
                               region_name="us-east-1", aws_access_key_id="k",
                               aws_secret_access_key="s")
        ddb.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         StreamSpecification={"StreamEnabled": True,
                                              "StreamViewType": "NEW_AND_OLD_IMAGES"})
        ddb.update_time_to_live(TableName="tbl", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        status, clock = admin(endpoint, "GET", "/kura/admin/clock")
        assert clock["mode"] == "manual"
        now = clock["now_ms"] // 1000
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "soon"}, "expires": {"N": str(now + 60)}})
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "later"},
                                          "expires": {"N": str(now + 7200)}})
        # Time stands still: nothing expires however long we wait in real time.
        time.sleep(1.5)
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "soon"}}).get("Item")
        status, moved = admin(endpoint, "POST", "/kura/admin/clock", {"advance_seconds": 120})
        assert status == 200 and moved["now_ms"] >= clock["now_ms"] + 120_000
        # The sweep ran before the answer: the item is gone now, with a TTL stream record.
        assert "Item" not in ddb.get_item(TableName="tbl", Key={"pk": {"S": "soon"}})
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "later"}}).get("Item")
        arn = ddb.describe_table(TableName="tbl")["Table"]["LatestStreamArn"]

        def records():
            out = []
            for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
                it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                                ShardIteratorType="TRIM_HORIZON")
                out += streams.get_records(ShardIterator=it["ShardIterator"])["Records"]
            return out

        removes = [r for r in records() if r["eventName"] == "REMOVE"]
        assert removes and removes[0]["userIdentity"]["PrincipalId"] == "dynamodb.amazonaws.com"
        assert len(records()) == 3
        # 25 hours later the stream's records are past retention and trimmed.
        admin(endpoint, "POST", "/kura/admin/clock", {"advance_seconds": 25 * 3600})
        assert "Item" not in ddb.get_item(TableName="tbl", Key={"pk": {"S": "later"}})
        left = records()
        assert all(r["eventName"] == "REMOVE" and r["dynamodb"]["Keys"]["pk"]["S"] == "later"
                   for r in left), left
        # The clock only moves forward.
        status, refused = admin(endpoint, "POST", "/kura/admin/clock", {"advance_ms": -1})
        assert status == 409


def signed_admin(endpoint, method, path, key, secret, body=None):
    """A /kura/admin call signed with SigV4 by botocore, as any AWS tool signs."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    data = b"" if body is None else json.dumps(body).encode()
    request = AWSRequest(method=method, url=endpoint + path, data=data)
    SigV4Auth(Credentials(key, secret), "dynamodb", "us-east-1").add_auth(request)
    prepared = urllib.request.Request(endpoint + path, data=data or None, method=method,
                                      headers=dict(request.headers.items()))
    try:
        with urllib.request.urlopen(prepared, timeout=60) as r:
            return r.status, json.loads(r.read().decode() or "null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode() or "null")


def test_with_auth_the_controls_need_a_signature_and_kura_admin(tmp_path):
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps({"Credentials": [
        {"AccessKeyId": "AKIDADMIN", "SecretAccessKey": "admin-secret", "User": "admin"},
        {"AccessKeyId": "AKIDREADER", "SecretAccessKey": "reader-secret", "User": "reader",
         "Policies": [{"Statement": {"Effect": "Allow", "Action": "dynamodb:*",
                                     "Resource": "*"}}]},
        {"AccessKeyId": "AKIDOPS", "SecretAccessKey": "ops-secret", "User": "ops",
         "Policies": [{"Statement": {"Effect": "Allow", "Action": "kura:Admin",
                                     "Resource": "*"}}]},
    ]}))
    with kura_server(["--in-memory", "--test-controls", "--auth", str(creds)],
                     tmp_path) as endpoint:
        status, refused = admin(endpoint, "POST", "/kura/admin/reset")
        assert status == 403, refused
        status, refused = signed_admin(endpoint, "POST", "/kura/admin/reset", "AKIDADMIN",
                                       "wrong")
        assert status == 403, refused
        status, refused = signed_admin(endpoint, "POST", "/kura/admin/reset", "AKIDREADER",
                                       "reader-secret")
        assert status == 403 and "kura:Admin" in refused["message"], refused
        for key, secret in [("AKIDADMIN", "admin-secret"), ("AKIDOPS", "ops-secret")]:
            status, done = signed_admin(endpoint, "POST", "/kura/admin/faults", key, secret,
                                        {"error": "throttling", "count": 1})
            assert status == 200, done


def test_a_browser_page_cannot_use_the_controls(tmp_path):
    with kura_server(["--in-memory", "--test-controls"], tmp_path) as endpoint:
        request = urllib.request.Request(endpoint + "/kura/admin/reset", data=b"", method="POST",
                                         headers={"Origin": "http://evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403


def test_controls_refuse_what_they_cannot_do_with_the_reason(tmp_path):
    triggers = tmp_path / "triggers.json"
    triggers.write_text(json.dumps({"Triggers": [{
        "Name": "noop", "Table": "events", "Function": {"Command": ["true"]}}]}))
    with kura_server(["--in-memory", "--test-controls"], tmp_path) as endpoint:
        # The system clock does not move on request.
        status, refused = admin(endpoint, "POST", "/kura/admin/clock", {"advance_seconds": 1})
        assert status == 409 and "--clock manual" in refused["message"], refused
        # A clock move needs one amount, in range.
        status, refused = admin(endpoint, "POST", "/kura/admin/clock", {"advance_seconds": -5})
        assert status == 400, refused
        status, refused = admin(endpoint, "POST", "/kura/admin/clock", {"later": 1})
        assert status == 400, refused
        # Snapshot names are checked.
        status, refused = admin(endpoint, "POST", "/kura/admin/snapshots/bad%20name")
        assert status == 409 and "snapshot name" in refused["message"], refused
        status, refused = admin(endpoint, "DELETE", "/kura/admin/snapshots/never-taken")
        assert status == 404, refused
    home = tmp_path / "with-triggers"
    home.mkdir()
    with kura_server(["--in-memory", "--test-controls", "--triggers", str(triggers)],
                     home) as endpoint:
        # Restore and reset would leave running triggers on a stopped engine.
        status, refused = admin(endpoint, "POST", "/kura/admin/reset")
        assert status == 409 and "noop" in refused["message"], refused
