"""Interop: DynamoDB Streams and time to live from boto3 and the AWS CLI.

The seed's stream handler (a search index kept by a consumer that follows shard lineage
and checkpoints by sequence number, equal to a Scan after puts, updates, deletes, batch
writes and transactions), the images each view type carries, no record for a write that
changes nothing, what DescribeTable says about a stream as it is enabled, disabled and
re-enabled, the shard iterator types and their errors, TTL expiry (the item, its GSI entry
and a stream record marked as the TTL service's), and the CLI's `dynamodbstreams` and
`describe-time-to-live` commands.

Kura's sweeper deletes expired items within a second or two (DynamoDB: within days), so
the TTL test polls for a few seconds at most."""

import json
import re
import subprocess
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import boto3
import pytest
from boto3.dynamodb.types import TypeDeserializer
from botocore.exceptions import ClientError

INVALID = "One or more parameter values were invalid: "
ACCOUNT = "000000000000"
TTL_SERVICE = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
# A stream label is the stream's creation time in UTC, with milliseconds.
LABEL = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$")
IMAGES = {"NewImage", "OldImage"}

_deserializer = TypeDeserializer()


def plain(image):
    """A wire-format item ({"S": ...}) as Python values."""
    return {k: _deserializer.deserialize(v) for k, v in image.items()}


def failure(excinfo):
    """(code, message) of a ClientError."""
    err = excinfo.value.response["Error"]
    return err["Code"], err["Message"]


def wire_key(pk, sk):
    return {"PK": {"S": pk}, "SK": {"S": sk}}


def key_of(record):
    keys = plain(record["dynamodb"]["Keys"])
    return keys["PK"], keys["SK"]


def per_item(events):
    """(eventName, key) pairs grouped by key, in order: a stream orders the records of one
    item (they share a shard); records of different items may be in different shards."""
    out = {}
    for event, key in events:
        out.setdefault(key, []).append(event)
    return out


# ---- fixtures ----


@pytest.fixture()
def table_name(table_name, ddb):
    """conftest's table name; the table, and any `<name>-<suffix>` a test made with
    `new_table`, is deleted afterwards."""
    yield table_name
    try:
        ddb.delete_table(TableName=table_name)
    except ddb.exceptions.ResourceNotFoundException:
        pass


@pytest.fixture()
def new_table(ddb, table_name):
    """Creates a PK/SK table named after the test (plus a suffix), with a stream of the
    given view type (None: no stream); deletes every table it made afterwards."""
    made = []

    def create(suffix="", view_type="NEW_AND_OLD_IMAGES", definitions=(), **extra):
        name = table_name + suffix
        request = dict(
            TableName=name,
            AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"},
                {"AttributeName": "SK", "AttributeType": "S"},
                *definitions,
            ],
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            BillingMode="PAY_PER_REQUEST",
            **extra,
        )
        if view_type:
            request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
        ddb.create_table(**request)
        made.append(name)
        return name

    yield create
    for name in made:
        try:
            ddb.delete_table(TableName=name)
        except ddb.exceptions.ResourceNotFoundException:
            pass


@pytest.fixture()
def dynamodb(endpoint, aws_env):
    return boto3.resource(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )


@pytest.fixture()
def streams(endpoint, aws_env):
    """The DynamoDB Streams client, as a consumer written for AWS makes it."""
    return boto3.client(
        "dynamodbstreams",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )


@pytest.fixture()
def aws_streams(endpoint, aws_env):
    """Runs `aws dynamodbstreams ...` against Kura (conftest's `aws` runs `aws dynamodb`)."""

    def run(*args):
        cmd = ["aws", "dynamodbstreams", "--endpoint-url", endpoint, "--output", "json", *args]
        proc = subprocess.run(cmd, env=aws_env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed: {proc.stderr}"
        return json.loads(proc.stdout) if proc.stdout.strip() else None

    return run


# ---- reading a stream as a consumer does ----


def stream_arn(streams, table):
    """The ARN of the table's only stream, from ListStreams."""
    listed = streams.list_streams(TableName=table)["Streams"]
    assert [s["TableName"] for s in listed] == [table]
    return listed[0]["StreamArn"]


def describe_shards(streams, arn):
    """Every shard of a stream, over DescribeStream's pages."""
    shards, start = [], None
    while True:
        kwargs = {"ExclusiveStartShardId": start} if start else {}
        description = streams.describe_stream(StreamArn=arn, **kwargs)["StreamDescription"]
        shards += description["Shards"]
        start = description.get("LastEvaluatedShardId")
        if not start:
            return shards


def parents_first(shards):
    """Shards ordered so that each comes after its parent (a parent no longer listed, its
    records trimmed, makes its child a root)."""
    listed = {s["ShardId"] for s in shards}
    ordered, done, pending = [], set(), list(shards)
    while pending:
        ready = [s for s in pending if s.get("ParentShardId") not in listed or s["ParentShardId"] in done]
        assert ready, f"shard lineage has a cycle: {pending}"
        for shard in ready:
            ordered.append(shard)
            done.add(shard["ShardId"])
            pending.remove(shard)
    return ordered


def drain(streams, iterator):
    """GetRecords from `iterator` until a page is empty (the open shard's present) or the
    shard ends (no NextShardIterator: a closed shard read to its end)."""
    records = []
    while iterator:
        page = streams.get_records(ShardIterator=iterator)
        records += page["Records"]
        if not page["Records"]:
            break
        iterator = page.get("NextShardIterator")
    return records


def read_shard(streams, arn, shard_id, iterator_type="TRIM_HORIZON", **kwargs):
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id, ShardIteratorType=iterator_type, **kwargs
    )["ShardIterator"]
    return drain(streams, iterator)


def shard_holding_records(streams, arn):
    """The shard that holds the stream's records (tests that write one item's records)."""
    for shard in describe_shards(streams, arn):
        if read_shard(streams, arn, shard["ShardId"]):
            return shard
    raise AssertionError("no shard holds a record")


def read_all_records(streams, arn):
    """Every record of the stream: each shard from its trim horizon, parents first."""
    records = []
    for shard in parents_first(describe_shards(streams, arn)):
        records += read_shard(streams, arn, shard["ShardId"])
    return records


class Consumer:
    """A stream reader that, like a Lambda trigger, remembers the last sequence number it
    processed in each shard and resumes after it on the next poll."""

    def __init__(self, streams, arn):
        self.streams, self.arn = streams, arn
        self.checkpoints = {}  # shard id -> last sequence number processed

    def poll(self):
        new = []
        for shard in parents_first(describe_shards(self.streams, self.arn)):
            shard_id = shard["ShardId"]
            if shard_id in self.checkpoints:
                records = read_shard(
                    self.streams,
                    self.arn,
                    shard_id,
                    "AFTER_SEQUENCE_NUMBER",
                    SequenceNumber=self.checkpoints[shard_id],
                )
            else:
                records = read_shard(self.streams, self.arn, shard_id)
            if records:
                self.checkpoints[shard_id] = records[-1]["dynamodb"]["SequenceNumber"]
            new += records
        return new


class SearchIndex:
    """The seed's stream handler: a search index of the table's items, by (PK, SK)."""

    def __init__(self):
        self.docs = {}

    def handle(self, record):
        key = key_of(record)
        event = record["eventName"]
        image = record["dynamodb"]
        # The images chain: each change starts from the item the previous one left.
        if event == "INSERT":
            assert key not in self.docs, record
            assert "OldImage" not in image
            self.docs[key] = plain(image["NewImage"])
        elif event == "MODIFY":
            assert plain(image["OldImage"]) == self.docs[key], record
            self.docs[key] = plain(image["NewImage"])
        else:
            assert event == "REMOVE", record
            assert "NewImage" not in image
            assert plain(image["OldImage"]) == self.docs.pop(key), record


def scan_items(ddb, table):
    items, start = {}, None
    while True:
        kwargs = {"ExclusiveStartKey": start} if start else {}
        page = ddb.scan(TableName=table, ConsistentRead=True, **kwargs)
        for item in page["Items"]:
            item = plain(item)
            items[(item["PK"], item["SK"])] = item
        start = page.get("LastEvaluatedKey")
        if not start:
            return items


def check_record_shape(record, region, view_type):
    assert record["eventSource"] == "aws:dynamodb"
    assert record["eventVersion"] == "1.1"
    assert record["awsRegion"] == region
    assert record["eventName"] in ("INSERT", "MODIFY", "REMOVE")
    assert isinstance(record["eventID"], str) and record["eventID"], record
    body = record["dynamodb"]
    assert set(body["Keys"]) == {"PK", "SK"}
    assert body["SizeBytes"] > 0
    assert body["StreamViewType"] == view_type
    assert re.fullmatch(r"\d{21,40}", body["SequenceNumber"]), body["SequenceNumber"]
    made = body["ApproximateCreationDateTime"]
    assert abs(made - datetime.now(timezone.utc)) < timedelta(minutes=5), made
    assert "userIdentity" not in record


# ---- the seed pattern: a search index fed by the stream ----


def test_search_index_follows_the_table(ddb, dynamodb, streams, new_table, aws_env):
    name = new_table()
    table = dynamodb.Table(name)
    arn = stream_arn(streams, name)
    consumer, index = Consumer(streams, arn), SearchIndex()
    expected_events = []  # (eventName, (PK, SK)) in write order

    def wrote(event, pk, sk):
        expected_events.append((event, (pk, sk)))

    # Round 1: single-item writes and a batch.
    for i in range(3):
        table.put_item(Item={"PK": "USER#1", "SK": f"POST#{i}", "title": f"post {i}", "likes": 0})
        wrote("INSERT", "USER#1", f"POST#{i}")
    table.update_item(
        Key={"PK": "USER#1", "SK": "POST#1"},
        UpdateExpression="SET title = :t ADD likes :one",
        ExpressionAttributeValues={":t": "post one, edited", ":one": 1},
    )
    wrote("MODIFY", "USER#1", "POST#1")
    table.update_item(  # an update that creates the item
        Key={"PK": "USER#2", "SK": "PROFILE"},
        UpdateExpression="SET #n = :n, tags = :tags",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":n": "Ada", ":tags": {"math", "engines"}},
    )
    wrote("INSERT", "USER#2", "PROFILE")
    table.delete_item(Key={"PK": "USER#1", "SK": "POST#0"})
    wrote("REMOVE", "USER#1", "POST#0")
    ddb.batch_write_item(
        RequestItems={
            name: [
                *(
                    {"PutRequest": {"Item": {"PK": {"S": "USER#3"}, "SK": {"S": f"POST#{i}"}, "n": {"N": str(i)}}}}
                    for i in range(4)
                ),
                {"DeleteRequest": {"Key": {"PK": {"S": "USER#1"}, "SK": {"S": "POST#2"}}}},
            ]
        }
    )
    batch_events = [("INSERT", ("USER#3", f"POST#{i}")) for i in range(4)] + [("REMOVE", ("USER#1", "POST#2"))]

    first = consumer.poll()
    for record in first:
        index.handle(record)
    assert per_item((r["eventName"], key_of(r)) for r in first) == per_item(
        expected_events + batch_events
    )
    assert index.docs == scan_items(ddb, name)

    # Round 2: a transaction, an overwrite, and writes that fail (no records).
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": name, "Item": {**wire_key("USER#4", "PROFILE"), "name": {"S": "Grace"}}}},
            {
                "Update": {
                    "TableName": name,
                    "Key": wire_key("USER#3", "POST#0"),
                    "UpdateExpression": "SET n = n + :d REMOVE gone",
                    "ExpressionAttributeValues": {":d": {"N": "10"}},
                }
            },
            {"Delete": {"TableName": name, "Key": wire_key("USER#3", "POST#1")}},
            {
                "ConditionCheck": {
                    "TableName": name,
                    "Key": wire_key("USER#2", "PROFILE"),
                    "ConditionExpression": "attribute_exists(PK)",
                }
            },
        ]
    )
    transaction_events = [
        ("INSERT", ("USER#4", "PROFILE")),
        ("MODIFY", ("USER#3", "POST#0")),
        ("REMOVE", ("USER#3", "POST#1")),
    ]
    table.put_item(Item={"PK": "USER#1", "SK": "POST#1", "title": "replaced"})
    with pytest.raises(ClientError) as err:
        table.put_item(
            Item={"PK": "USER#1", "SK": "POST#1", "title": "never"}, ConditionExpression="attribute_not_exists(PK)"
        )
    assert failure(err)[0] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as err:
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": name, "Item": wire_key("USER#5", "PROFILE")}},
                {
                    "ConditionCheck": {
                        "TableName": name,
                        "Key": wire_key("USER#9", "PROFILE"),
                        "ConditionExpression": "attribute_exists(PK)",
                    }
                },
            ]
        )
    assert failure(err)[0] == "TransactionCanceledException"

    second = consumer.poll()
    for record in second:
        index.handle(record)
    # The items of one transaction have no order among themselves; the overwrite follows.
    assert per_item((r["eventName"], key_of(r)) for r in second) == per_item(
        transaction_events + [("MODIFY", ("USER#1", "POST#1"))]
    )
    assert index.docs == scan_items(ddb, name)
    assert index.docs[("USER#3", "POST#0")] == {"PK": "USER#3", "SK": "POST#0", "n": Decimal(10)}
    assert index.docs[("USER#2", "PROFILE")]["tags"] == {"math", "engines"}
    assert consumer.poll() == []  # nothing new

    # The whole stream, read again from the trim horizon, is both rounds.
    everything = read_all_records(streams, arn)
    assert len(first) == 11 and len(second) == 4
    assert sorted(r["eventID"] for r in everything) == sorted(r["eventID"] for r in first + second)
    assert len({r["eventID"] for r in everything}) == 15
    sequence = [int(r["dynamodb"]["SequenceNumber"]) for r in everything]
    assert len(set(sequence)) == 15, "sequence numbers are unique"
    by_item = {}
    for record in everything:
        by_item.setdefault(key_of(record), []).append(int(record["dynamodb"]["SequenceNumber"]))
    for key, numbers in by_item.items():
        assert numbers == sorted(numbers), f"{key}: sequence numbers increase"
    for record in everything:
        check_record_shape(record, aws_env["AWS_DEFAULT_REGION"], "NEW_AND_OLD_IMAGES")


# ---- the images each view type carries ----


@pytest.mark.parametrize(
    "view_type, images",
    [
        ("KEYS_ONLY", [set(), set(), set()]),
        ("NEW_IMAGE", [{"NewImage"}, {"NewImage"}, set()]),
        ("OLD_IMAGE", [set(), {"OldImage"}, {"OldImage"}]),
        ("NEW_AND_OLD_IMAGES", [{"NewImage"}, {"NewImage", "OldImage"}, {"OldImage"}]),
    ],
)
def test_view_types(ddb, streams, new_table, aws_env, view_type, images):
    name = new_table("-" + view_type.lower(), view_type)
    k = {"PK": {"S": "doc"}, "SK": {"S": "v"}}
    v1 = {**k, "body": {"S": "first"}}
    v2 = {**k, "body": {"S": "second"}, "n": {"N": "2"}}
    ddb.put_item(TableName=name, Item=v1)
    ddb.put_item(TableName=name, Item=v2)
    ddb.delete_item(TableName=name, Key=k)

    arn = stream_arn(streams, name)
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamViewType"] == view_type
    assert description["StreamStatus"] == "ENABLED"
    assert description["TableName"] == name
    assert description["KeySchema"] == [
        {"AttributeName": "PK", "KeyType": "HASH"},
        {"AttributeName": "SK", "KeyType": "RANGE"},
    ]
    records = read_all_records(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    assert [set(r["dynamodb"]) & IMAGES for r in records] == images
    wanted_new = [v1, v2, None]
    wanted_old = [None, v1, v2]
    for record, new, old in zip(records, wanted_new, wanted_old):
        check_record_shape(record, aws_env["AWS_DEFAULT_REGION"], view_type)
        assert record["dynamodb"]["Keys"] == k
        if "NewImage" in record["dynamodb"]:
            assert record["dynamodb"]["NewImage"] == new
        if "OldImage" in record["dynamodb"]:
            assert record["dynamodb"]["OldImage"] == old


# ---- writes that change nothing ----


def test_no_record_for_a_write_that_changes_nothing(ddb, streams, new_table):
    name = new_table()
    k = {"PK": {"S": "same"}, "SK": {"S": "item"}}
    item = {**k, "v": {"N": "2"}, "tags": {"SS": ["a", "b"]}, "doc": {"M": {"x": {"L": [{"S": "y"}]}}}}
    ddb.put_item(TableName=name, Item=item)  # INSERT
    ddb.put_item(TableName=name, Item=item)  # identical
    # The same item written differently: a number with a trailing zero, attributes in
    # another order.
    ddb.put_item(TableName=name, Item={"doc": item["doc"], "tags": item["tags"], **k, "v": {"N": "2.0"}})
    # Sets are unordered: the same members in another order are the same data.
    ddb.put_item(TableName=name, Item={**item, "tags": {"SS": ["b", "a"]}})
    ddb.update_item(
        TableName=name, Key=k, UpdateExpression="SET tags = :t", ExpressionAttributeValues={":t": {"SS": ["a", "b"]}}
    )
    ddb.update_item(
        TableName=name, Key=k, UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "2"}}
    )
    ddb.update_item(TableName=name, Key=k, UpdateExpression="REMOVE nothing_here")
    ddb.delete_item(TableName=name, Key={"PK": {"S": "same"}, "SK": {"S": "absent"}})
    ddb.batch_write_item(
        RequestItems={name: [{"DeleteRequest": {"Key": {"PK": {"S": "nobody"}, "SK": {"S": "x"}}}}]}
    )
    ddb.update_item(  # a real change closes the series
        TableName=name, Key=k, UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "3"}}
    )
    records = read_all_records(streams, stream_arn(streams, name))
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY"]
    assert records[1]["dynamodb"]["OldImage"]["v"] == {"N": "2"}
    assert records[1]["dynamodb"]["NewImage"]["v"] == {"N": "3"}


# ---- DescribeTable, enabling and disabling ----


def test_describe_table_names_the_stream(ddb, streams, new_table, aws_env):
    before = datetime.now(timezone.utc) - timedelta(seconds=5)
    name = new_table(view_type="NEW_IMAGE")
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    label = table["LatestStreamLabel"]
    assert LABEL.match(label), label
    made = datetime.strptime(label, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)
    assert before <= made <= datetime.now(timezone.utc) + timedelta(seconds=5)
    region = aws_env["AWS_DEFAULT_REGION"]
    arn = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{name}/stream/{label}"
    assert table["LatestStreamArn"] == arn
    assert streams.list_streams(TableName=name)["Streams"] == [
        {"StreamArn": arn, "TableName": name, "StreamLabel": label}
    ]
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert (description["StreamArn"], description["StreamLabel"]) == (arn, label)
    shards = description["Shards"]
    # Four open shards, as a new on-demand table's stream has on AWS.
    assert len(shards) == 4 and not any("ParentShardId" in s for s in shards)
    assert not any("EndingSequenceNumber" in s["SequenceNumberRange"] for s in shards)
    # A table without a stream has none of these members.
    plain_table = new_table("-plain", view_type=None)
    described = ddb.describe_table(TableName=plain_table)["Table"]
    assert not {"StreamSpecification", "LatestStreamArn", "LatestStreamLabel"} & set(described)
    assert streams.list_streams(TableName=plain_table)["Streams"] == []


def test_disable_and_reenable_the_stream(ddb, streams, new_table):
    name = new_table(view_type="NEW_AND_OLD_IMAGES")
    k = {"PK": {"S": "a"}, "SK": {"S": "b"}}
    ddb.put_item(TableName=name, Item={**k, "v": {"N": "1"}})
    first = ddb.describe_table(TableName=name)["Table"]
    old_arn, old_label = first["LatestStreamArn"], first["LatestStreamLabel"]

    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    disabled = ddb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in disabled
    assert (disabled["LatestStreamArn"], disabled["LatestStreamLabel"]) == (old_arn, old_label)
    description = streams.describe_stream(StreamArn=old_arn)["StreamDescription"]
    assert description["StreamStatus"] == "DISABLED"
    # The old shards are closed; their records stay readable.
    for shard in description["Shards"]:
        numbers = shard["SequenceNumberRange"]
        assert numbers["EndingSequenceNumber"] == numbers["StartingSequenceNumber"]
    ddb.put_item(TableName=name, Item={**k, "v": {"N": "2"}})  # no stream: no record
    records = read_all_records(streams, old_arn)
    assert [(r["eventName"], r["dynamodb"]["NewImage"]["v"]) for r in records] == [("INSERT", {"N": "1"})]

    with pytest.raises(ClientError) as err:
        ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    assert failure(err) == ("ValidationException", f"Table has no stream to disable: TableName: {name}")
    with pytest.raises(ClientError) as err:
        ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": True})
    assert failure(err) == (
        "ValidationException",
        INVALID + "If stream is being enabled then UpdateViewType is required",
    )

    enable = {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    updated = ddb.update_table(TableName=name, StreamSpecification=enable)["TableDescription"]
    assert updated["StreamSpecification"] == enable
    new_arn = updated["LatestStreamArn"]
    assert new_arn != old_arn and new_arn.endswith("/stream/" + updated["LatestStreamLabel"])
    assert ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"] == new_arn
    with pytest.raises(ClientError) as err:
        ddb.update_table(TableName=name, StreamSpecification=enable)
    assert failure(err) == ("ValidationException", f"Table already has an enabled stream: TableName: {name}")

    # Both streams are listed; new writes go to the new one only.
    listed = streams.list_streams(TableName=name)["Streams"]
    assert sorted(s["StreamArn"] for s in listed) == sorted([old_arn, new_arn])
    ddb.delete_item(TableName=name, Key=k)
    assert streams.describe_stream(StreamArn=new_arn)["StreamDescription"]["StreamStatus"] == "ENABLED"
    new_records = read_all_records(streams, new_arn)
    assert [(r["eventName"], r["dynamodb"]["Keys"], set(r["dynamodb"]) & IMAGES) for r in new_records] == [
        ("REMOVE", k, set())
    ]
    assert len(read_all_records(streams, old_arn)) == 1


def test_create_table_stream_needs_a_view_type(ddb, table_name):
    request = dict(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    with pytest.raises(ClientError) as err:
        ddb.create_table(**request, StreamSpecification={"StreamEnabled": True})
    assert failure(err) == (
        "ValidationException",
        INVALID + "Table is being created with a stream enabled, UpdateViewType is required",
    )
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName=table_name)


# ---- shard iterators ----


def test_shard_iterator_types(ddb, streams, new_table):
    name = new_table(view_type="KEYS_ONLY")
    for i in range(3):
        ddb.put_item(TableName=name, Item={"PK": {"S": "k"}, "SK": {"S": str(i)}})
    arn = stream_arn(streams, name)
    shard = shard_holding_records(streams, arn)  # one item: one shard
    shard_id = shard["ShardId"]
    records = read_shard(streams, arn, shard_id)
    sks = lambda rs: [r["dynamodb"]["Keys"]["SK"]["S"] for r in rs]  # noqa: E731
    assert sks(records) == ["0", "1", "2"]
    seqs = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert shard["SequenceNumberRange"]["StartingSequenceNumber"] == seqs[0]

    # LATEST: only what is written after the iterator was issued.
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="LATEST")
    page = streams.get_records(ShardIterator=latest["ShardIterator"])
    assert page["Records"] == [] and page["NextShardIterator"]  # an open shard goes on
    ddb.put_item(TableName=name, Item={"PK": {"S": "k"}, "SK": {"S": "3"}})
    got = streams.get_records(ShardIterator=page["NextShardIterator"])["Records"]
    assert sks(got) == ["3"]
    got = streams.get_records(ShardIterator=latest["ShardIterator"])["Records"]
    assert sks(got) == ["3"]

    at = read_shard(streams, arn, shard_id, "AT_SEQUENCE_NUMBER", SequenceNumber=seqs[1])
    assert sks(at) == ["1", "2", "3"]
    after = read_shard(streams, arn, shard_id, "AFTER_SEQUENCE_NUMBER", SequenceNumber=seqs[1])
    assert sks(after) == ["2", "3"]

    # Limit pages through the shard.
    page = streams.get_records(
        ShardIterator=streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ],
        Limit=3,
    )
    assert sks(page["Records"]) == ["0", "1", "2"]
    assert sks(streams.get_records(ShardIterator=page["NextShardIterator"], Limit=3)["Records"]) == ["3"]


def test_shard_iterator_errors(ddb, streams, new_table, aws_env):
    name = new_table(view_type="KEYS_ONLY")
    arn = stream_arn(streams, name)
    with pytest.raises(ClientError) as err:
        streams.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="TRIM_HORIZON"
        )
    assert failure(err) == ("ResourceNotFoundException", "Requested resource not found: Shard does not exist")

    region = aws_env["AWS_DEFAULT_REGION"]
    missing = f"arn:aws:dynamodb:{region}:{ACCOUNT}:table/{name}-missing/stream/2026-01-01T00:00:00.000"
    shard = describe_shards(streams, arn)[0]
    with pytest.raises(ClientError) as err:
        streams.get_shard_iterator(StreamArn=missing, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
    assert failure(err) == ("ResourceNotFoundException", f"Requested resource not found: Stream: {missing} not found")
    with pytest.raises(ClientError) as err:
        streams.describe_stream(StreamArn=missing)
    assert failure(err) == ("ResourceNotFoundException", f"Requested resource not found: Stream: {missing} not found")

    with pytest.raises(ClientError) as err:
        streams.get_records(ShardIterator="not-an-iterator")
    assert failure(err)[0] == "ValidationException"


# ---- time to live ----


def wait_for(what, done, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.2)


def test_ttl_expires_due_items_only(ddb, streams, new_table):
    name = new_table(
        definitions=[{"AttributeName": "kind", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "ByKind",
                "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )
    now = int(time.time())
    k = lambda sk: {"PK": {"S": "session"}, "SK": {"S": sk}}  # noqa: E731

    def put(sk, **attrs):
        ddb.put_item(TableName=name, Item={**k(sk), "kind": {"S": "session"}, **attrs})

    # Written before TTL is enabled: found when it is.
    put("before", expires_at={"N": str(now - 60)})
    assert ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}

    spec = {"Enabled": True, "AttributeName": "expires_at"}
    out = ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=spec)
    assert out["TimeToLiveSpecification"] == spec
    assert ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires_at",
    }
    with pytest.raises(ClientError) as err:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification=spec)
    assert failure(err) == ("ValidationException", "TimeToLive is already enabled")
    with pytest.raises(ClientError) as err:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={**spec, "Enabled": False})
    assert failure(err) == (
        "ValidationException",
        "Time to live has been modified multiple times within a fixed interval",
    )

    put("past", expires_at={"N": str(now - 60)})
    put("future", expires_at={"N": str(now + 3600)})
    put("text", expires_at={"S": str(now - 60)})  # not a Number: never expires
    put("ancient", expires_at={"N": str(now - 6 * 365 * 86400)})  # over five years old: ignored
    put("none")
    put("moved", expires_at={"N": str(now + 3600)})
    ddb.update_item(  # its expiry moves into the past
        TableName=name,
        Key=k("moved"),
        UpdateExpression="SET expires_at = :t",
        ExpressionAttributeValues={":t": {"N": str(now - 60)}},
    )
    put("deleted", expires_at={"N": str(now + 3600)})
    ddb.delete_item(TableName=name, Key=k("deleted"))  # an ordinary delete

    def present(sk):
        return "Item" in ddb.get_item(TableName=name, Key=k(sk), ConsistentRead=True)

    expired = ["before", "moved", "past"]
    wait_for("the expired items to go", lambda: not any(present(sk) for sk in expired))
    remaining = ["ancient", "future", "none", "text"]
    for sk in remaining:
        assert present(sk), f"{sk} must stay"
    indexed = ddb.scan(TableName=name, IndexName="ByKind")["Items"]
    assert sorted(i["SK"]["S"] for i in indexed) == remaining

    records = read_all_records(streams, stream_arn(streams, name))
    assert Counter(r["eventName"] for r in records) == {"INSERT": 8, "MODIFY": 1, "REMOVE": 4}
    assert not any("userIdentity" in r for r in records if r["eventName"] != "REMOVE")
    removes = {r["dynamodb"]["Keys"]["SK"]["S"]: r for r in records if r["eventName"] == "REMOVE"}
    assert sorted(removes) == ["before", "deleted", "moved", "past"]
    assert "userIdentity" not in removes["deleted"]  # a client's delete
    for sk in expired:
        record = removes[sk]
        assert record["userIdentity"] == TTL_SERVICE
        image = {**k(sk), "kind": {"S": "session"}, "expires_at": {"N": str(now - 60)}}
        assert record["dynamodb"]["OldImage"] == image
        assert "NewImage" not in record["dynamodb"]


# ---- the AWS CLI ----


def test_streams_and_ttl_with_the_cli(aws, aws_streams, ddb, streams, new_table):
    name = new_table(view_type="NEW_IMAGE")
    aws("put-item", "--table-name", name, "--item", '{"PK":{"S":"cli"},"SK":{"S":"1"},"n":{"N":"7"}}')

    listed = aws_streams("list-streams", "--table-name", name)
    [summary] = listed["Streams"]
    assert summary["TableName"] == name
    assert summary["StreamArn"] == ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    described = aws_streams("describe-stream", "--stream-arn", summary["StreamArn"])["StreamDescription"]
    assert described["StreamViewType"] == "NEW_IMAGE"
    assert len(described["Shards"]) == 4
    shard = shard_holding_records(streams, summary["StreamArn"])
    iterator = aws_streams(
        "get-shard-iterator",
        "--stream-arn", summary["StreamArn"],
        "--shard-id", shard["ShardId"],
        "--shard-iterator-type", "TRIM_HORIZON",
    )["ShardIterator"]
    got = aws_streams("get-records", "--shard-iterator", iterator)
    assert [(r["eventName"], r["dynamodb"]["NewImage"]) for r in got["Records"]] == [
        ("INSERT", {"PK": {"S": "cli"}, "SK": {"S": "1"}, "n": {"N": "7"}})
    ]

    assert aws("describe-time-to-live", "--table-name", name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"
    }
    out = aws(
        "update-time-to-live",
        "--table-name", name,
        "--time-to-live-specification", "Enabled=true,AttributeName=expires_at",
    )
    assert out["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "expires_at"}
    assert aws("describe-time-to-live", "--table-name", name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires_at",
    }
    aws(
        "update-time-to-live",
        "--table-name", name,
        "--time-to-live-specification", "Enabled=true,AttributeName=expires_at",
        expect_error="TimeToLive is already enabled",
    )


# ---- DescribeStream's ShardFilter ----


def test_shard_filter_child_shards(new_table, streams):
    """ShardFilter CHILD_SHARDS lists the children of a shard: none while it is open (the
    split over time is covered by the engine's clock-driven test); another Type is a
    framework constraint."""
    table = new_table()
    arn = stream_arn(streams, table)
    shard = describe_shards(streams, arn)[0]
    filtered = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard["ShardId"]}
    )["StreamDescription"]
    assert filtered["Shards"] == []
    assert filtered["StreamArn"] == arn
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(
            StreamArn=arn, ShardFilter={"Type": "PARENT_SHARDS", "ShardId": shard["ShardId"]}
        )
    code, message = failure(excinfo)
    assert code == "ValidationException"
    assert "shardFilter.type" in message
