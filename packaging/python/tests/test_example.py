"""What a user's tests look like with the kura-dynamodb pytest plugin: each test gets a
boto3 client of an empty server. Run by tests/interop/test_python_package.py in both
modes (`--kura=binary`, `--kura=container`)."""


def create_orders(dynamodb):
    dynamodb.create_table(
        TableName="orders", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by_status",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}])


def test_a_test_writes_and_queries(dynamodb):
    create_orders(dynamodb)
    for i in range(20):
        dynamodb.put_item(TableName="orders",
                          Item={"pk": {"S": f"o{i}"}, "status": {"S": "open" if i % 2 else "paid"}})
    open_orders = dynamodb.query(TableName="orders", IndexName="by_status",
                                 KeyConditionExpression="#s = :s",
                                 ExpressionAttributeNames={"#s": "status"},
                                 ExpressionAttributeValues={":s": {"S": "open"}})
    assert open_orders["Count"] == 10


def test_the_next_test_starts_empty(dynamodb):
    assert dynamodb.list_tables()["TableNames"] == []
    create_orders(dynamodb)


def test_and_so_does_the_one_after(dynamodb_resource, kura_endpoint):
    assert kura_endpoint.startswith("http://")
    assert list(dynamodb_resource.tables.all()) == []
