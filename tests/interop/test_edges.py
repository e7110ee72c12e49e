"""Four answers independent suites found wrong, and /metrics under --auth, through boto3
(issue 37): a PartiQL SELECT names nested values by their path's last element; an ARN of
another account is AccessDeniedException; a body that is JSON but not an object, and base64
no decoder takes anywhere in a request, are SerializationException; GET /metrics under
--auth needs a bearer token or a separate --metrics-bind address."""

import json
import socket
import urllib.error
import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import credentials_file, kura_server

KURA_ACCOUNT = "000000000000"


def client(endpoint, key="kura-test", secret="kura-test"):
    return boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}))


def create(ddb, name, key_type="S"):
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": key_type}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])


def error(call):
    with pytest.raises(ClientError) as raised:
        call()
    return raised.value.response["Error"]["Code"], raised.value.response["Error"]["Message"]


def tampered(ddb, change):
    """A client whose request bodies pass through CHANGE (bytes -> bytes) after boto3
    serialises them and before they are signed and sent."""

    def rewrite(request, **_):
        request.data = change(request.body if isinstance(request.body, bytes)
                              else request.body.encode())

    ddb.meta.events.register("before-sign.dynamodb.*", rewrite)
    return ddb


# 1. PartiQL projections of nested paths.

def test_partiql_select_names_values_by_their_last_path_element(ddb, table_name):
    create(ddb, table_name)
    ddb.put_item(TableName=table_name, Item={
        "pk": {"S": "x"},
        "mymap": {"M": {"nested": {"S": "deep"}, "inner": {"M": {"leaf": {"N": "7"}}}}},
        "other": {"M": {"nested": {"S": "second"}}},
        "list": {"L": [{"S": "zero"}, {"M": {"in": {"S": "one"}}}]},
        "odd name": {"M": {"in": {"S": "quoted"}}},
    })

    def select(projection):
        statement = f'SELECT {projection} FROM "{table_name}" WHERE pk = \'x\''
        items = ddb.execute_statement(Statement=statement)["Items"]
        assert len(items) == 1, statement
        return items[0]

    assert select("mymap.nested") == {"nested": {"S": "deep"}}
    assert select("mymap.inner.leaf, pk") == {"leaf": {"N": "7"}, "pk": {"S": "x"}}
    assert select('"odd name"."in"') == {"in": {"S": "quoted"}}
    assert select("list[1].\"in\"") == {"in": {"S": "one"}}
    # A path ending in a list index is named by its place in the select list (PartiQL's _N).
    assert select("pk, list[0]") == {"pk": {"S": "x"}, "_2": {"S": "zero"}}
    # Two paths ending in the same name: the later one's value is kept.
    assert select("mymap.nested, other.nested") == {"nested": {"S": "second"}}
    assert select("mymap.absent") == {}

    # The same names through ExecuteTransaction and BatchExecuteStatement.
    statement = f'SELECT mymap.nested FROM "{table_name}" WHERE pk = \'x\''
    answer = ddb.execute_transaction(TransactStatements=[{"Statement": statement}])
    assert answer["Responses"][0]["Item"] == {"nested": {"S": "deep"}}
    answer = ddb.batch_execute_statement(Statements=[{"Statement": statement}])
    assert answer["Responses"][0]["Item"] == {"nested": {"S": "deep"}}
    ddb.delete_table(TableName=table_name)


# 2. ARNs of another account.

def arn(account, table, region="us-east-1"):
    return f"arn:aws:dynamodb:{region}:{account}:table/{table}"


def assert_other_account_refused(ddb, table, own, other):
    """Every operation that takes a table's ARN refuses OTHER's ARN with
    AccessDeniedException and serves OWN's."""
    theirs = arn(other, table)
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{own}:root"},
        "Action": "dynamodb:GetItem", "Resource": arn(own, table)}]})
    calls = {
        "ListTagsOfResource": lambda a: ddb.list_tags_of_resource(ResourceArn=a),
        "TagResource": lambda a: ddb.tag_resource(
            ResourceArn=a, Tags=[{"Key": "k", "Value": "v"}]),
        "UntagResource": lambda a: ddb.untag_resource(ResourceArn=a, TagKeys=["k"]),
        "PutResourcePolicy": lambda a: ddb.put_resource_policy(ResourceArn=a, Policy=policy),
        "GetResourcePolicy": lambda a: ddb.get_resource_policy(ResourceArn=a),
        "DeleteResourcePolicy": lambda a: ddb.delete_resource_policy(ResourceArn=a),
        "DescribeTable": lambda a: ddb.describe_table(TableName=a),
        "DescribeContributorInsights": lambda a: ddb.describe_contributor_insights(
            TableName=a),
        "GetItem": lambda a: ddb.get_item(TableName=a, Key={"pk": {"S": "x"}}),
    }
    for operation, call in calls.items():
        code, message = error(lambda: call(theirs))
        assert code == "AccessDeniedException", (operation, code, message)
        assert f"dynamodb:{operation}" in message and theirs in message, message
    # The caller's own ARNs still work, in the order a user would call them.
    mine = arn(own, table)
    ddb.tag_resource(ResourceArn=mine, Tags=[{"Key": "k", "Value": "v"}])
    assert ddb.list_tags_of_resource(ResourceArn=mine)["Tags"] == [{"Key": "k", "Value": "v"}]
    ddb.untag_resource(ResourceArn=mine, TagKeys=["k"])
    ddb.put_resource_policy(ResourceArn=mine, Policy=policy)
    assert ddb.get_resource_policy(ResourceArn=mine)["Policy"]
    ddb.delete_resource_policy(ResourceArn=mine)
    assert ddb.describe_table(TableName=mine)["Table"]["TableName"] == table
    ddb.describe_contributor_insights(TableName=mine)
    ddb.get_item(TableName=mine, Key={"pk": {"S": "x"}})
    # A table that does not exist, in the caller's account, is still not found.
    code, _ = error(lambda: ddb.list_tags_of_resource(ResourceArn=arn(own, "no-such-table")))
    assert code == "ResourceNotFoundException"


def test_arns_of_another_account_are_access_denied(ddb, table_name):
    create(ddb, table_name)
    described = ddb.describe_table(TableName=table_name)["Table"]["TableArn"]
    assert f":{KURA_ACCOUNT}:" in described
    assert_other_account_refused(ddb, table_name, KURA_ACCOUNT, "111122223333")
    ddb.delete_table(TableName=table_name)


def test_under_auth_the_signers_account_is_the_callers(tmp_path):
    creds = credentials_file(tmp_path, {
        "AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice",
        "Account": "123456789012"})
    with kura_server(["--in-memory", "--auth", str(creds)], tmp_path) as endpoint:
        alice = client(endpoint, "AKIDALICE", "alice-secret")
        create(alice, "acct")
        # The signer's account and the one Kura reports in its ARNs are both the caller's.
        assert_other_account_refused(alice, "acct", "123456789012", "999999999999")
        alice.list_tags_of_resource(ResourceArn=arn(KURA_ACCOUNT, "acct"))


# 3. Bodies that are JSON but not an object.

@pytest.mark.parametrize("body", [b"[]", b'"x"', b"1", b"null", b"[{}]"])
def test_a_body_that_is_not_an_object_is_a_serialization_exception(ddb, body):
    code, _ = error(tampered(ddb, lambda _: body).list_tables)
    assert code == "SerializationException"


def test_an_object_body_still_serves(ddb):
    assert "TableNames" in tampered(ddb, lambda _: b" {} ").list_tables()


# 4. Base64 that no decoder takes, anywhere in a request.

def test_malformed_base64_is_a_serialization_exception_everywhere(ddb, table_name):
    create(ddb, table_name)
    binary = tampered(client(ddb.meta.endpoint_url),
                      lambda body: body.replace(b'"AQID"', b'"AQ@D"'))
    value = {"B": b"\x01\x02\x03"}
    cases = {
        "Item": lambda: binary.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "b": value}),
        "binary set": lambda: binary.put_item(
            TableName=table_name, Item={"pk": {"S": "a"}, "bs": {"BS": [b"\x01\x02\x03"]}}),
        "nested": lambda: binary.put_item(
            TableName=table_name, Item={"pk": {"S": "a"}, "m": {"M": {"l": {"L": [value]}}}}),
        "Key": lambda: binary.get_item(TableName=table_name, Key={"pk": value}),
        "ExpressionAttributeValues": lambda: binary.update_item(
            TableName=table_name, Key={"pk": {"S": "a"}}, UpdateExpression="SET b = :b",
            ExpressionAttributeValues={":b": value}),
        "ExpressionAttributeValues, before validation": lambda: binary.update_item(
            TableName=table_name, Key={"pk": {"S": "a"}}, UpdateExpression="SET b = :b",
            ExpressionAttributeValues={":b": value, ":unused": {"S": "x"}}),
        "FilterExpression": lambda: binary.scan(
            TableName=table_name, FilterExpression="b = :b",
            ExpressionAttributeValues={":b": value}),
        "ExclusiveStartKey": lambda: binary.scan(
            TableName=table_name, ExclusiveStartKey={"pk": value}),
        "BatchWriteItem": lambda: binary.batch_write_item(RequestItems={table_name: [
            {"PutRequest": {"Item": {"pk": {"S": "a"}, "b": value}}}]}),
        "TransactWriteItems": lambda: binary.transact_write_items(TransactItems=[
            {"Put": {"TableName": table_name, "Item": {"pk": {"S": "a"}, "b": value}}}]),
        "PartiQL parameter": lambda: binary.execute_statement(
            Statement=f'INSERT INTO "{table_name}" VALUE {{\'pk\': \'a\', \'b\': ?}}',
            Parameters=[value]),
    }
    for where, call in cases.items():
        code, message = error(call)
        assert code == "SerializationException", (where, code, message)
        assert "Invalid Base64" in message, (where, message)
    # The same requests, untouched, are served.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "a"}, "b": value})
    assert ddb.get_item(TableName=table_name, Key={"pk": {"S": "a"}})["Item"]["b"] == {
        "B": b"\x01\x02\x03"}
    ddb.delete_table(TableName=table_name)


# 5. /metrics under --auth.

def get(url, token=None, scheme="Bearer"):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"{scheme} {token}")
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_metrics_under_auth_need_a_token_or_their_own_address(tmp_path):
    creds = credentials_file(tmp_path, {
        "AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice"})
    auth = ["--in-memory", "--auth", str(creds)]

    # --auth alone: the API's port refuses /metrics to everyone.
    with kura_server(auth, tmp_path) as endpoint:
        create(client(endpoint, "AKIDALICE", "alice-secret"), "secret_table")
        status, text = get(endpoint + "/metrics")
        assert status == 403 and "--metrics-token" in text
        assert "secret_table" not in text

    # A bearer token: only its holder reads them.
    port = free_port()
    args = [*auth, "--metrics-token", "s3cret", "--metrics-bind", f"127.0.0.1:{port}"]
    with kura_server(args, tmp_path) as endpoint:
        alice = client(endpoint, "AKIDALICE", "alice-secret")
        create(alice, "secret_table")
        alice.put_item(TableName="secret_table", Item={"pk": {"S": "a"}})
        assert get(endpoint + "/metrics")[0] == 401
        assert get(endpoint + "/metrics", token="wrong")[0] == 401
        assert get(endpoint + "/metrics", token="s3cre")[0] == 401
        status, text = get(endpoint + "/metrics", token="s3cret")
        assert status == 200 and 'table_name="secret_table"' in text
        # The scheme is case-insensitive (RFC 9110); the token is not.
        assert get(endpoint + "/metrics", token="s3cret", scheme="bearer")[0] == 200
        assert get(endpoint + "/metrics", token="S3CRET")[0] == 401
        # --metrics-bind: the scrape address answers without credentials, and serves
        # nothing else.
        status, text = get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and 'table_name="secret_table"' in text
        assert get(f"http://127.0.0.1:{port}/console")[0] == 404
        code, _ = error(lambda: client(f"http://127.0.0.1:{port}").list_tables())
        assert code in ("404", "MethodNotAllowed", "405")


def test_metrics_without_auth_stay_open(tmp_path):
    with kura_server(["--in-memory"], tmp_path) as endpoint:
        assert get(endpoint + "/metrics")[0] == 200
        with_token = ["--in-memory", "--metrics-token", "t"]
    with kura_server(with_token, tmp_path) as endpoint:
        assert get(endpoint + "/metrics")[0] == 401
        assert get(endpoint + "/metrics", token="t")[0] == 200
