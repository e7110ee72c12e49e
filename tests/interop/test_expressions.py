"""Interop: the seed documents' expression patterns from boto3 (client and resource
layers, whose condition builder writes its own placeholders) and the AWS CLI."""

from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError


@pytest.fixture()
def table(ddb, endpoint, aws_env, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    resource = boto3.resource(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )
    return resource.Table(table_name)


def error_code(err):
    return err.value.response["Error"]["Code"]


def test_create_only_put(table):
    table.put_item(Item={"pk": "USER#1", "name": "first"}, ConditionExpression=Attr("pk").not_exists())
    with pytest.raises(ClientError) as err:
        table.put_item(
            Item={"pk": "USER#1", "name": "second"},
            ConditionExpression=Attr("pk").not_exists(),
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert error_code(err) == "ConditionalCheckFailedException"
    assert err.value.response["Item"]["name"] == {"S": "first"}
    assert table.get_item(Key={"pk": "USER#1"})["Item"]["name"] == "first"


def test_optimistic_locking_has_one_winner(table):
    table.put_item(Item={"pk": "DOC#1", "version": 0})

    def write(writer):
        try:
            table.update_item(
                Key={"pk": "DOC#1"},
                UpdateExpression="SET #v = :next, writer = :w",
                ConditionExpression=Attr("version").eq(0),
                ExpressionAttributeNames={"#v": "version"},
                ExpressionAttributeValues={":next": 1, ":w": writer},
            )
            return writer
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ConditionalCheckFailedException"
            return None

    with ThreadPoolExecutor(max_workers=8) as pool:
        winners = [w for w in pool.map(write, range(8)) if w is not None]
    assert len(winners) == 1
    item = table.get_item(Key={"pk": "DOC#1"}, ConsistentRead=True)["Item"]
    assert item["version"] == 1 and item["writer"] == winners[0]


def test_atomic_counter_loses_no_increment(table):
    def bump(_):
        for _ in range(20):
            table.update_item(
                Key={"pk": "COUNTER#1"},
                UpdateExpression="ADD #c :one",
                ExpressionAttributeNames={"#c": "count"},
                ExpressionAttributeValues={":one": 1},
            )

    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(bump, range(6)))
    assert table.get_item(Key={"pk": "COUNTER#1"}, ConsistentRead=True)["Item"]["count"] == 120


def test_inventory_never_goes_negative(table):
    table.put_item(Item={"pk": "SKU#1", "stock": 5})

    def buy(_):
        try:
            table.update_item(
                Key={"pk": "SKU#1"},
                UpdateExpression="SET stock = stock - :one",
                ConditionExpression=Attr("stock").gt(0),
                ExpressionAttributeValues={":one": 1},
            )
            return True
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ConditionalCheckFailedException"
            return False

    with ThreadPoolExecutor(max_workers=8) as pool:
        sold = sum(pool.map(buy, range(12)))
    assert sold == 5
    assert table.get_item(Key={"pk": "SKU#1"}, ConsistentRead=True)["Item"]["stock"] == 0


def test_status_transition_and_return_values(table):
    table.put_item(Item={"pk": "ORDER#1", "status": "PENDING", "parts": ["a"]})
    out = table.update_item(
        Key={"pk": "ORDER#1"},
        UpdateExpression="SET #s = :to, parts = list_append(parts, :more)",
        ConditionExpression=Attr("status").eq("PENDING") & Attr("parts").size().lt(10),
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":to": "SHIPPED", ":more": ["b"]},
        ReturnValues="UPDATED_NEW",
    )
    assert out["Attributes"] == {"status": "SHIPPED", "parts": ["a", "b"]}
    with pytest.raises(ClientError) as err:
        table.update_item(
            Key={"pk": "ORDER#1"},
            UpdateExpression="SET #s = :to",
            ConditionExpression=Attr("status").eq("PENDING"),
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":to": "CANCELLED"},
        )
    assert error_code(err) == "ConditionalCheckFailedException"


def test_expression_errors_match_dynamodb(ddb, table):
    with pytest.raises(ClientError) as err:
        ddb.put_item(
            TableName=table.name,
            Item={"pk": {"S": "x"}},
            ConditionExpression="attribute_not_exists(status)",
        )
    assert error_code(err) == "ValidationException"
    assert err.value.response["Error"]["Message"] == (
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"
    )
    with pytest.raises(ClientError) as err:
        ddb.update_item(
            TableName=table.name,
            Key={"pk": {"S": "x"}},
            UpdateExpression="SET a = :v REMOVE a",
            ExpressionAttributeValues={":v": {"S": "1"}},
        )
    assert err.value.response["Error"]["Message"] == (
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
        "rewrite one of these paths; path one: [a], path two: [a]"
    )


def test_legacy_parameters(ddb, table):
    ddb.put_item(TableName=table.name, Item={"pk": {"S": "L#1"}, "n": {"N": "1"}})
    ddb.update_item(
        TableName=table.name,
        Key={"pk": {"S": "L#1"}},
        AttributeUpdates={"n": {"Action": "ADD", "Value": {"N": "2"}}},
        Expected={"n": {"Value": {"N": "1"}}},
    )
    got = ddb.get_item(TableName=table.name, Key={"pk": {"S": "L#1"}}, AttributesToGet=["n"])
    assert got["Item"] == {"n": {"N": "3"}}


def test_cli_update_with_expressions(aws, table):
    aws(
        "update-item",
        "--table-name", table.name,
        "--key", '{"pk": {"S": "CLI#1"}}',
        "--update-expression", "SET visits = if_not_exists(visits, :zero) + :one",
        "--expression-attribute-values", '{":zero": {"N": "0"}, ":one": {"N": "1"}}',
    )
    out = aws(
        "update-item",
        "--table-name", table.name,
        "--key", '{"pk": {"S": "CLI#1"}}',
        "--update-expression", "SET visits = visits + :one",
        "--condition-expression", "visits < :max",
        "--expression-attribute-values", '{":one": {"N": "1"}, ":max": {"N": "10"}}',
        "--return-values", "ALL_NEW",
    )
    assert out["Attributes"]["visits"] == {"N": "2"}
    aws(
        "put-item",
        "--table-name", table.name,
        "--item", '{"pk": {"S": "CLI#1"}}',
        "--condition-expression", "attribute_not_exists(pk)",
        expect_error="ConditionalCheckFailedException",
    )
