"""Interop: multi-attribute GSI keys from boto3 (Developer Guide, "Multi-attribute keys
pattern"; launched November 2025).

A GSI of two HASH and three RANGE attributes (a number, then two strings): DescribeTable's
KeySchema, sparse items, every accepted key condition shape against a recomputation, the
refused shapes and their messages, order across mixed types in both directions, Limit
paging and LastEvaluatedKey's shape, Scan on the index, legacy KeyConditions, invalid key
schemas, stream records that name the table key only, and a multi-attribute GSI added by
UpdateTable to a table that holds items."""

import time

import boto3
import pytest
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

INVALID = "One or more parameter values were invalid: "
HASH = ["tournament", "region"]
RANGE = ["round", "bracket", "matchId"]
COUNT = 120


def failure(excinfo):
    err = excinfo.value.response["Error"]
    return err["Code"], err["Message"]


def key_schema(hash_keys, range_keys):
    return [{"AttributeName": h, "KeyType": "HASH"} for h in hash_keys] + [
        {"AttributeName": r, "KeyType": "RANGE"} for r in range_keys
    ]


def match(i):
    """Two tournaments x two regions; rounds 1..12 in every partition; every 9th item
    lacks `region` and every 11th `bracket` (not in the index)."""
    item = {
        "pk": f"m{i:03}",
        "tournament": ["WINTER", "SPRING"][i % 2],
        "region": ["EAST", "WEST"][i // 2 % 2],
        "round": i // 4 % 12 + 1,
        "bracket": ["LOWER", "UPPER"][i // 3 % 2],
        "matchId": f"id{50 - i % 50:02}",
        "winner": f"w{i}",
    }
    if i % 9 == 0:
        del item["region"]
    if i % 11 == 0:
        del item["bracket"]
    return item


def indexed(item):
    return all(k in item for k in HASH + RANGE)


def order(item):
    return (item["round"], item["bracket"], item["matchId"], item["pk"])


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
    return boto3.client(
        "dynamodbstreams",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )


@pytest.fixture()
def matches(ddb, dynamodb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "tournament", "AttributeType": "S"},
            {"AttributeName": "region", "AttributeType": "S"},
            {"AttributeName": "round", "AttributeType": "N"},
            {"AttributeName": "bracket", "AttributeType": "S"},
            {"AttributeName": "matchId", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "Matches",
                "KeySchema": key_schema(HASH, RANGE),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["winner"]},
            }
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    items = [match(i) for i in range(COUNT)]
    with table.batch_writer() as batch:
        for item in items:
            batch.put_item(Item=item)
    yield table, items
    ddb.delete_table(TableName=table_name)


def query_all(table, **kwargs):
    items, page_keys = [], []
    while True:
        page = table.query(IndexName="Matches", **kwargs)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items, page_keys
        page_keys.append(start)
        kwargs["ExclusiveStartKey"] = start


def partition(items):
    inside = [i for i in items if indexed(i) and i["tournament"] == "WINTER" and i["region"] == "EAST"]
    return sorted(inside, key=order)


PART = Key("tournament").eq("WINTER") & Key("region").eq("EAST")


def test_describe_table_lists_every_key_element(ddb, matches):
    table, items = matches
    gsi = ddb.describe_table(TableName=table.name)["Table"]["GlobalSecondaryIndexes"][0]
    assert gsi["KeySchema"] == key_schema(HASH, RANGE)
    assert gsi["ItemCount"] == sum(1 for i in items if indexed(i))
    assert gsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["winner"]}


def test_order_paging_and_page_keys(matches):
    table, items = matches
    want = [i["pk"] for i in partition(items)]
    got, page_keys = query_all(table, KeyConditionExpression=PART, Limit=3)
    assert [i["pk"] for i in got] == want
    assert len(page_keys) >= 3
    for k in page_keys:
        assert sorted(k) == ["bracket", "matchId", "pk", "region", "round", "tournament"]
    back, _ = query_all(table, KeyConditionExpression=PART, ScanIndexForward=False, Limit=4)
    assert [i["pk"] for i in back] == list(reversed(want))
    # Numbers order numerically inside the tuple: round 9 before 10 before 12.
    rounds = [i["round"] for i in got]
    assert rounds == sorted(rounds) and 12 in rounds and 9 in rounds
    # Projection: keys of the table and the index, plus the INCLUDE attribute.
    assert set(got[0]) == {"pk", "tournament", "region", "round", "bracket", "matchId", "winner"}


@pytest.mark.parametrize(
    "cond,pick",
    [
        (Key("round").eq(10), lambda i: i["round"] == 10),
        (Key("round").lt(10), lambda i: i["round"] < 10),
        (Key("round").lte(10), lambda i: i["round"] <= 10),
        (Key("round").gt(9), lambda i: i["round"] > 9),
        (Key("round").gte(9), lambda i: i["round"] >= 9),
        (Key("round").between(2, 10), lambda i: 2 <= i["round"] <= 10),
        (Key("round").eq(1) & Key("bracket").eq("LOWER"), lambda i: (i["round"], i["bracket"]) == (1, "LOWER")),
        (
            Key("round").eq(1) & Key("bracket").begins_with("UP"),
            lambda i: i["round"] == 1 and i["bracket"].startswith("UP"),
        ),
        (
            Key("round").eq(1) & Key("bracket").eq("LOWER") & Key("matchId").gt("id01"),
            lambda i: (i["round"], i["bracket"]) == (1, "LOWER") and i["matchId"] > "id01",
        ),
        (
            Key("round").eq(5) & Key("bracket").eq("UPPER") & Key("matchId").between("id00", "id99"),
            lambda i: (i["round"], i["bracket"]) == (5, "UPPER"),
        ),
    ],
)
def test_accepted_key_condition_shapes(matches, cond, pick):
    table, items = matches
    want = [i["pk"] for i in partition(items) if pick(i)]
    for forward in (True, False):
        got, _ = query_all(table, KeyConditionExpression=PART & cond, ScanIndexForward=forward, Limit=2)
        ids = [i["pk"] for i in got]
        assert ids == (want if forward else list(reversed(want)))


# AWS's 2026 wording (us-east-1; paritysuite tier1/query/multiAttributeGsiKey.test.ts).
RANGE_NEEDS = (
    "RANGE key attributes %s must have equality conditions specified in the query "
    "because a condition is present on key attribute %s"
)


@pytest.mark.parametrize(
    "cond,message",
    [
        (Key("tournament").eq("WINTER"), "Query condition missed key schema element: region"),
        (Key("tournament").eq("WINTER") & Key("region").gt("EAST"), "Query key condition not supported"),
        (PART & Key("bracket").eq("UPPER"), RANGE_NEEDS % ("round", "bracket")),
        (PART & Key("round").eq(1) & Key("matchId").eq("x"), RANGE_NEEDS % ("bracket", "matchId")),
        (PART & Key("round").gt(1) & Key("bracket").eq("UPPER"), RANGE_NEEDS % ("round", "bracket")),
        (PART & Key("round").eq(1) & Key("bracket").lt("U") & Key("matchId").eq("x"), RANGE_NEEDS % ("bracket", "matchId")),
        # An attribute outside a GSI's key (issue 58).
        (PART & Key("winner").eq("w1"), "Query key condition not supported"),
        (PART & Key("round").eq("1"), INVALID + "Condition parameter type does not match schema type"),
    ],
)
def test_refused_key_condition_shapes(matches, cond, message):
    table, _ = matches
    with pytest.raises(ClientError) as e:
        table.query(IndexName="Matches", KeyConditionExpression=cond)
    assert failure(e) == ("ValidationException", message)


def test_scan_legacy_key_conditions_and_key_filters(ddb, matches):
    table, items = matches
    scanned = table.scan(IndexName="Matches")
    assert scanned["Count"] == sum(1 for i in items if indexed(i))
    legacy = ddb.query(
        TableName=table.name,
        IndexName="Matches",
        KeyConditions={
            "tournament": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "WINTER"}]},
            "region": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "EAST"}]},
            "round": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "9"}]},
        },
    )
    assert [i["pk"]["S"] for i in legacy["Items"]] == [i["pk"] for i in partition(items) if i["round"] >= 9]
    with pytest.raises(ClientError) as e:
        table.query(IndexName="Matches", KeyConditionExpression=PART, FilterExpression=Key("matchId").eq("x"))
    assert failure(e) == (
        "ValidationException",
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: matchId",
    )


def test_sparse_items_follow_updates(matches):
    table, items = matches
    lacking = next(i for i in items if "region" not in i and "bracket" in i and i["tournament"] == "WINTER")
    table.update_item(
        Key={"pk": lacking["pk"]},
        UpdateExpression="SET #r = :r",
        ExpressionAttributeNames={"#r": "region"},
        ExpressionAttributeValues={":r": "EAST"},
    )
    cond = PART & Key("round").eq(lacking["round"])
    got, _ = query_all(table, KeyConditionExpression=cond)
    assert lacking["pk"] in [i["pk"] for i in got]
    table.update_item(Key={"pk": lacking["pk"]}, UpdateExpression="REMOVE #r", ExpressionAttributeNames={"#r": "region"})
    got, _ = query_all(table, KeyConditionExpression=cond)
    assert lacking["pk"] not in [i["pk"] for i in got]
    with pytest.raises(ClientError) as e:
        table.put_item(Item={**items[1], "bracket": 7})
    code, message = failure(e)
    assert code == "ValidationException" and "Type mismatch for Index Key bracket" in message


def test_stream_records_name_the_table_key(ddb, streams, matches):
    table, _ = matches
    arn = ddb.describe_table(TableName=table.name)["Table"]["LatestStreamArn"]
    records = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ]
        records += streams.get_records(ShardIterator=it, Limit=1000)["Records"]
    assert len(records) == COUNT
    for record in records:
        assert list(record["dynamodb"]["Keys"]) == ["pk"]
        assert record["eventName"] == "INSERT"


def create_with(ddb, name, index_schema, defs=("pk", "a", "b", "c", "d", "e", "f")):
    return ddb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": d, "AttributeType": "S"} for d in defs],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": index_schema, "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST",
    )


@pytest.mark.parametrize(
    "schema,defs,message",
    [
        (key_schema(["a", "b", "c", "d", "e"], []), ("pk", "a", "b", "c", "d", "e"),
         INVALID + "Index KeySchema has more than 4 HASH key attributes for index: gsi"),
        (key_schema(["a"], ["b", "c", "d", "e", "f"]), ("pk", "a", "b", "c", "d", "e", "f"),
         INVALID + "Index KeySchema has more than 4 RANGE key attributes for index: gsi"),
        (key_schema(["a", "b"], ["a"]), ("pk", "a", "b"),
         INVALID + "Duplicate AttributeName a in Index KeySchema for index: gsi"),
        (key_schema(["a"], ["b"]) + key_schema(["c"], []), ("pk", "a", "b", "c"),
         "Invalid KeySchema: A HASH KeySchemaElement cannot follow a RANGE KeySchemaElement"),
        (key_schema([], ["a", "b"]), ("pk", "a", "b"),
         "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
        (key_schema(["a", "x"], []), ("pk", "a"),
         INVALID + "Some index key attributes are not defined in AttributeDefinitions. "
         "Keys: [a, x], AttributeDefinitions: [pk, a]"),
    ],
)
def test_invalid_multi_attribute_schemas(ddb, table_name, schema, defs, message):
    with pytest.raises(ClientError) as e:
        create_with(ddb, table_name, schema, defs)
    assert failure(e) == ("ValidationException", message)


def test_tables_and_lsis_keep_one_hash_and_one_range(ddb, table_name):
    with pytest.raises(ClientError) as e:
        ddb.create_table(
            TableName=table_name,
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("a", "b")],
            KeySchema=key_schema(["a", "b"], []),
            BillingMode="PAY_PER_REQUEST",
        )
    assert failure(e) == ("ValidationException", "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
    with pytest.raises(ClientError) as e:
        ddb.create_table(
            TableName=table_name,
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("a", "b", "c")],
            KeySchema=key_schema(["a"], ["b"]),
            LocalSecondaryIndexes=[
                {"IndexName": "lsi", "KeySchema": key_schema(["a"], ["b", "c"]), "Projection": {"ProjectionType": "ALL"}}
            ],
            BillingMode="PAY_PER_REQUEST",
        )
    code, message = failure(e)
    assert code == "ValidationException"
    assert message.endswith("Member must have length less than or equal to 2"), message


def test_update_table_backfills_a_multi_attribute_gsi(ddb, dynamodb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    items = [
        {"pk": f"k{i}", "tenant": f"t{i % 3}", "year": 2020 + i % 4, "month": i % 12 + 1, "title": f"doc {i:03}"}
        for i in range(600)
    ]
    with table.batch_writer() as batch:
        for item in items:
            batch.put_item(Item=item)
    out = ddb.update_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "tenant", "AttributeType": "S"},
            {"AttributeName": "year", "AttributeType": "N"},
            {"AttributeName": "month", "AttributeType": "N"},
            {"AttributeName": "title", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "ByTenantYear",
                    "KeySchema": key_schema(["tenant", "year"], ["month", "title"]),
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            }
        ],
    )
    assert out["TableDescription"]["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
    deadline = time.time() + 60
    while True:
        gsi = ddb.describe_table(TableName=table_name)["Table"]["GlobalSecondaryIndexes"][0]
        if gsi["IndexStatus"] == "ACTIVE":
            break
        assert time.time() < deadline, "backfill did not finish"
        time.sleep(0.05)
    assert gsi["ItemCount"] == len(items)
    assert gsi["KeySchema"] == key_schema(["tenant", "year"], ["month", "title"])
    got = table.query(
        IndexName="ByTenantYear",
        KeyConditionExpression=Key("tenant").eq("t1") & Key("year").eq(2021) & Key("month").between(2, 10),
    )["Items"]
    want = sorted(
        (i for i in items if i["tenant"] == "t1" and i["year"] == 2021 and 2 <= i["month"] <= 10),
        key=lambda i: (i["month"], i["title"]),
    )
    assert [i["pk"] for i in got] == [i["pk"] for i in want]
    assert set(got[0]) == {"pk", "tenant", "year", "month", "title"}
