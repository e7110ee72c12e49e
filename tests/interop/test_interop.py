"""Interop: boto3 and the AWS CLI drive a table through its life against `kura serve`."""

import botocore.exceptions
import pytest


def create(ddb, name, sort_key=False):
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if sort_key:
        defs.append({"AttributeName": "sk", "AttributeType": "N"})
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
    return ddb.create_table(
        TableName=name, AttributeDefinitions=defs, KeySchema=keys, BillingMode="PAY_PER_REQUEST"
    )


def test_boto3_table_life(ddb, table_name):
    created = create(ddb, table_name, sort_key=True)
    assert created["TableDescription"]["TableName"] == table_name
    # The waiter polls DescribeTable until ACTIVE.
    ddb.get_waiter("table_exists").wait(TableName=table_name, WaiterConfig={"Delay": 1})
    desc = ddb.describe_table(TableName=table_name)["Table"]
    assert desc["TableArn"] == f"arn:aws:dynamodb:eu-west-1:000000000000:table/{table_name}"
    assert desc["KeySchema"][1] == {"AttributeName": "sk", "KeyType": "RANGE"}

    item = {
        "pk": {"S": "user#1"},
        "sk": {"N": "1.0"},
        "name": {"S": "Ada"},
        "blob": {"B": b"\x00\x01\xff"},
        "tags": {"SS": ["a", "b"]},
        "scores": {"NS": ["1", "2.5"]},
        "nested": {"M": {"l": {"L": [{"BOOL": False}, {"NULL": True}]}}},
    }
    ddb.put_item(TableName=table_name, Item=item)
    got = ddb.get_item(TableName=table_name, Key={"pk": {"S": "user#1"}, "sk": {"N": "1"}}, ConsistentRead=True)
    assert got["Item"]["sk"] == {"N": "1"}
    assert got["Item"]["blob"] == {"B": b"\x00\x01\xff"}
    assert sorted(got["Item"]["tags"]["SS"]) == ["a", "b"]
    assert got["Item"]["nested"] == item["nested"]

    old = ddb.delete_item(
        TableName=table_name, Key={"pk": {"S": "user#1"}, "sk": {"N": "1"}}, ReturnValues="ALL_OLD"
    )
    assert old["Attributes"]["name"] == {"S": "Ada"}
    assert "Item" not in ddb.get_item(TableName=table_name, Key={"pk": {"S": "user#1"}, "sk": {"N": "1"}})

    assert table_name in ddb.list_tables()["TableNames"]
    ddb.delete_table(TableName=table_name)
    ddb.get_waiter("table_not_exists").wait(TableName=table_name, WaiterConfig={"Delay": 1})


def test_boto3_errors(ddb, table_name):
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName=table_name)
    create(ddb, table_name)
    with pytest.raises(ddb.exceptions.ResourceInUseException):
        create(ddb, table_name)
    with pytest.raises(botocore.exceptions.ClientError) as err:
        ddb.put_item(TableName=table_name, Item={"pk": {"N": "1"}})
    assert err.value.response["Error"]["Code"] == "ValidationException"
    assert "Type mismatch for key pk expected: S actual: N" in err.value.response["Error"]["Message"]


def test_boto3_resource_layer(endpoint, aws_env, table_name):
    """The high-level resource API (Python types, Decimal numbers) works unchanged."""
    import boto3
    from decimal import Decimal

    resource = boto3.resource(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="eu-west-1",
        aws_access_key_id="x",
        aws_secret_access_key="y",
    )
    table = resource.create_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    table.wait_until_exists()
    table.put_item(Item={"pk": "p", "price": Decimal("19.99"), "qty": 3, "labels": {"x", "y"}})
    item = table.get_item(Key={"pk": "p"})["Item"]
    assert item["price"] == Decimal("19.99")
    assert item["qty"] == 3
    assert item["labels"] == {"x", "y"}
    table.delete()


def test_aws_cli_table_life(aws, table_name):
    created = aws(
        "create-table",
        "--table-name", table_name,
        "--attribute-definitions", "AttributeName=pk,AttributeType=S",
        "--key-schema", "AttributeName=pk,KeyType=HASH",
        "--billing-mode", "PAY_PER_REQUEST",
    )
    assert created["TableDescription"]["TableStatus"] == "ACTIVE"
    aws("wait", "table-exists", "--table-name", table_name)
    aws("put-item", "--table-name", table_name, "--item", '{"pk":{"S":"k1"},"n":{"N":"42"}}')
    got = aws("get-item", "--table-name", table_name, "--key", '{"pk":{"S":"k1"}}')
    assert got["Item"]["n"] == {"N": "42"}
    listed = aws("list-tables")
    assert table_name in listed["TableNames"]
    described = aws("describe-table", "--table-name", table_name)
    assert described["Table"]["ItemCount"] == 1
    aws("delete-item", "--table-name", table_name, "--key", '{"pk":{"S":"k1"}}')
    aws("delete-table", "--table-name", table_name)
    aws("describe-table", "--table-name", table_name, expect_error="ResourceNotFoundException")
