"""Interop: secondary indexes from boto3 and the AWS CLI.

The seed's single-table design (a sparse GSI listing every order newest first, a date
range with a status filter, the index following updates and deletes), the attributes each
projection returns, the checks on writes, CreateTable and reads that involve an index,
DescribeTable's index entries, adding a GSI to a table that holds items while writes go
on, and the capacity indexes consume."""

import json
import random
import time
from datetime import datetime, timedelta, timezone

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

INVALID = "One or more parameter values were invalid: "
STATUSES = ["pending", "shipped", "delivered", "cancelled"]


def s(name):
    return {"AttributeName": name, "AttributeType": "S"}


def n(name):
    return {"AttributeName": name, "AttributeType": "N"}


def keys(hash_key, range_key=None):
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return schema


def index(name, hash_key, range_key=None, projection="ALL", non_key=None):
    proj = {"ProjectionType": projection}
    if non_key is not None:
        proj["NonKeyAttributes"] = non_key
    return {"IndexName": name, "KeySchema": keys(hash_key, range_key), "Projection": proj}


def failure(excinfo):
    """(code, message) of a ClientError."""
    err = excinfo.value.response["Error"]
    return err["Code"], err["Message"]


def query_all(table, **kwargs):
    """Every page of a Query: (items, the LastEvaluatedKey of each page that had one)."""
    items, page_keys = [], []
    while True:
        page = table.query(**kwargs)
        items += page["Items"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return items, page_keys
        page_keys.append(start)
        kwargs["ExclusiveStartKey"] = start


@pytest.fixture()
def table_name(table_name, ddb):
    """conftest's table name; the table, if created, is deleted afterwards so that this
    file's tables do not crowd the first ListTables page of the tests that follow."""
    yield table_name
    try:
        ddb.delete_table(TableName=table_name)
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


# ---- the seed pattern: a sparse GSI over a single-table design ----


@pytest.fixture()
def shop(ddb, dynamodb, table_name):
    """Five user profiles (not in GSI1) and 50 orders (in GSI1, keyed by creation time).
    Returns the table and the orders as written."""
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("SK"), s("GSI1PK"), s("GSI1SK")],
        KeySchema=keys("PK", "SK"),
        GlobalSecondaryIndexes=[index("GSI1", "GSI1PK", "GSI1SK")],
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    rng = random.Random(5)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    orders = []
    for i in range(50):
        created = start + timedelta(minutes=rng.randrange(0, 120 * 24 * 60))
        order_id = f"{i:04d}"
        created_at = created.strftime("%Y-%m-%dT%H:%M:%SZ")
        orders.append(
            {
                "PK": f"USER#{i % 5}",
                "SK": f"ORDER#{order_id}",
                "GSI1PK": "ORDER",
                "GSI1SK": f"{created_at}#{order_id}",
                "status": STATUSES[rng.randrange(4)],
                "total": rng.randrange(1, 500),
            }
        )
    with table.batch_writer() as batch:
        for u in range(5):
            batch.put_item(Item={"PK": f"USER#{u}", "SK": "PROFILE", "name": f"user {u}"})
        for order in orders:
            batch.put_item(Item=order)
    return table, orders


def newest_first(orders):
    return sorted(orders, key=lambda o: o["GSI1SK"], reverse=True)


def test_orders_newest_first_with_paging(shop):
    table, orders = shop
    items, page_keys = query_all(
        table,
        IndexName="GSI1",
        KeyConditionExpression=Key("GSI1PK").eq("ORDER"),
        ScanIndexForward=False,
        Limit=7,
    )
    assert items == newest_first(orders)
    assert not any(i["SK"] == "PROFILE" for i in items)
    assert len(page_keys) == 7  # 50 items: seven full pages, then one item
    for key in page_keys:
        assert set(key) == {"PK", "SK", "GSI1PK", "GSI1SK"}
    # Each key is the last item of its page.
    assert [k["GSI1SK"] for k in page_keys] == [items[7 * p + 6]["GSI1SK"] for p in range(7)]


def test_sparse_index_scan_holds_only_orders(shop):
    table, orders = shop
    got = table.scan(IndexName="GSI1")
    assert got["Count"] == 50 and got["ScannedCount"] == 50
    assert sorted(i["SK"] for i in got["Items"]) == sorted(o["SK"] for o in orders)


def test_status_in_date_range(shop):
    table, orders = shop
    low, high = "2026-02-01", "2026-03-15"
    in_range = sorted((o for o in orders if low <= o["GSI1SK"] <= high), key=lambda o: o["GSI1SK"])
    expected = [o for o in in_range if o["status"] == "shipped"]
    assert expected and len(expected) < len(in_range)  # the seed exercises the filter
    got = table.query(
        IndexName="GSI1",
        KeyConditionExpression=Key("GSI1PK").eq("ORDER") & Key("GSI1SK").between(low, high),
        FilterExpression=Attr("status").eq("shipped"),
    )
    assert got["Items"] == expected
    assert got["Count"] == len(expected)
    assert got["ScannedCount"] == len(in_range)
    assert "LastEvaluatedKey" not in got


def test_index_follows_updates_and_deletes(shop):
    table, orders = shop
    by_date = newest_first(orders)
    moved, unlisted, deleted = by_date[-1], by_date[10], by_date[20]

    def listed():
        items, _ = query_all(
            table, IndexName="GSI1", KeyConditionExpression=Key("GSI1PK").eq("ORDER"), ScanIndexForward=False
        )
        return [(i["PK"], i["SK"], i["GSI1SK"]) for i in items]

    # The oldest order becomes the newest.
    new_sk = "2027-01-01T00:00:00Z#" + moved["SK"].split("#")[1]
    table.update_item(
        Key={"PK": moved["PK"], "SK": moved["SK"]},
        UpdateExpression="SET GSI1SK = :sk",
        ExpressionAttributeValues={":sk": new_sk},
    )
    moved = {**moved, "GSI1SK": new_sk}
    expected = [moved] + by_date[:-1]
    assert listed() == [(o["PK"], o["SK"], o["GSI1SK"]) for o in expected]
    first = table.query(
        IndexName="GSI1", KeyConditionExpression=Key("GSI1PK").eq("ORDER"), ScanIndexForward=False, Limit=1
    )
    assert first["Items"] == [moved]

    # Without GSI1PK the order leaves the index but stays in the table.
    table.update_item(Key={"PK": unlisted["PK"], "SK": unlisted["SK"]}, UpdateExpression="REMOVE GSI1PK")
    expected.remove(unlisted)
    assert listed() == [(o["PK"], o["SK"], o["GSI1SK"]) for o in expected]
    kept = table.get_item(Key={"PK": unlisted["PK"], "SK": unlisted["SK"]})["Item"]
    assert "GSI1PK" not in kept and kept["GSI1SK"] == unlisted["GSI1SK"]

    # A deleted order leaves the index.
    table.delete_item(Key={"PK": deleted["PK"], "SK": deleted["SK"]})
    expected.remove(deleted)
    assert listed() == [(o["PK"], o["SK"], o["GSI1SK"]) for o in expected]
    assert table.scan(IndexName="GSI1", Select="COUNT")["Count"] == 48


def test_orders_newest_first_with_the_cli(shop, aws):
    table, orders = shop
    # The CLI follows LastEvaluatedKey itself, fetching pages of 7.
    got = aws(
        "query",
        "--table-name", table.name,
        "--index-name", "GSI1",
        "--key-condition-expression", "GSI1PK = :pk",
        "--expression-attribute-values", json.dumps({":pk": {"S": "ORDER"}}),
        "--no-scan-index-forward",
        "--page-size", "7",
    )
    assert [i["GSI1SK"]["S"] for i in got["Items"]] == [o["GSI1SK"] for o in newest_first(orders)]
    assert got["Count"] == 50
    assert all(set(i) == {"PK", "SK", "GSI1PK", "GSI1SK", "status", "total"} for i in got["Items"])


# ---- projections and the read checks on indexes ----


@pytest.fixture()
def projected(ddb, dynamodb, table_name):
    """A table with a KEYS_ONLY GSI, an INCLUDE GSI and a KEYS_ONLY LSI, and three posts."""
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("SK"), s("owner"), n("rank"), s("created")],
        KeySchema=keys("PK", "SK"),
        GlobalSecondaryIndexes=[
            index("ByOwnerKeys", "owner", "rank", "KEYS_ONLY"),
            index("ByOwnerInclude", "owner", "created", "INCLUDE", ["title", "tags"]),
        ],
        LocalSecondaryIndexes=[index("ByRank", "PK", "rank", "KEYS_ONLY")],
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    posts = [
        {
            "PK": "BLOG#1",
            "SK": f"POST#{i}",
            "owner": "ada",
            "rank": i,
            "created": f"2026-05-0{i}",
            "title": f"post {i}",
            "tags": {"a", f"t{i}"},
            "body": "x" * 20,
            "views": 10 * i,
        }
        for i in range(1, 4)
    ]
    for post in posts:
        table.put_item(Item=post)
    return table, posts


@pytest.mark.parametrize(
    "index_name, attributes",
    [
        ("ByOwnerKeys", {"PK", "SK", "owner", "rank"}),
        ("ByOwnerInclude", {"PK", "SK", "owner", "created", "title", "tags"}),
        ("ByRank", {"PK", "SK", "rank"}),
    ],
)
def test_projection_attributes(projected, index_name, attributes):
    table, posts = projected
    hash_key = "PK" if index_name == "ByRank" else "owner"
    value = "BLOG#1" if index_name == "ByRank" else "ada"
    for select in ({}, {"Select": "ALL_PROJECTED_ATTRIBUTES"}):
        got = table.query(IndexName=index_name, KeyConditionExpression=Key(hash_key).eq(value), **select)
        assert got["Count"] == 3
        assert [set(i) for i in got["Items"]] == [attributes] * 3
        assert got["Items"] == [{k: v for k, v in p.items() if k in attributes} for p in posts]


@pytest.mark.parametrize("index_name", ["ByOwnerKeys", "ByOwnerInclude"])
def test_select_all_attributes_on_partial_gsi(projected, index_name):
    table, _ = projected
    with pytest.raises(ClientError) as err:
        table.query(IndexName=index_name, KeyConditionExpression=Key("owner").eq("ada"), Select="ALL_ATTRIBUTES")
    assert failure(err) == (
        "ValidationException",
        f"{INVALID}Select type ALL_ATTRIBUTES is not supported for global secondary index "
        f"{index_name} because its projection type is not ALL",
    )


def test_lsi_fetches_attributes_from_the_table(projected):
    table, posts = projected
    got = table.query(
        IndexName="ByRank",
        KeyConditionExpression=Key("PK").eq("BLOG#1") & Key("rank").gte(2),
        Select="ALL_ATTRIBUTES",
        ScanIndexForward=False,
    )
    assert got["Items"] == [posts[2], posts[1]]
    # A projection naming attributes the LSI lacks is answered from the table too.
    got = table.query(
        IndexName="ByRank",
        KeyConditionExpression=Key("PK").eq("BLOG#1") & Key("rank").eq(1),
        ProjectionExpression="#r, body, title",
        ExpressionAttributeNames={"#r": "rank"},
    )
    assert got["Items"] == [{"rank": 1, "body": "x" * 20, "title": "post 1"}]


def test_consistent_reads_on_indexes(projected):
    table, posts = projected
    for name in ("ByOwnerKeys", "ByOwnerInclude"):
        with pytest.raises(ClientError) as err:
            table.query(IndexName=name, KeyConditionExpression=Key("owner").eq("ada"), ConsistentRead=True)
        assert failure(err) == (
            "ValidationException",
            "Consistent reads are not supported on global secondary indexes",
        )
        with pytest.raises(ClientError) as err:
            table.scan(IndexName=name, ConsistentRead=True)
        assert failure(err)[1] == "Consistent reads are not supported on global secondary indexes"
    got = table.query(IndexName="ByRank", KeyConditionExpression=Key("PK").eq("BLOG#1"), ConsistentRead=True)
    assert [i["rank"] for i in got["Items"]] == [1, 2, 3]


def test_unknown_index(projected):
    table, _ = projected
    with pytest.raises(ClientError) as err:
        table.query(IndexName="Nope", KeyConditionExpression=Key("PK").eq("BLOG#1"))
    assert failure(err) == ("ValidationException", "The table does not have the specified index: Nope")
    with pytest.raises(ClientError) as err:
        table.scan(IndexName="Nope")
    assert failure(err) == ("ValidationException", "The table does not have the specified index: Nope")


# ---- writes whose index keys are not valid ----


@pytest.fixture()
def gsi_table(ddb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("SK"), s("GSI1PK"), s("GSI1SK")],
        KeySchema=keys("PK", "SK"),
        GlobalSecondaryIndexes=[index("GSI1", "GSI1PK", "GSI1SK")],
        BillingMode="PAY_PER_REQUEST",
    )
    return table_name


def test_index_key_of_the_wrong_type(ddb, gsi_table):
    item = {"PK": {"S": "a"}, "SK": {"S": "b"}, "GSI1PK": {"N": "5"}, "GSI1SK": {"S": "x"}}
    with pytest.raises(ClientError) as err:
        ddb.put_item(TableName=gsi_table, Item=item)
    assert failure(err) == (
        "ValidationException",
        f"{INVALID}Type mismatch for Index Key GSI1PK Expected: S Actual: N IndexName: GSI1",
    )
    with pytest.raises(ClientError) as err:
        ddb.update_item(
            TableName=gsi_table,
            Key={"PK": {"S": "a"}, "SK": {"S": "b"}},
            UpdateExpression="SET GSI1PK = :p, GSI1SK = :n",
            ExpressionAttributeValues={":p": {"S": "ok"}, ":n": {"N": "1"}},
        )
    assert failure(err) == (
        "ValidationException",
        f"{INVALID}Type mismatch for Index Key GSI1SK Expected: S Actual: N IndexName: GSI1",
    )
    assert "Item" not in ddb.get_item(TableName=gsi_table, Key={"PK": {"S": "a"}, "SK": {"S": "b"}})


def test_empty_string_index_key(ddb, gsi_table):
    item = {"PK": {"S": "a"}, "SK": {"S": "b"}, "GSI1PK": {"S": ""}, "GSI1SK": {"S": "x"}}
    with pytest.raises(ClientError) as err:
        ddb.put_item(TableName=gsi_table, Item=item)
    code, message = failure(err)
    assert code == "ValidationException"
    assert message.startswith(
        "One or more parameter values are not valid. A value specified for a secondary index key is not "
        "supported. The AttributeValue for a key attribute cannot contain an empty string value. "
        "IndexName: GSI1, IndexKey: GSI1PK"
    )
    assert "Item" not in ddb.get_item(TableName=gsi_table, Key={"PK": {"S": "a"}, "SK": {"S": "b"}})


# ---- CreateTable refusals ----


def create_case(defs, key_schema, gsis=None, lsis=None):
    request = {"AttributeDefinitions": defs, "KeySchema": key_schema, "BillingMode": "PAY_PER_REQUEST"}
    if gsis is not None:
        request["GlobalSecondaryIndexes"] = gsis
    if lsis is not None:
        request["LocalSecondaryIndexes"] = lsis
    return request


CREATE_REFUSALS = {
    "lsi-without-table-range": (
        create_case([s("PK"), s("LSK")], keys("PK"), lsis=[index("Lsi1", "PK", "LSK")]),
        f"{INVALID}Table KeySchema does not have a range key, which is required when specifying a "
        "LocalSecondaryIndex",
    ),
    "lsi-other-hash": (
        create_case([s("PK"), s("SK"), s("Other")], keys("PK", "SK"), lsis=[index("Lsi1", "Other", "SK")]),
        f"{INVALID}Index KeySchema does not have the same leading hash key as table KeySchema for index: "
        "Lsi1. index hash key: Other, table hash key: PK",
    ),
    "include-without-non-key": (
        create_case([s("PK"), s("SK"), s("GPK")], keys("PK", "SK"), gsis=[index("Gsi1", "GPK", projection="INCLUDE")]),
        f"{INVALID}ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
    ),
    "all-with-non-key": (
        create_case([s("PK"), s("SK"), s("GPK")], keys("PK", "SK"), gsis=[index("Gsi1", "GPK", non_key=["x"])]),
        f"{INVALID}ProjectionType is ALL, but NonKeyAttributes is specified",
    ),
    "duplicate-index-name": (
        create_case([s("PK"), s("SK"), s("GPK")], keys("PK", "SK"), gsis=[index("Gsi1", "GPK"), index("Gsi1", "GPK")]),
        f"{INVALID}Duplicate index name: Gsi1",
    ),
    "six-lsis": (
        create_case(
            [s("PK"), s("SK")] + [s(f"L{i}") for i in range(6)],
            keys("PK", "SK"),
            lsis=[index(f"Lsi{i}", "PK", f"L{i}", "KEYS_ONLY") for i in range(6)],
        ),
        f"{INVALID}Number of LocalSecondaryIndexes exceeds per-table limit of 5",
    ),
    "twenty-one-gsis": (
        create_case(
            [s("PK"), s("SK"), s("GPK")],
            keys("PK", "SK"),
            gsis=[index(f"Gsi{i}", "GPK", projection="KEYS_ONLY") for i in range(21)],
        ),
        f"{INVALID}GlobalSecondaryIndex count exceeds the per-table limit of 20",
    ),
}


@pytest.mark.parametrize("case", sorted(CREATE_REFUSALS))
def test_create_table_refuses_bad_indexes(ddb, table_name, case):
    request, message = CREATE_REFUSALS[case]
    with pytest.raises(ClientError) as err:
        ddb.create_table(TableName=table_name, **request)
    assert failure(err) == ("ValidationException", message)
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName=table_name)


def test_create_table_refuses_unused_definitions(ddb, table_name):
    request = create_case([s("PK"), s("SK"), s("GPK"), s("Extra")], keys("PK", "SK"), gsis=[index("Gsi1", "GPK")])
    with pytest.raises(ClientError) as err:
        ddb.create_table(TableName=table_name, **request)
    code, message = failure(err)
    assert code == "ValidationException"
    # DynamoDB documents no order for the two lists.
    prefix = f"{INVALID}Some AttributeDefinitions are not used. AttributeDefinitions: ["
    assert message.startswith(prefix), message
    defs, _, used = message[len(prefix):].partition("], keys used: [")
    assert used.endswith("]")
    assert set(defs.split(", ")) == {"PK", "SK", "GPK", "Extra"}
    assert set(used[:-1].split(", ")) == {"PK", "SK", "GPK"}


# ---- DescribeTable ----


def test_describe_table_lists_indexes(ddb, dynamodb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("SK"), s("GPK"), n("LSK")],
        KeySchema=keys("PK", "SK"),
        GlobalSecondaryIndexes=[index("Gsi1", "GPK", projection="INCLUDE", non_key=["b", "a"])],
        LocalSecondaryIndexes=[index("Lsi1", "PK", "LSK", "KEYS_ONLY")],
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    with table.batch_writer() as batch:
        for i in range(12):
            item = {"PK": f"P{i % 3}", "SK": f"S{i}", "a": i}
            if i % 2 == 0:
                item["GPK"] = f"G{i % 4}"
            if i % 3 == 0:
                item["LSK"] = i
            batch.put_item(Item=item)
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert desc["ItemCount"] == 12

    [gsi] = desc["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "Gsi1"
    assert gsi["KeySchema"] == keys("GPK")
    assert gsi["Projection"]["ProjectionType"] == "INCLUDE"
    assert sorted(gsi["Projection"]["NonKeyAttributes"]) == ["a", "b"]
    assert gsi["IndexStatus"] == "ACTIVE"
    assert gsi["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert gsi["ProvisionedThroughput"]["WriteCapacityUnits"] == 0
    assert gsi["ItemCount"] == 6
    assert gsi["IndexSizeBytes"] > 0
    assert gsi["IndexArn"].endswith(f"table/{table_name}/index/Gsi1")
    assert gsi["IndexArn"] == f"{desc['TableArn']}/index/Gsi1"

    [lsi] = desc["LocalSecondaryIndexes"]
    assert lsi["IndexName"] == "Lsi1"
    assert lsi["KeySchema"] == keys("PK", "LSK")
    assert lsi["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert "IndexStatus" not in lsi
    assert lsi["ItemCount"] == 4
    assert lsi["IndexSizeBytes"] > 0
    assert lsi["IndexArn"].endswith(f"table/{table_name}/index/Lsi1")

    # Counts follow deletes and an item leaving an index.
    table.delete_item(Key={"PK": "P0", "SK": "S0"})  # in both indexes
    table.update_item(Key={"PK": "P2", "SK": "S2"}, UpdateExpression="REMOVE GPK")
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert desc["ItemCount"] == 11
    assert desc["GlobalSecondaryIndexes"][0]["ItemCount"] == 4
    assert desc["LocalSecondaryIndexes"][0]["ItemCount"] == 3


# ---- UpdateTable: adding and deleting GSIs ----


def wait_for_index(ddb, table_name, index_name, until, timeout=120):
    """Polls DescribeTable until `until(gsi or None)` holds."""
    deadline = time.monotonic() + timeout
    while True:
        desc = ddb.describe_table(TableName=table_name)["Table"]
        gsi = next((g for g in desc.get("GlobalSecondaryIndexes", []) if g["IndexName"] == index_name), None)
        if until(gsi):
            return desc
        assert time.monotonic() < deadline, f"index {index_name} still {gsi}"
        time.sleep(0.2)


def category_gsi():
    return {
        "Create": {
            "IndexName": "ByCategory",
            "KeySchema": keys("category", "seq"),
            "Projection": {"ProjectionType": "ALL"},
        }
    }


def test_add_gsi_to_a_table_with_items(ddb, dynamodb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK")],
        KeySchema=keys("PK"),
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    items = {}
    with table.batch_writer() as batch:
        for i in range(2000):
            item = {"PK": f"ITEM#{i:04d}", "seq": i, "payload": "p" * (i % 50)}
            if i % 7:
                item["category"] = f"C{i % 10}"  # every seventh item stays out of the index
            batch.put_item(Item=item)
            items[item["PK"]] = item
        # An index key of the wrong type keeps an item written before the index out of it.
        batch.put_item(Item={"PK": "MISTYPED", "seq": 0, "category": 42})
    mistyped = 1

    updated = ddb.update_table(
        TableName=table_name,
        AttributeDefinitions=[s("category"), n("seq")],
        GlobalSecondaryIndexUpdates=[category_gsi()],
    )["TableDescription"]
    [gsi] = updated["GlobalSecondaryIndexes"]
    assert gsi["IndexName"] == "ByCategory"
    assert gsi["IndexStatus"] == "CREATING"

    def write(i):
        """A new item, an item that moves (or enters the index), a deleted item."""
        new = {"PK": f"ITEM#{i:04d}", "seq": i, "category": "C3"}
        table.put_item(Item=new)
        items[new["PK"]] = new
        moved = f"ITEM#{i - 2000:04d}"
        table.update_item(
            Key={"PK": moved}, UpdateExpression="SET category = :c", ExpressionAttributeValues={":c": "C3"}
        )
        items[moved]["category"] = "C3"
        gone = f"ITEM#{i - 1000:04d}"
        table.delete_item(Key={"PK": gone})
        items.pop(gone)

    # Writes go on while the index fills (they start as soon as UpdateTable returns) ...
    for i in range(2000, 2060):
        write(i)
    desc = wait_for_index(ddb, table_name, "ByCategory", lambda g: g["IndexStatus"] == "ACTIVE")
    assert {"AttributeName": "category", "AttributeType": "S"} in desc["AttributeDefinitions"]
    assert {"AttributeName": "seq", "AttributeType": "N"} in desc["AttributeDefinitions"]
    # ... and once it is ACTIVE.
    for i in range(2060, 2070):
        write(i)

    in_index = [i for i in items.values() if "category" in i]
    for category in [f"C{c}" for c in range(10)]:
        got, _ = query_all(table, IndexName="ByCategory", KeyConditionExpression=Key("category").eq(category))
        expected = sorted((i for i in in_index if i["category"] == category), key=lambda i: i["seq"])
        assert got == expected, category
    final = ddb.describe_table(TableName=table_name)["Table"]
    assert final["GlobalSecondaryIndexes"][0]["ItemCount"] == len(in_index)
    assert final["ItemCount"] == len(items) + mistyped


@pytest.fixture()
def table_with_gsi(ddb, dynamodb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("category"), n("seq")],
        KeySchema=keys("PK"),
        GlobalSecondaryIndexes=[index("ByCategory", "category", "seq")],
        BillingMode="PAY_PER_REQUEST",
    )
    table = dynamodb.Table(table_name)
    for i in range(5):
        table.put_item(Item={"PK": f"ITEM#{i}", "category": "C1", "seq": i})
    return table


def test_one_online_index_change_at_a_time(ddb, table_with_gsi):
    def create(name, attr):
        return {"Create": {"IndexName": name, "KeySchema": keys(attr), "Projection": {"ProjectionType": "ALL"}}}

    with pytest.raises(ClientError) as err:
        ddb.update_table(
            TableName=table_with_gsi.name,
            AttributeDefinitions=[s("x"), s("y")],
            GlobalSecondaryIndexUpdates=[create("ByX", "x"), create("ByY", "y")],
        )
    assert failure(err) == (
        "LimitExceededException",
        "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
    )
    names = [g["IndexName"] for g in ddb.describe_table(TableName=table_with_gsi.name)["Table"]["GlobalSecondaryIndexes"]]
    assert names == ["ByCategory"]


def test_delete_gsi(ddb, table_with_gsi):
    name = table_with_gsi.name
    got = table_with_gsi.query(IndexName="ByCategory", KeyConditionExpression=Key("category").eq("C1"))
    assert got["Count"] == 5
    ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByCategory"}}])
    wait_for_index(ddb, name, "ByCategory", lambda g: g is None)
    with pytest.raises(ClientError) as err:
        table_with_gsi.query(IndexName="ByCategory", KeyConditionExpression=Key("category").eq("C1"))
    assert failure(err) == ("ValidationException", "The table does not have the specified index: ByCategory")
    # The items stay.
    assert table_with_gsi.scan(Select="COUNT")["Count"] == 5


def test_update_of_an_unknown_index(ddb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK")],
        KeySchema=keys("PK"),
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    )
    throughput = {"ReadCapacityUnits": 6, "WriteCapacityUnits": 6}
    for update in (
        {"Update": {"IndexName": "Nope", "ProvisionedThroughput": throughput}},
        {"Delete": {"IndexName": "Nope"}},
    ):
        with pytest.raises(ClientError) as err:
            ddb.update_table(TableName=table_name, GlobalSecondaryIndexUpdates=[update])
        assert failure(err) == (
            "ResourceNotFoundException",
            f"Requested resource not found: Index Nope for table {table_name}",
        )


# ---- consumed capacity ----


@pytest.fixture()
def both_indexes(ddb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[s("PK"), s("SK"), s("GPK"), s("LSK")],
        KeySchema=keys("PK", "SK"),
        GlobalSecondaryIndexes=[index("Gsi1", "GPK")],
        LocalSecondaryIndexes=[index("Lsi1", "PK", "LSK")],
        BillingMode="PAY_PER_REQUEST",
    )
    return table_name


def test_write_capacity_per_index(ddb, both_indexes):
    item = {"PK": {"S": "a"}, "SK": {"S": "b"}, "GPK": {"S": "g"}, "LSK": {"S": "l"}, "n": {"N": "1"}}
    got = ddb.put_item(TableName=both_indexes, Item=item, ReturnConsumedCapacity="INDEXES")
    consumed = got["ConsumedCapacity"]
    assert consumed["TableName"] == both_indexes
    assert consumed["Table"]["CapacityUnits"] == 1.0
    assert {k: v["CapacityUnits"] for k, v in consumed["GlobalSecondaryIndexes"].items()} == {"Gsi1": 1.0}
    assert {k: v["CapacityUnits"] for k, v in consumed["LocalSecondaryIndexes"].items()} == {"Lsi1": 1.0}
    assert consumed["CapacityUnits"] == 3.0

    total = ddb.put_item(TableName=both_indexes, Item={**item, "n": {"N": "2"}}, ReturnConsumedCapacity="TOTAL")
    # An overwrite changes the entry of each (ALL) index.
    assert total["ConsumedCapacity"]["CapacityUnits"] == 3.0
    assert "Table" not in total["ConsumedCapacity"]

    # An item outside both indexes costs the table write only.
    plain = ddb.put_item(
        TableName=both_indexes, Item={"PK": {"S": "a"}, "SK": {"S": "c"}}, ReturnConsumedCapacity="INDEXES"
    )["ConsumedCapacity"]
    assert plain["CapacityUnits"] == 1.0
    assert plain["Table"]["CapacityUnits"] == 1.0
    assert "GlobalSecondaryIndexes" not in plain and "LocalSecondaryIndexes" not in plain


def test_read_capacity_of_an_index_query(ddb, both_indexes):
    item = {"PK": {"S": "a"}, "SK": {"S": "b"}, "GPK": {"S": "g"}, "LSK": {"S": "l"}}
    ddb.put_item(TableName=both_indexes, Item=item)
    got = ddb.query(
        TableName=both_indexes,
        IndexName="Gsi1",
        KeyConditionExpression="GPK = :g",
        ExpressionAttributeValues={":g": {"S": "g"}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert got["Count"] == 1
    consumed = got["ConsumedCapacity"]
    assert consumed["Table"]["CapacityUnits"] == 0.0
    assert consumed["GlobalSecondaryIndexes"]["Gsi1"]["CapacityUnits"] == 0.5
    assert consumed["CapacityUnits"] == 0.5
    assert "LocalSecondaryIndexes" not in consumed
