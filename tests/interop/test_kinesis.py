"""Kinesis Data Streams on Kura's port (issue 57), through boto3 and the AWS CLI: streams
and shards as Kinesis lays them out, records routed by the MD5 of their partition key,
every shard iterator type, Kinesis's errors, concurrent writers, kill -9, SigV4 for the
`kinesis` service and `kinesis:` policies."""

import base64
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import KURA_BIN, kura_server

MAX_HASH = 2**128 - 1


def kinesis_client(endpoint, key="kura-test", secret="kura-test", region="eu-west-1"):
    return boto3.client("kinesis", endpoint_url=endpoint, region_name=region,
                        aws_access_key_id=key, aws_secret_access_key=secret,
                        config=Config(retries={"max_attempts": 1}))


@pytest.fixture()
def kinesis(endpoint):
    return kinesis_client(endpoint)


@pytest.fixture()
def stream_name():
    return "kin-" + uuid.uuid4().hex[:12]


def error(e):
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def start_kura(data, log_path, *args):
    """`kura serve` on DATA (a directory kept across kill -9), logging to LOG_PATH: the
    process and its endpoint."""
    log = open(log_path, "w")
    proc = subprocess.Popen([str(KURA_BIN), "serve", "--port", "0", "--data-dir", str(data),
                             *args], stderr=log, stdout=subprocess.DEVNULL,
                            env={**os.environ, "KURA_LOG": "info"})
    for _ in range(300):
        found = re.search(r"kura ready on (http:\S+)", log_path.read_text())
        if found:
            return proc, found.group(1)
        assert proc.poll() is None, log_path.read_text()
        time.sleep(0.1)
    raise AssertionError(log_path.read_text())


def read_shard(kinesis, name, shard_id, kind="TRIM_HORIZON", **extra):
    """Every record of a shard from an iterator of KIND, page by page."""
    it = kinesis.get_shard_iterator(StreamName=name, ShardId=shard_id,
                                    ShardIteratorType=kind, **extra)["ShardIterator"]
    records = []
    while True:
        out = kinesis.get_records(ShardIterator=it, Limit=37)
        records += out["Records"]
        if not out["Records"]:
            return records, out["NextShardIterator"]
        it = out["NextShardIterator"]


def test_a_stream_is_laid_out_as_kinesis_lays_it_out(kinesis, stream_name):
    kinesis.create_stream(StreamName=stream_name, ShardCount=3, Tags={"team": "orders"})
    kinesis.get_waiter("stream_exists").wait(StreamName=stream_name)
    d = kinesis.describe_stream(StreamName=stream_name)["StreamDescription"]
    assert d["StreamStatus"] == "ACTIVE"
    assert d["StreamARN"] == f"arn:aws:kinesis:eu-west-1:000000000000:stream/{stream_name}"
    assert d["StreamModeDetails"] == {"StreamMode": "PROVISIONED"}
    assert d["RetentionPeriodHours"] == 24 and d["EncryptionType"] == "NONE"
    assert [s["ShardId"] for s in d["Shards"]] == [f"shardId-{i:012}" for i in range(3)]
    ranges = [(int(s["HashKeyRange"]["StartingHashKey"]), int(s["HashKeyRange"]["EndingHashKey"]))
              for s in d["Shards"]]
    # Kinesis's even split of the 128-bit space: floor(2^128 / 3) each, the last to the end.
    assert ranges[0] == (0, 2**128 // 3 - 1)
    assert ranges[1][0] == ranges[0][1] + 1 and ranges[2][0] == ranges[1][1] + 1
    assert ranges[2][1] == MAX_HASH
    assert d["HasMoreShards"] is False
    page = kinesis.describe_stream(StreamName=stream_name, Limit=2)["StreamDescription"]
    assert len(page["Shards"]) == 2 and page["HasMoreShards"] is True
    rest = kinesis.describe_stream(StreamName=stream_name,
                                   ExclusiveStartShardId=page["Shards"][-1]["ShardId"])
    assert [s["ShardId"] for s in rest["StreamDescription"]["Shards"]] == ["shardId-000000000002"]

    summary = kinesis.describe_stream_summary(StreamARN=d["StreamARN"])
    assert summary["StreamDescriptionSummary"]["OpenShardCount"] == 3
    shards = kinesis.list_shards(StreamName=stream_name, MaxResults=2)
    more = kinesis.list_shards(NextToken=shards["NextToken"])
    assert [s["ShardId"] for s in shards["Shards"] + more["Shards"]] == \
        [s["ShardId"] for s in d["Shards"]]
    assert "NextToken" not in more
    assert kinesis.list_tags_for_stream(StreamName=stream_name)["Tags"] == \
        [{"Key": "team", "Value": "orders"}]

    on_demand = stream_name + "-od"
    kinesis.create_stream(StreamName=on_demand, StreamModeDetails={"StreamMode": "ON_DEMAND"})
    od = kinesis.describe_stream_summary(StreamName=on_demand)["StreamDescriptionSummary"]
    assert od["StreamModeDetails"] == {"StreamMode": "ON_DEMAND"}
    assert od["OpenShardCount"] == 4

    names = []
    token = None
    while True:
        page = kinesis.list_streams(Limit=1, **({"NextToken": token} if token else {}))
        names += page["StreamNames"]
        assert len(page["StreamSummaries"]) == len(page["StreamNames"])
        if not page["HasMoreStreams"]:
            break
        token = page["NextToken"]
    assert stream_name in names and on_demand in names and names == sorted(names)

    kinesis.delete_stream(StreamName=on_demand)
    kinesis.delete_stream(StreamARN=d["StreamARN"])
    kinesis.get_waiter("stream_not_exists").wait(StreamName=stream_name)
    assert stream_name not in kinesis.list_streams()["StreamNames"]


def test_records_go_to_the_shard_of_their_hash_and_come_back_in_order(kinesis, stream_name):
    kinesis.create_stream(StreamName=stream_name, ShardCount=4)
    shards = kinesis.describe_stream(StreamName=stream_name)["StreamDescription"]["Shards"]

    def shard_of(hash_key):
        for s in shards:
            r = s["HashKeyRange"]
            if int(r["StartingHashKey"]) <= hash_key <= int(r["EndingHashKey"]):
                return s["ShardId"]
        raise AssertionError(hash_key)

    sent = {}
    for i in range(60):
        key = f"customer-{i}"
        data = os.urandom(i * 7)
        out = kinesis.put_record(StreamName=stream_name, Data=data, PartitionKey=key)
        assert out["ShardId"] == shard_of(int(hashlib.md5(key.encode()).hexdigest(), 16))
        sent[out["SequenceNumber"]] = (key, data, out["ShardId"])
    batch = kinesis.put_records(StreamName=stream_name, Records=[
        {"Data": f"b{i}".encode(), "PartitionKey": "p", "ExplicitHashKey": str(MAX_HASH - i)}
        for i in range(20)])
    assert batch["FailedRecordCount"] == 0
    for i, r in enumerate(batch["Records"]):
        assert r["ShardId"] == "shardId-000000000003"
        sent[r["SequenceNumber"]] = ("p", f"b{i}".encode(), r["ShardId"])

    got = {}
    for s in shards:
        records, _ = read_shard(kinesis, stream_name, s["ShardId"])
        seqs = [int(r["SequenceNumber"]) for r in records]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        for r in records:
            got[r["SequenceNumber"]] = (r["PartitionKey"], r["Data"], s["ShardId"])
            assert abs(r["ApproximateArrivalTimestamp"].timestamp() - time.time()) < 120
    assert got == sent
    # CloudWatch's stream figures, in /metrics.
    with urllib.request.urlopen(kinesis.meta.endpoint_url + "/metrics") as answer:
        text = answer.read().decode()
    label = f'{{stream_name="{stream_name}"}}'
    assert f"kura_kinesis_incoming_records_total{label} 80" in text
    assert f"kura_kinesis_open_shards{label} 4" in text
    assert f"kura_kinesis_get_records_records_total{label} 80" in text
    assert f"kura_kinesis_get_records_iterator_age_milliseconds{label} 0" in text


def test_every_iterator_type_starts_where_kinesis_starts(kinesis, stream_name):
    kinesis.create_stream(StreamName=stream_name, ShardCount=1)
    shard = "shardId-000000000000"
    latest = kinesis.get_shard_iterator(StreamName=stream_name, ShardId=shard,
                                        ShardIteratorType="LATEST")["ShardIterator"]
    empty = kinesis.get_records(ShardIterator=latest)
    assert empty["Records"] == [] and empty["MillisBehindLatest"] == 0
    seqs = []
    for i in range(5):
        seqs.append(kinesis.put_record(StreamName=stream_name, Data=f"r{i}".encode(),
                                       PartitionKey="k")["SequenceNumber"])
        time.sleep(0.01)
    # The LATEST iterator taken before the puts reads all of them.
    after_latest = kinesis.get_records(ShardIterator=empty["NextShardIterator"])
    assert [r["Data"] for r in after_latest["Records"]] == [f"r{i}".encode() for i in range(5)]

    def first_data(kind, **extra):
        records, _ = read_shard(kinesis, stream_name, shard, kind, **extra)
        return [r["Data"].decode() for r in records]

    assert first_data("AT_SEQUENCE_NUMBER", StartingSequenceNumber=seqs[2]) == ["r2", "r3", "r4"]
    assert first_data("AFTER_SEQUENCE_NUMBER", StartingSequenceNumber=seqs[2]) == ["r3", "r4"]
    assert first_data("TRIM_HORIZON") == ["r0", "r1", "r2", "r3", "r4"]
    assert first_data("LATEST") == []
    assert first_data("AT_TIMESTAMP", Timestamp=time.time() + 60) == []
    assert first_data("AT_TIMESTAMP", Timestamp=0) == ["r0", "r1", "r2", "r3", "r4"]

    it = kinesis.get_shard_iterator(StreamName=stream_name, ShardId=shard,
                                    ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    page = kinesis.get_records(ShardIterator=it, Limit=2)
    assert [r["Data"] for r in page["Records"]] == [b"r0", b"r1"]
    assert page["MillisBehindLatest"] >= 0
    page = kinesis.get_records(ShardIterator=page["NextShardIterator"], Limit=2)
    assert [r["Data"] for r in page["Records"]] == [b"r2", b"r3"]


def test_errors_are_kinesis_words(kinesis, stream_name):
    with pytest.raises(ClientError) as e:
        kinesis.describe_stream(StreamName=stream_name)
    assert error(e) == ("ResourceNotFoundException",
                        f"Stream {stream_name} under account 000000000000 not found.")
    assert e.value.response["ResponseMetadata"]["HTTPHeaders"]["content-type"] == \
        "application/x-amz-json-1.1"
    kinesis.create_stream(StreamName=stream_name, ShardCount=1)
    with pytest.raises(ClientError) as e:
        kinesis.create_stream(StreamName=stream_name, ShardCount=1)
    assert error(e) == ("ResourceInUseException",
                        f"Stream {stream_name} under account 000000000000 already exists.")
    with pytest.raises(ClientError) as e:
        kinesis.create_stream(StreamName="bad name!", ShardCount=1)
    assert error(e)[0] == "ValidationException"
    assert "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+" in error(e)[1]
    with pytest.raises(ClientError) as e:
        kinesis.create_stream(StreamName=stream_name + "x", ShardCount=1,
                              StreamModeDetails={"StreamMode": "ON_DEMAND"})
    assert error(e)[0] == "InvalidArgumentException"
    with pytest.raises(ClientError) as e:
        kinesis.create_stream(StreamName=stream_name + "y", ShardCount=501)
    assert error(e)[0] == "LimitExceededException"
    with pytest.raises(ClientError) as e:
        kinesis.put_record(StreamName=stream_name, Data=b"x", PartitionKey="k" * 257)
    assert error(e) == ("ValidationException",
                        f"1 validation error detected: Value '{'k' * 257}' at 'partitionKey' "
                        "failed to satisfy constraint: Member must have length less than or "
                        "equal to 256")
    with pytest.raises(ClientError) as e:
        kinesis.put_record(StreamName=stream_name, Data=b"x" * (1024 * 1024 + 1),
                           PartitionKey="k")
    assert error(e)[0] == "ValidationException"
    assert "at 'data' failed to satisfy constraint: Member must have length less than or " \
        "equal to 1048576" in error(e)[1]
    with pytest.raises(ClientError) as e:
        kinesis.put_record(StreamName=stream_name, Data=b"x", PartitionKey="k",
                           ExplicitHashKey=str(2**128))
    assert error(e)[0] == "InvalidArgumentException"
    with pytest.raises(ClientError) as e:
        kinesis.put_records(StreamName=stream_name,
                            Records=[{"Data": b"x", "PartitionKey": "k"}] * 501)
    assert error(e)[0] == "ValidationException"
    with pytest.raises(ClientError) as e:
        kinesis.get_shard_iterator(StreamName=stream_name, ShardId="shardId-000000000009",
                                   ShardIteratorType="TRIM_HORIZON")
    assert error(e) == ("ResourceNotFoundException",
                        f"Shard shardId-000000000009 in stream {stream_name} under account "
                        "000000000000 does not exist")
    with pytest.raises(ClientError) as e:
        kinesis.get_shard_iterator(StreamName=stream_name, ShardId="shardId-000000000000",
                                   ShardIteratorType="AT_SEQUENCE_NUMBER")
    assert error(e)[0] == "InvalidArgumentException"
    with pytest.raises(ClientError) as e:
        kinesis.get_shard_iterator(StreamName=stream_name, ShardId="shardId-000000000000",
                                   ShardIteratorType="AT_SEQUENCE_NUMBER",
                                   StartingSequenceNumber="1234")
    assert error(e)[0] == "InvalidArgumentException"
    with pytest.raises(ClientError) as e:
        kinesis.get_records(ShardIterator="not-an-iterator")
    assert error(e)[0] == "InvalidArgumentException"
    # A tampered iterator is refused as well.
    it = kinesis.get_shard_iterator(StreamName=stream_name, ShardId="shardId-000000000000",
                                    ShardIteratorType="LATEST")["ShardIterator"]
    flipped = it[:-1] + ("0" if it[-1] != "0" else "1")
    with pytest.raises(ClientError) as e:
        kinesis.get_records(ShardIterator=flipped)
    assert error(e)[0] == "InvalidArgumentException"

    kinesis.increase_stream_retention_period(StreamName=stream_name, RetentionPeriodHours=168)
    assert kinesis.describe_stream_summary(StreamName=stream_name)[
        "StreamDescriptionSummary"]["RetentionPeriodHours"] == 168
    with pytest.raises(ClientError) as e:
        kinesis.increase_stream_retention_period(StreamName=stream_name,
                                                 RetentionPeriodHours=48)
    assert error(e) == (
        "InvalidArgumentException",
        f"Requested retention period (48 hours) for stream {stream_name} can not be shorter "
        "than existing retention period (168 hours). Use DecreaseRetentionPeriod API.")
    kinesis.decrease_stream_retention_period(StreamName=stream_name, RetentionPeriodHours=24)
    with pytest.raises(ClientError) as e:
        kinesis.decrease_stream_retention_period(StreamName=stream_name,
                                                 RetentionPeriodHours=12)
    assert error(e)[0] == "InvalidArgumentException"
    kinesis.add_tags_to_stream(StreamName=stream_name, Tags={"a": "1", "b": "2"})
    kinesis.remove_tags_from_stream(StreamName=stream_name, TagKeys=["a"])
    assert kinesis.list_tags_for_stream(StreamName=stream_name)["Tags"] == \
        [{"Key": "b", "Value": "2"}]


def test_concurrent_writers_lose_nothing_and_share_no_sequence_number(kinesis, stream_name):
    """Sixteen writers put at once; every acknowledged record is read back exactly once,
    and no two share a sequence number."""
    kinesis.create_stream(StreamName=stream_name, ShardCount=2)
    acknowledged = []
    lock = threading.Lock()

    def writer(w):
        mine = kinesis_client(kinesis.meta.endpoint_url)
        for i in range(40):
            if i % 4 == 0:
                out = mine.put_records(StreamName=stream_name, Records=[
                    {"Data": f"{w}-{i}-{j}".encode(), "PartitionKey": f"{w}-{j}"}
                    for j in range(5)])
                done = [(r["SequenceNumber"], f"{w}-{i}-{j}")
                        for j, r in enumerate(out["Records"])]
            else:
                out = mine.put_record(StreamName=stream_name, Data=f"{w}-{i}".encode(),
                                      PartitionKey=f"{w}")
                done = [(out["SequenceNumber"], f"{w}-{i}")]
            with lock:
                acknowledged.extend(done)

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(writer, range(16)))
    seqs = [s for s, _ in acknowledged]
    assert len(set(seqs)) == len(seqs) == 16 * (30 + 10 * 5)
    read = {}
    for shard in ("shardId-000000000000", "shardId-000000000001"):
        records, _ = read_shard(kinesis, stream_name, shard)
        for r in records:
            assert r["SequenceNumber"] not in read
            read[r["SequenceNumber"]] = r["Data"].decode()
    assert read == dict(acknowledged)


def test_acknowledged_records_survive_kill_9(tmp_path):
    """Records acknowledged before a kill -9 are all there after the restart, and the
    sequence numbers handed out after it are new."""
    data = tmp_path / "data"
    log_path = tmp_path / "kura.log"

    def start():
        return start_kura(data, log_path)

    proc, endpoint = start()
    acknowledged = {}
    lock = threading.Lock()
    stop = threading.Event()
    try:
        kinesis_client(endpoint).create_stream(StreamName="durable", ShardCount=2)

        def writer(w):
            client = kinesis_client(endpoint)
            i = 0
            while not stop.is_set():
                try:
                    out = client.put_record(StreamName="durable", Data=f"{w}-{i}".encode(),
                                            PartitionKey=f"{w}-{i}")
                except Exception:
                    return  # the server is gone: this put was never acknowledged
                with lock:
                    acknowledged[out["SequenceNumber"]] = f"{w}-{i}"
                i += 1

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
        for t in threads:
            t.start()
        time.sleep(1.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
    for t in threads:
        t.join()
    assert len(acknowledged) > 50
    proc, endpoint = start()
    try:
        kinesis = kinesis_client(endpoint)
        read = {}
        for shard in ("shardId-000000000000", "shardId-000000000001"):
            records, _ = read_shard(kinesis, "durable", shard)
            read.update({r["SequenceNumber"]: r["Data"].decode() for r in records})
        missing = {s: d for s, d in acknowledged.items() if read.get(s) != d}
        assert not missing, f"{len(missing)} acknowledged records lost"
        after = kinesis.put_record(StreamName="durable", Data=b"after", PartitionKey="x")
        assert int(after["SequenceNumber"]) > max(int(s) for s in read)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_aws_cli_drives_kinesis(endpoint, aws_env, stream_name):
    def cli(*args):
        proc = subprocess.run(["aws", "kinesis", "--endpoint-url", endpoint, "--output", "json",
                               *args], env=aws_env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout) if proc.stdout.strip() else None

    cli("create-stream", "--stream-name", stream_name, "--shard-count", "1")
    cli("wait", "stream-exists", "--stream-name", stream_name)
    # AWS CLI v1 (what the project's scripts install) sends a text blob base64-encoded.
    put = cli("put-record", "--stream-name", stream_name, "--partition-key", "k",
              "--data", "from the cli")
    it = cli("get-shard-iterator", "--stream-name", stream_name, "--shard-id", put["ShardId"],
             "--shard-iterator-type", "TRIM_HORIZON")["ShardIterator"]
    records = cli("get-records", "--shard-iterator", it)["Records"]
    assert [base64.b64decode(r["Data"]) for r in records] == [b"from the cli"]
    assert stream_name in cli("list-streams")["StreamNames"]


def test_sigv4_for_kinesis_and_kinesis_policies(tmp_path):
    """Under --auth a Kinesis request is signed for the `kinesis` service and held to
    `kinesis:` actions on the stream's ARN."""
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps({"Credentials": [
        {"AccessKeyId": "AKIDADMIN", "SecretAccessKey": "admin-secret", "User": "admin",
         "Account": "123456789012"},
        {"AccessKeyId": "AKIDREADER", "SecretAccessKey": "reader-secret", "User": "reader",
         "Account": "123456789012", "Policies": [{"Statement": [
             {"Effect": "Allow", "Resource": "arn:aws:kinesis:us-east-1:123456789012:stream/feed",
              "Action": ["kinesis:DescribeStream", "kinesis:GetShardIterator",
                         "kinesis:GetRecords"]}]}]},
    ]}))
    with kura_server(["--in-memory", "--auth", str(creds)], tmp_path) as endpoint:
        admin = kinesis_client(endpoint, "AKIDADMIN", "admin-secret", "us-east-1")
        admin.create_stream(StreamName="feed", ShardCount=1)
        admin.create_stream(StreamName="other", ShardCount=1)
        admin.put_record(StreamName="feed", Data=b"x", PartitionKey="k")
        reader = kinesis_client(endpoint, "AKIDREADER", "reader-secret", "us-east-1")
        records, _ = read_shard(reader, "feed", "shardId-000000000000")
        assert [r["Data"] for r in records] == [b"x"]
        with pytest.raises(ClientError) as e:
            reader.put_record(StreamName="feed", Data=b"y", PartitionKey="k")
        assert error(e)[0] == "AccessDeniedException"
        assert "kinesis:PutRecord" in error(e)[1]
        with pytest.raises(ClientError) as e:
            reader.describe_stream(StreamName="other")
        assert error(e)[0] == "AccessDeniedException"
        wrong = kinesis_client(endpoint, "AKIDADMIN", "not-the-secret", "us-east-1")
        with pytest.raises(ClientError) as e:
            wrong.list_streams()
        assert error(e)[0] == "InvalidSignatureException"


def ddb_client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="eu-west-1",
                        aws_access_key_id="kura-test", aws_secret_access_key="kura-test",
                        config=Config(retries={"max_attempts": 1}))


def change_records(kinesis, name):
    """Every record of every shard of stream NAME, decoded, with its partition key."""
    out = []
    shards = kinesis.list_shards(StreamName=name)["Shards"]
    for shard in shards:
        records, _ = read_shard(kinesis, name, shard["ShardId"])
        out += [(r["PartitionKey"], json.loads(r["Data"])) for r in records]
    return out


def test_a_tables_changes_stream_to_kinesis_as_dynamodb_writes_them(endpoint, kinesis,
                                                                   stream_name):
    ddb = ddb_client(endpoint)
    table = "dest-" + uuid.uuid4().hex[:10]
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}])
    kinesis.create_stream(StreamName=stream_name, ShardCount=2)
    arn = kinesis.describe_stream_summary(StreamName=stream_name)[
        "StreamDescriptionSummary"]["StreamARN"]
    assert ddb.describe_kinesis_streaming_destination(TableName=table)[
        "KinesisDataStreamDestinations"] == []
    ddb.put_item(TableName=table, Item={"pk": {"S": "before"}, "sk": {"N": "0"}})
    enabled = ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert (enabled["TableName"], enabled["StreamArn"], enabled["DestinationStatus"]) == \
        (table, arn, "ENABLING")
    described = ddb.describe_kinesis_streaming_destination(TableName=table)
    assert described["KinesisDataStreamDestinations"] == [{
        "StreamArn": arn, "DestinationStatus": "ACTIVE",
        "ApproximateCreationDateTimePrecision": "MILLISECOND"}]

    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "1"}})
    ddb.update_item(TableName=table, Key={"pk": {"S": "a"}, "sk": {"N": "1"}},
                    UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "2"}})
    # The same values again change nothing, so they have no record.
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"N": "2"}})
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}, "sk": {"N": "1"}})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"pk": {"S": "t"}, "sk": {"N": str(i)}}}}
        for i in range(3)])
    before = time.time()
    records = change_records(kinesis, stream_name)
    item_a = sorted((r for r in records if r[1]["dynamodb"]["Keys"]["pk"] == {"S": "a"}),
                    key=lambda r: r[1]["dynamodb"]["ApproximateCreationDateTime"])
    assert [r[1]["eventName"] for r in item_a] == ["INSERT", "MODIFY", "REMOVE"]
    assert len({pk for pk, _ in item_a}) == 1  # one item, one partition key, one shard
    insert, modify, remove = (r[1] for r in item_a)
    assert insert["tableName"] == table and insert["awsRegion"] == "eu-west-1"
    assert insert["eventSource"] == "aws:dynamodb"
    assert insert["recordFormat"] == "application/json"
    assert insert["userIdentity"] is None
    assert re.fullmatch(r"[0-9a-f-]{36}", insert["eventID"])
    assert insert["dynamodb"]["Keys"] == {"pk": {"S": "a"}, "sk": {"N": "1"}}
    assert insert["dynamodb"]["NewImage"]["v"] == {"N": "1"}
    assert "OldImage" not in insert["dynamodb"]
    assert modify["dynamodb"]["OldImage"]["v"] == {"N": "1"}
    assert modify["dynamodb"]["NewImage"]["v"] == {"N": "2"}
    assert remove["dynamodb"]["OldImage"]["v"] == {"N": "2"}
    assert "NewImage" not in remove["dynamodb"]
    assert insert["dynamodb"]["SizeBytes"] > 0
    created_ms = insert["dynamodb"]["ApproximateCreationDateTime"]
    assert abs(created_ms / 1000 - before) < 120
    assert sum(1 for r in records if r[1]["dynamodb"]["Keys"]["pk"] == {"S": "t"}) == 3
    assert not [r for r in records if r[1]["dynamodb"]["Keys"]["pk"] == {"S": "before"}]

    updated = ddb.update_kinesis_streaming_destination(
        TableName=table, StreamArn=arn,
        UpdateKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    assert updated["DestinationStatus"] == "UPDATING"
    ddb.put_item(TableName=table, Item={"pk": {"S": "micro"}, "sk": {"N": "1"}})
    micro = [r[1] for r in change_records(kinesis, stream_name)
             if r[1]["dynamodb"]["Keys"]["pk"] == {"S": "micro"}]
    assert micro[0]["dynamodb"]["ApproximateCreationDateTimePrecision"] == "MICROSECOND"
    assert abs(micro[0]["dynamodb"]["ApproximateCreationDateTime"] / 1e6 - time.time()) < 120

    with pytest.raises(ClientError) as e:
        ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert error(e)[0] == "ValidationException"
    disabled = ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert disabled["DestinationStatus"] == "DISABLING"
    assert ddb.describe_kinesis_streaming_destination(TableName=table)[
        "KinesisDataStreamDestinations"][0]["DestinationStatus"] == "DISABLED"
    count = len(change_records(kinesis, stream_name))
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}, "sk": {"N": "1"}})
    assert len(change_records(kinesis, stream_name)) == count

    with pytest.raises(ClientError) as e:
        ddb.enable_kinesis_streaming_destination(
            TableName=table, StreamArn=arn.replace(stream_name, stream_name + "-missing"))
    assert error(e)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as e:
        ddb.describe_kinesis_streaming_destination(TableName=table + "-missing")
    assert error(e) == ("ResourceNotFoundException",
                        f"Requested resource not found: Table: {table}-missing not found")


def test_every_acknowledged_change_reaches_kinesis_once_across_kill_9(tmp_path):
    """Writers bump per-key versions with conditional updates while the server is killed
    three times. Afterwards each key's change records carry the versions 1..N exactly once
    and in order, where N is the item's version (at least the last acknowledged one)."""
    data = tmp_path / "data"
    log_path = tmp_path / "kura.log"

    def start():
        return start_kura(data, log_path)

    proc, endpoint = start()
    ddb = ddb_client(endpoint)
    ddb.create_table(TableName="cdc", BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    kinesis = kinesis_client(endpoint)
    kinesis.create_stream(StreamName="cdc", ShardCount=3)
    arn = kinesis.describe_stream_summary(StreamName="cdc")["StreamDescriptionSummary"]["StreamARN"]
    ddb.enable_kinesis_streaming_destination(TableName="cdc", StreamArn=arn)
    keys = [f"k{i}" for i in range(12)]
    acknowledged = {k: 0 for k in keys}
    lock = threading.Lock()
    for cycle in range(3):
        stop = threading.Event()

        def writer(w):
            client = ddb_client(endpoint)
            mine = keys[w::4]
            while not stop.is_set():
                for key in mine:
                    try:
                        item = client.get_item(TableName="cdc", Key={"pk": {"S": key}},
                                               ConsistentRead=True).get("Item")
                        version = int(item["v"]["N"]) if item else 0
                        condition = {"ConditionExpression": "v = :old",
                                     "ExpressionAttributeValues": {
                                         ":old": {"N": str(version)},
                                         ":new": {"N": str(version + 1)}}} if item else {
                            "ConditionExpression": "attribute_not_exists(pk)",
                            "ExpressionAttributeValues": {":new": {"N": "1"}}}
                        client.update_item(TableName="cdc", Key={"pk": {"S": key}},
                                           UpdateExpression="SET v = :new", **condition)
                    except Exception:
                        return  # killed, or not acknowledged
                    with lock:
                        acknowledged[key] = max(acknowledged[key], version + 1)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join()
        proc, endpoint = start()
    try:
        ddb = ddb_client(endpoint)
        kinesis = kinesis_client(endpoint)
        by_key = {}
        for _, record in change_records(kinesis, "cdc"):
            key = record["dynamodb"]["Keys"]["pk"]["S"]
            by_key.setdefault(key, []).append(int(record["dynamodb"]["NewImage"]["v"]["N"]))
        assert sum(acknowledged.values()) > 20
        for key in keys:
            item = ddb.get_item(TableName="cdc", Key={"pk": {"S": key}},
                                ConsistentRead=True).get("Item")
            final = int(item["v"]["N"]) if item else 0
            assert final >= acknowledged[key], key
            # Shards are read one after another and one key lives in one shard, so its
            # records come in order.
            assert by_key.get(key, []) == list(range(1, final + 1)), key
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_trigger_reads_the_tables_changes_from_kinesis_across_kill_9(tmp_path):
    """The guideline's change-data-capture pattern end to end: a table streams its changes
    to Kinesis, and a trigger (Lambda's Kinesis event source mapping) delivers them to a
    function, filtered on the decoded data, a poison record bisected out to the failure
    table, across a kill -9 of Kura."""
    function = pathlib.Path(__file__).parent / "functions" / "kinesis_recorder.py"
    out = tmp_path / "delivered.jsonl"
    triggers = tmp_path / "triggers.json"
    triggers.write_text(json.dumps({"Triggers": [{
        "Name": "orders-cdc",
        "KinesisStream": "arn:aws:kinesis:us-east-1:000000000000:stream/orders-cdc",
        "Function": {"Command": [sys.executable, str(function), str(out)]},
        "BatchSize": 10,
        "StartingPosition": "TRIM_HORIZON",
        "BisectBatchOnFunctionError": True,
        "MaximumRetryAttempts": 1,
        "DestinationConfig": {"OnFailure": {"Destination": "table/orders-dlq"}},
        "FilterCriteria": {"Filters": [{"Pattern": json.dumps(
            {"data": {"tableName": ["orders"], "eventName": ["INSERT", "MODIFY"]}})}]},
    }]}))
    data = tmp_path / "data"
    log_path = tmp_path / "kura.log"

    def start():
        return start_kura(data, log_path, "--triggers", str(triggers))

    def delivered():
        if not out.exists():
            return []
        return [json.loads(l) for l in out.read_text().splitlines() if l.strip()]

    def wait_for(what, check, timeout=90):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if check():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}: {delivered()[-3:]}")

    proc, endpoint = start()
    try:
        ddb = ddb_client(endpoint)
        for name, key in (("orders", "pk"), ("orders-dlq", "id")):
            ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                             AttributeDefinitions=[{"AttributeName": key, "AttributeType": "S"}],
                             KeySchema=[{"AttributeName": key, "KeyType": "HASH"}])
        kinesis = kinesis_client(endpoint, region="us-east-1")
        kinesis.create_stream(StreamName="orders-cdc", ShardCount=2)
        ddb.enable_kinesis_streaming_destination(
            TableName="orders",
            StreamArn="arn:aws:kinesis:us-east-1:000000000000:stream/orders-cdc")
        for i in range(15):
            ddb.put_item(TableName="orders", Item={"pk": {"S": f"o{i:02}"}, "v": {"N": "1"}})
        ddb.put_item(TableName="orders", Item={"pk": {"S": "bad"}, "poison": {"BOOL": True}})
        ddb.delete_item(TableName="orders", Key={"pk": {"S": "o00"}})  # filtered out
        wait_for("the first changes", lambda: len(delivered()) >= 5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    proc, endpoint = start()
    try:
        ddb = ddb_client(endpoint)
        for i in range(15):
            ddb.update_item(TableName="orders", Key={"pk": {"S": f"o{i:02}"}},
                            UpdateExpression="SET v = :v",
                            ExpressionAttributeValues={":v": {"N": "2"}})

        def versions():
            seen = {}
            for line in delivered():
                image = line["data"]["dynamodb"]["NewImage"]
                seen.setdefault(image["pk"]["S"], []).append(int(image["v"]["N"]))
            return seen

        wait_for("every change", lambda: all(
            set(versions().get(f"o{i:02}", [])) == {1, 2} for i in range(15)))
        wait_for("the poison record in the failure table",
                 lambda: ddb.scan(TableName="orders-dlq")["Items"])
        for pk, seen in versions().items():
            # At least once, in order: a redelivered batch repeats what it sent.
            assert seen == sorted(seen), (pk, seen)
        assert "bad" not in versions()
        assert all(l["data"]["eventName"] != "REMOVE" for l in delivered())
        shape = delivered()[0]["shape"]
        assert shape["eventSource"] == "aws:kinesis"
        assert shape["eventName"] == "aws:kinesis:record"
        assert shape["eventSourceARN"] == \
            "arn:aws:kinesis:us-east-1:000000000000:stream/orders-cdc"
        assert re.fullmatch(r"shardId-\d{12}:49\d{54}", shape["eventID"])
        assert shape["kinesisKeys"] == ["approximateArrivalTimestamp", "data",
                                        "kinesisSchemaVersion", "partitionKey",
                                        "sequenceNumber"]
        (letter,) = ddb.scan(TableName="orders-dlq")["Items"]
        assert letter["KinesisBatchInfo"]["M"]["batchSize"]["N"] == "1"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_resharding_keeps_lineage_and_every_key_in_order(kinesis, stream_name):
    """SplitShard, MergeShards and UpdateShardCount close shards and open children that
    name them; a reader that finishes parents first reads each partition key in order."""
    kinesis.create_stream(StreamName=stream_name, ShardCount=2)
    sent = {}

    def put(n):
        for i in range(n):
            key = f"key-{i % 7}"
            seq = kinesis.put_record(StreamName=stream_name, Data=str(len(sent)).encode(),
                                     PartitionKey=key)["SequenceNumber"]
            sent.setdefault(key, []).append(seq)

    put(20)
    kinesis.split_shard(StreamName=stream_name, ShardToSplit="shardId-000000000000",
                        NewStartingHashKey=str(2**126))
    put(20)
    shards = {s["ShardId"]: s for s in kinesis.list_shards(StreamName=stream_name)["Shards"]}
    assert shards["shardId-000000000002"]["ParentShardId"] == "shardId-000000000000"
    assert shards["shardId-000000000002"]["HashKeyRange"]["EndingHashKey"] == str(2**126 - 1)
    assert shards["shardId-000000000003"]["HashKeyRange"]["StartingHashKey"] == str(2**126)
    assert "EndingSequenceNumber" in shards["shardId-000000000000"]["SequenceNumberRange"]
    kinesis.merge_shards(StreamName=stream_name, ShardToMerge="shardId-000000000003",
                         AdjacentShardToMerge="shardId-000000000001")
    put(20)
    merged = kinesis.list_shards(StreamName=stream_name,
                                 ShardFilter={"Type": "AT_LATEST"})["Shards"]
    assert [(s["ShardId"], s["ParentShardId"], s["AdjacentParentShardId"])
            for s in merged if "AdjacentParentShardId" in s] == \
        [("shardId-000000000004", "shardId-000000000003", "shardId-000000000001")]
    out = kinesis.update_shard_count(StreamName=stream_name, TargetShardCount=4,
                                     ScalingType="UNIFORM_SCALING")
    assert (out["CurrentShardCount"], out["TargetShardCount"]) == (2, 4)
    put(20)
    assert kinesis.describe_stream_summary(StreamName=stream_name)[
        "StreamDescriptionSummary"]["OpenShardCount"] == 4

    with pytest.raises(ClientError) as e:
        kinesis.split_shard(StreamName=stream_name, ShardToSplit="shardId-000000000000",
                            NewStartingHashKey="5")
    assert error(e)[0] == "ResourceInUseException"
    with pytest.raises(ClientError) as e:
        kinesis.update_shard_count(StreamName=stream_name, TargetShardCount=9,
                                   ScalingType="UNIFORM_SCALING")
    assert error(e)[0] == "LimitExceededException"

    # Read every shard, parents before children, as a consumer must.
    all_shards = kinesis.list_shards(StreamName=stream_name)["Shards"]
    done, order = set(), []
    while len(done) < len(all_shards):
        for s in all_shards:
            parents = {s.get("ParentShardId"), s.get("AdjacentParentShardId")} - {None}
            if s["ShardId"] in done or not parents <= done:
                continue
            it = kinesis.get_shard_iterator(StreamName=stream_name, ShardId=s["ShardId"],
                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            while it:
                page = kinesis.get_records(ShardIterator=it)
                order += [(r["PartitionKey"], r["SequenceNumber"]) for r in page["Records"]]
                if "EndingSequenceNumber" not in s["SequenceNumberRange"] and not page["Records"]:
                    break  # an open shard read to its end
                if page.get("NextShardIterator") is None:
                    # A closed shard read to its end names its children.
                    assert page["ChildShards"], s["ShardId"]
                it = page.get("NextShardIterator")
            done.add(s["ShardId"])
    for key, seqs in sent.items():
        assert [q for k, q in order if k == key] == seqs, key


def cbor_call(endpoint, operation, body, key="kura-test", secret="kura-test"):
    """One Kinesis request as the AWS SDK for Java sends it by default: a CBOR body
    (`application/x-amz-cbor-1.1`), signed with SigV4 for `kinesis`."""
    import cbor2
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method="POST", url=endpoint + "/", data=cbor2.dumps(body), headers={
        "Content-Type": "application/x-amz-cbor-1.1",
        "X-Amz-Target": f"Kinesis_20131202.{operation}",
    })
    SigV4Auth(Credentials(key, secret), "kinesis", "us-east-1").add_auth(request)
    prepared = request.prepare()
    http = urllib.request.Request(prepared.url, data=prepared.body, method="POST",
                                  headers=dict(prepared.headers))
    try:
        with urllib.request.urlopen(http, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], cbor2.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], cbor2.loads(e.read())


def test_the_java_sdks_cbor_encoding_is_served(endpoint, stream_name):
    import datetime

    import cbor2
    status, content_type, _ = cbor_call(endpoint, "CreateStream",
                                        {"StreamName": stream_name, "ShardCount": 1})
    assert (status, content_type) == (200, "application/x-amz-cbor-1.1")
    payload = bytes(range(256))
    status, _, put = cbor_call(endpoint, "PutRecord", {
        "StreamName": stream_name, "Data": payload, "PartitionKey": "k"})
    assert status == 200 and put["ShardId"] == "shardId-000000000000"
    _, _, it = cbor_call(endpoint, "GetShardIterator", {
        "StreamName": stream_name, "ShardId": put["ShardId"],
        "ShardIteratorType": "AT_TIMESTAMP",
        "Timestamp": cbor2.CBORTag(1, time.time() - 60)})
    _, _, page = cbor_call(endpoint, "GetRecords", {"ShardIterator": it["ShardIterator"]})
    (record,) = page["Records"]
    assert record["Data"] == payload  # a byte string, not base64 text
    assert record["SequenceNumber"] == put["SequenceNumber"]
    assert isinstance(record["ApproximateArrivalTimestamp"], datetime.datetime)  # tag 1
    _, _, described = cbor_call(endpoint, "DescribeStreamSummary", {"StreamName": stream_name})
    created = described["StreamDescriptionSummary"]["StreamCreationTimestamp"]
    assert isinstance(created, datetime.datetime)
    status, content_type, refused = cbor_call(endpoint, "DescribeStream",
                                              {"StreamName": stream_name + "-missing"})
    assert (status, content_type) == (400, "application/x-amz-cbor-1.1")
    assert refused["__type"] == "ResourceNotFoundException"
    assert refused["message"] == \
        f"Stream {stream_name}-missing under account 000000000000 not found."
    # A body that is not CBOR is refused as one.
    request = urllib.request.Request(endpoint + "/", data=b"\xff\x00", method="POST", headers={
        "Content-Type": "application/x-amz-cbor-1.1",
        "X-Amz-Target": "Kinesis_20131202.ListStreams"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request, timeout=30)
    assert cbor2.loads(e.value.read())["__type"] == "SerializationException"
