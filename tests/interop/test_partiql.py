"""Interop: PartiQL from boto3 and the AWS CLI — every statement kind, paging with
Limit/NextToken, BatchExecuteStatement's per-statement errors, ExecuteTransaction with
cancellation reasons and a ClientRequestToken retry."""

import pytest
from botocore.exceptions import ClientError


@pytest.fixture()
def music(ddb, table_name):
    ddb.create_table(
        TableName=table_name,
        AttributeDefinitions=[
            {"AttributeName": "artist", "AttributeType": "S"},
            {"AttributeName": "song", "AttributeType": "N"},
        ],
        KeySchema=[
            {"AttributeName": "artist", "KeyType": "HASH"},
            {"AttributeName": "song", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    return table_name


def run(ddb, statement, **kwargs):
    return ddb.execute_statement(Statement=statement, **kwargs)


def test_statement_kinds(ddb, music):
    t = music
    run(ddb, f"INSERT INTO \"{t}\" VALUE {{'artist': 'Acme', 'song': 1, 'tags': <<'a'>>, 'plays': 0}}")
    with pytest.raises(ClientError) as e:
        run(ddb, f"INSERT INTO \"{t}\" VALUE {{'artist': 'Acme', 'song': 1}}")
    assert e.value.response["Error"]["Code"] == "DuplicateItemException"
    assert e.value.response["Error"]["Message"] == "Duplicate primary key exists in table"

    out = run(
        ddb,
        f'UPDATE "{t}" SET plays = plays + ? SET tags = set_add(tags, <<\'b\'>>) '
        f"WHERE artist = ? AND song = 1 RETURNING ALL NEW *",
        Parameters=[{"N": "3"}, {"S": "Acme"}],
    )
    assert out["Items"][0]["plays"] == {"N": "3"}
    assert sorted(out["Items"][0]["tags"]["SS"]) == ["a", "b"]

    got = run(ddb, f"SELECT plays FROM \"{t}\" WHERE artist = 'Acme' AND song = 1")
    assert got["Items"] == [{"plays": {"N": "3"}}]

    with pytest.raises(ClientError) as e:
        run(ddb, f"UPDATE \"{t}\" SET plays = 1 WHERE artist = 'Acme'")
    assert e.value.response["Error"]["Message"] == (
        "Where clause does not contain a mandatory equality on all key attributes"
    )
    with pytest.raises(ClientError) as e:
        run(
            ddb,
            f"UPDATE \"{t}\" SET plays = 1 WHERE artist = 'Acme' AND song = 1 AND plays = 99",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert e.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert e.value.response["Item"]["plays"] == {"N": "3"}

    gone = run(ddb, f"DELETE FROM \"{t}\" WHERE artist = 'Acme' AND song = 1 RETURNING ALL OLD *")
    assert gone["Items"][0]["artist"] == {"S": "Acme"}
    assert run(ddb, f"SELECT * FROM \"{t}\"")["Items"] == []

    with pytest.raises(ClientError) as e:
        run(ddb, f"SELEC * FROM \"{t}\"")
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert e.value.response["Error"]["Message"].startswith(
        "Statement wasn't well formed, can't be processed"
    )
    with pytest.raises(ClientError) as e:
        run(ddb, 'SELECT * FROM "no-such-table"')
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_paging_and_capacity(ddb, music):
    t = music
    for i in range(12):
        run(ddb, f"INSERT INTO \"{t}\" VALUE {{'artist': 'Acme', 'song': {i}}}")
    seen, token = [], None
    while True:
        kwargs = {"Limit": 5}
        if token:
            kwargs["NextToken"] = token
        out = run(ddb, f"SELECT song FROM \"{t}\" WHERE artist = 'Acme' ORDER BY song DESC", **kwargs)
        seen += [int(i["song"]["N"]) for i in out["Items"]]
        token = out.get("NextToken")
        if not token:
            break
    assert seen == list(range(11, -1, -1))

    select = run(
        ddb,
        f"SELECT * FROM \"{t}\" WHERE artist = 'Acme'",
        ReturnConsumedCapacity="TOTAL",
    )["ConsumedCapacity"]
    query = ddb.query(
        TableName=t,
        KeyConditionExpression="artist = :a",
        ExpressionAttributeValues={":a": {"S": "Acme"}},
        ReturnConsumedCapacity="TOTAL",
    )["ConsumedCapacity"]
    assert select["CapacityUnits"] == query["CapacityUnits"]


def test_batch(ddb, music):
    t = music
    out = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"INSERT INTO \"{t}\" VALUE {{'artist': 'B', 'song': 1}}"},
            {"Statement": f"INSERT INTO \"{t}\" VALUE {{'artist': 'B', 'song': 1}}"},
            {"Statement": f"UPDATE \"{t}\" SET x = 1 WHERE artist = 'B'"},
        ]
    )["Responses"]
    assert "Error" not in out[0] and out[0]["TableName"] == t
    assert out[1]["Error"]["Code"] == "DuplicateItem"
    assert out[2]["Error"]["Code"] == "ValidationError"

    reads = ddb.batch_execute_statement(
        Statements=[
            {"Statement": f"SELECT * FROM \"{t}\" WHERE artist = 'B' AND song = 1"},
            {"Statement": f"SELECT * FROM \"{t}\" WHERE artist = ? AND song = ?",
             "Parameters": [{"S": "none"}, {"N": "1"}]},
        ]
    )["Responses"]
    assert reads[0]["Item"]["artist"] == {"S": "B"}
    assert "Item" not in reads[1]

    with pytest.raises(ClientError) as e:
        ddb.batch_execute_statement(
            Statements=[
                {"Statement": f"SELECT * FROM \"{t}\" WHERE artist = 'B' AND song = 1"},
                {"Statement": f"DELETE FROM \"{t}\" WHERE artist = 'B' AND song = 1"},
            ]
        )
    assert e.value.response["Error"]["Code"] == "ValidationException"


def test_transaction_with_token(ddb, music):
    t = music
    run(ddb, f"INSERT INTO \"{t}\" VALUE {{'artist': 'T', 'song': 1, 'n': 0}}")
    run(ddb, f"INSERT INTO \"{t}\" VALUE {{'artist': 'T', 'song': 5, 'n': 0}}")
    statements = [
        {"Statement": f"UPDATE \"{t}\" SET n = n + 1 WHERE artist = 'T' AND song = 1"},
        {"Statement": f"EXISTS(SELECT * FROM \"{t}\" WHERE artist = 'T' AND song = 5 AND n >= 0)"},
    ]
    ddb.execute_transaction(TransactStatements=statements, ClientRequestToken="tok-1")
    ddb.execute_transaction(TransactStatements=statements, ClientRequestToken="tok-1")
    got = run(ddb, f"SELECT n FROM \"{t}\" WHERE artist = 'T' AND song = 1")
    assert got["Items"] == [{"n": {"N": "1"}}]

    with pytest.raises(ClientError) as e:
        ddb.execute_transaction(
            TransactStatements=[
                {"Statement": f"INSERT INTO \"{t}\" VALUE {{'artist': 'T', 'song': 2}}"},
                {"Statement": f"UPDATE \"{t}\" SET n = 5 WHERE artist = 'T' AND song = 9"},
            ]
        )
    err = e.value.response
    assert err["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in err["CancellationReasons"]] == ["None", "ConditionalCheckFailed"]
    assert run(ddb, f"SELECT * FROM \"{t}\" WHERE artist = 'T' AND song = 2")["Items"] == []

    reads = ddb.execute_transaction(
        TransactStatements=[
            {"Statement": f"SELECT n FROM \"{t}\" WHERE artist = 'T' AND song = 1"},
            {"Statement": f"SELECT * FROM \"{t}\" WHERE artist = 'T' AND song = 3"},
        ]
    )["Responses"]
    assert reads[0]["Item"] == {"n": {"N": "1"}}
    assert "Item" not in reads[1]


def test_cli_execute_statement(aws, music):
    t = music
    aws("execute-statement", "--statement",
        f"INSERT INTO \"{t}\" VALUE {{'artist': 'Cli', 'song': 1}}")
    out = aws("execute-statement", "--statement",
              f"SELECT * FROM \"{t}\" WHERE artist = 'Cli'")
    assert out["Items"] == [{"artist": {"S": "Cli"}, "song": {"N": "1"}}]
    aws("execute-statement", "--statement",
        f"INSERT INTO \"{t}\" VALUE {{'artist': 'Cli', 'song': 1}}",
        expect_error="DuplicateItemException")


def test_select_from_index(ddb, table_name):
    t = table_name
    ddb.create_table(
        TableName=t,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byStatus",
                "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i, status in enumerate(["open", "open", "closed"]):
        run(ddb, f"INSERT INTO \"{t}\" VALUE {{'pk': 'k{i}', 'status': '{status}'}}")
    out = run(ddb, f"SELECT pk FROM \"{t}\".\"byStatus\" WHERE status = 'open'")
    assert sorted(i["pk"]["S"] for i in out["Items"]) == ["k0", "k1"]
    with pytest.raises(ClientError) as e:
        run(ddb, f"SELECT * FROM \"{t}\".\"byStatus\" WHERE status = 'open'", ConsistentRead=True)
    assert e.value.response["Error"]["Message"] == (
        "Strongly consistent read is not supported on Global Secondary Indexes"
    )
    with pytest.raises(ClientError) as e:
        run(ddb, f"UPDATE \"{t}\".\"byStatus\" SET x = 1 WHERE pk = 'k0'")
    assert e.value.response["Error"]["Message"] == "This operation is not supported on an index"
