"""Interop: the seed access patterns from boto3 — hierarchical items by prefix, time ranges
with BETWEEN, newest first with paging, batch writes with the retry of unprocessed items,
all-or-nothing transactions."""

import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError


@pytest.fixture()
def orders(ddb, endpoint, aws_env, table_name):
    import boto3

    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    resource = boto3.resource(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )
    table = resource.Table(table_name)
    # batch_writer groups puts into BatchWriteItem calls and retries UnprocessedItems.
    with table.batch_writer() as batch:
        batch.put_item(Item={"PK": "TENANT#1#ORDER#1", "SK": "ORDER", "status": "NEW"})
        for i in range(60):
            batch.put_item(
                Item={
                    "PK": "TENANT#1#ORDER#1",
                    "SK": f"ORDER_ITEM#{i:03d}",
                    "qty": i,
                    "at": f"2026-11-{1 + i % 28:02d}",
                }
            )
        for day in range(1, 31):
            batch.put_item(Item={"PK": "TENANT#1#LOG", "SK": f"2026-11-{day:02d}", "n": day})
    return table


def test_hierarchical_items_by_prefix(orders):
    got = orders.query(
        KeyConditionExpression=Key("PK").eq("TENANT#1#ORDER#1") & Key("SK").begins_with("ORDER_ITEM#")
    )
    assert got["Count"] == 60
    assert [i["SK"] for i in got["Items"]] == [f"ORDER_ITEM#{i:03d}" for i in range(60)]


def test_time_range_between(orders):
    got = orders.query(KeyConditionExpression=Key("PK").eq("TENANT#1#LOG") & Key("SK").between("2026-11-10", "2026-11-12"))
    assert [i["n"] for i in got["Items"]] == [10, 11, 12]


def test_newest_first_with_paging(orders):
    seen, start = [], None
    while True:
        kwargs = {"ExclusiveStartKey": start} if start else {}
        page = orders.query(
            KeyConditionExpression=Key("PK").eq("TENANT#1#LOG"), ScanIndexForward=False, Limit=7, **kwargs
        )
        seen += [i["n"] for i in page["Items"]]
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    assert seen == list(range(30, 0, -1))


def test_filter_and_scan(orders):
    got = orders.query(
        KeyConditionExpression=Key("PK").eq("TENANT#1#ORDER#1") & Key("SK").begins_with("ORDER_ITEM#"),
        FilterExpression=Attr("qty").gte(50),
    )
    assert got["Count"] == 10 and got["ScannedCount"] == 60
    paginator = orders.meta.client.get_paginator("scan")
    total = sum(page["Count"] for page in paginator.paginate(TableName=orders.name, PaginationConfig={"PageSize": 13}))
    assert total == 91


def test_batch_get_and_transactions(orders, ddb):
    keys = [{"PK": {"S": "TENANT#1#LOG"}, "SK": {"S": f"2026-11-{d:02d}"}} for d in range(1, 11)]
    got = ddb.batch_get_item(RequestItems={orders.name: {"Keys": keys, "ProjectionExpression": "n"}})
    assert sorted(int(i["n"]["N"]) for i in got["Responses"][orders.name]) == list(range(1, 11))
    assert got["UnprocessedKeys"] == {}

    header = {"PK": {"S": "TENANT#1#ORDER#1"}, "SK": {"S": "ORDER"}}
    ddb.transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": orders.name,
                    "Key": header,
                    "UpdateExpression": "SET #s = :paid",
                    "ConditionExpression": "#s = :new",
                    "ExpressionAttributeNames": {"#s": "status"},
                    "ExpressionAttributeValues": {":paid": {"S": "PAID"}, ":new": {"S": "NEW"}},
                }
            },
            {"Put": {"TableName": orders.name, "Item": {"PK": {"S": "TENANT#1#PAYMENT#1"}, "SK": {"S": "PAYMENT"}}}},
        ]
    )
    with pytest.raises(ClientError) as err:
        ddb.transact_write_items(
            TransactItems=[
                {
                    "ConditionCheck": {
                        "TableName": orders.name,
                        "Key": header,
                        "ConditionExpression": "#s = :new",
                        "ExpressionAttributeNames": {"#s": "status"},
                        "ExpressionAttributeValues": {":new": {"S": "NEW"}},
                    }
                },
                {"Put": {"TableName": orders.name, "Item": {"PK": {"S": "TENANT#1#PAYMENT#2"}, "SK": {"S": "PAYMENT"}}}},
            ]
        )
    assert err.value.response["Error"]["Code"] == "TransactionCanceledException"
    reasons = [r["Code"] for r in err.value.response["CancellationReasons"]]
    assert reasons == ["ConditionalCheckFailed", "None"]
    snapshot = ddb.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": orders.name, "Key": header}},
            {"Get": {"TableName": orders.name, "Key": {"PK": {"S": "TENANT#1#PAYMENT#2"}, "SK": {"S": "PAYMENT"}}}},
        ]
    )
    assert snapshot["Responses"][0]["Item"]["status"] == {"S": "PAID"}
    assert "Item" not in snapshot["Responses"][1]


def test_legacy_query_and_scan_parameters(orders, ddb):
    got = ddb.query(
        TableName=orders.name,
        KeyConditions={
            "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "TENANT#1#LOG"}]},
            "SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "2026-11-2"}]},
        },
        QueryFilter={"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "25"}]}},
        AttributesToGet=["n"],
    )
    assert sorted(int(i["n"]["N"]) for i in got["Items"]) == [26, 27, 28, 29]
    assert got["ScannedCount"] == 10
    scanned = ddb.scan(
        TableName=orders.name,
        ScanFilter={"status": {"ComparisonOperator": "NOT_NULL"}},
    )
    assert scanned["Count"] == 1
    with pytest.raises(ClientError) as err:
        ddb.query(
            TableName=orders.name,
            KeyConditionExpression="PK = :p",
            QueryFilter={"n": {"ComparisonOperator": "NOT_NULL"}},
            ExpressionAttributeValues={":p": {"S": "x"}},
        )
    assert err.value.response["Error"]["Message"] == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {QueryFilter} Expression parameters: {KeyConditionExpression}"
    )
