"""GET /metrics and Contributor Insights through boto3, the AWS CLI and `kura insights`, on
a server of its own so every figure is this test's."""

import json
import re
import subprocess
import time
import urllib.error
import urllib.request

import boto3
import pytest
from botocore.exceptions import ClientError

from conftest import KURA_BIN, kura_server

KURA = KURA_BIN


@pytest.fixture()
def server(tmp_path):
    # One stream shard: the stream figures below count one page of one shard.
    with kura_server(["--data-dir", str(tmp_path / "data"), "--stream-shards", "1"], tmp_path) as endpoint:
        yield endpoint


def client(endpoint, service="dynamodb"):
    return boto3.client(
        service, endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="kura-test", aws_secret_access_key="kura-test")


def scrape(endpoint):
    with urllib.request.urlopen(endpoint + "/metrics") as answer:
        assert answer.status == 200
        return answer.read().decode()


def value(text, name, **labels):
    """The sample of metric NAME whose labels include LABELS (None when absent)."""
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        match = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match.group(3))
    return None


def create(ddb, name, gsi=False, stream=False):
    args = dict(
        TableName=name,
        KeySchema=[{"AttributeName": "user_id", "KeyType": "HASH"},
                   {"AttributeName": "order_id", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "user_id", "AttributeType": "S"},
                              {"AttributeName": "order_id", "AttributeType": "S"},
                              {"AttributeName": "shop_id", "AttributeType": "S"}][:3 if gsi else 2],
        BillingMode="PAY_PER_REQUEST")
    if gsi:
        args["GlobalSecondaryIndexes"] = [{
            "IndexName": "gsi1", "KeySchema": [{"AttributeName": "shop_id", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}]
    if stream:
        args["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    ddb.create_table(**args)


def test_metrics_follow_the_requests(server):
    ddb = client(server)
    create(ddb, "orders", gsi=True, stream=True)
    for i in range(10):
        ddb.put_item(TableName="orders", Item={
            "user_id": {"S": "u1"}, "order_id": {"S": f"o{i}"}, "shop_id": {"S": "s1"}})
    ddb.get_item(TableName="orders", Key={"user_id": {"S": "u1"}, "order_id": {"S": "o1"}},
                 ConsistentRead=True)
    query = ddb.query(TableName="orders", KeyConditionExpression="user_id = :u",
                      ExpressionAttributeValues={":u": {"S": "u1"}})
    assert query["Count"] == 10
    ddb.query(TableName="orders", IndexName="gsi1", KeyConditionExpression="shop_id = :s",
              ExpressionAttributeValues={":s": {"S": "s1"}})
    with pytest.raises(ClientError) as failed:
        ddb.put_item(TableName="orders", ConditionExpression="attribute_not_exists(user_id)",
                     Item={"user_id": {"S": "u1"}, "order_id": {"S": "o1"}, "shop_id": {"S": "s1"}})
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError):
        ddb.get_item(TableName="orders", Key={"user_id": {"S": "u1"}})
    # Stream: read one page of the shard.
    streams = client(server, "dynamodbstreams")
    arn = ddb.describe_table(TableName="orders")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator, Limit=4)["Records"]
    assert len(records) == 4

    text = scrape(server)
    # Eleven puts (one failed its condition) of 1 KB each write 1 unit to the table and to gsi1.
    assert value(text, "kura_consumed_write_capacity_units_total", table_name="orders") == 10
    assert value(text, "kura_consumed_write_capacity_units_index_total",
                 table_name="orders", global_secondary_index_name="gsi1") == 10
    # One strongly consistent GetItem (1), one eventually consistent Query of 10 small items
    # (0.5), the GSI's Query on the index.
    assert value(text, "kura_consumed_read_capacity_units_total", table_name="orders") == 1.5
    assert value(text, "kura_consumed_read_capacity_units_index_total",
                 table_name="orders", global_secondary_index_name="gsi1") == 0.5
    assert value(text, "kura_successful_request_latency_seconds_count",
                 table_name="orders", operation="PutItem") == 10
    assert value(text, "kura_returned_item_count_total", table_name="orders",
                 operation="Query") == 20
    assert value(text, "kura_conditional_check_failed_requests_total", table_name="orders") == 1
    assert value(text, "kura_user_errors_total", operation="GetItem") == 1
    assert value(text, "kura_item_count", table_name="orders") == 10
    assert value(text, "kura_table_size_bytes", table_name="orders") > 0
    assert value(text, "kura_stream_records_written_total", table_name="orders") == 10
    assert value(text, "kura_stream_records_read_total", table_name="orders") == 4
    assert value(text, "kura_stream_oldest_unread_record_age_seconds", table_name="orders") >= 0
    assert value(text, "kura_group_commit_writes_count") >= 10
    assert value(text, "kura_commit_sync_seconds_count") >= 10
    assert value(text, "kura_store_disk_bytes") > 0
    assert value(text, "kura_cache_capacity_bytes") > 0
    assert text.rstrip().endswith("# EOF")


def test_ttl_deletions_are_counted(server):
    ddb = client(server)
    create(ddb, "sessions")
    ddb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "ttl"})
    ddb.put_item(TableName="sessions", Item={
        "user_id": {"S": "u1"}, "order_id": {"S": "o1"}, "ttl": {"N": str(int(time.time()) - 5)}})
    for _ in range(100):
        if value(scrape(server), "kura_time_to_live_deleted_item_count_total",
                 table_name="sessions") == 1:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the expired item was not counted as deleted within 10 s")


def test_metrics_can_be_turned_off(tmp_path):
    with kura_server(["--in-memory", "--metrics", "false"], tmp_path) as endpoint:
        with pytest.raises(urllib.error.HTTPError) as off:
            urllib.request.urlopen(endpoint + "/metrics")
        assert off.value.code == 404


def test_contributor_insights_operations(server, aws_env):
    ddb = client(server)
    create(ddb, "orders", gsi=True)
    described = ddb.describe_contributor_insights(TableName="orders")
    assert described["ContributorInsightsStatus"] == "DISABLED"
    assert "ContributorInsightsRuleList" not in described
    updated = ddb.update_contributor_insights(TableName="orders",
                                              ContributorInsightsAction="ENABLE")
    assert updated["ContributorInsightsStatus"] == "ENABLING"
    assert updated["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    described = ddb.describe_contributor_insights(TableName="orders")
    assert described["ContributorInsightsStatus"] == "ENABLED"
    assert [r.split("-")[1] for r in described["ContributorInsightsRuleList"]] == [
        "PKC", "PKT", "SKC", "SKT"]
    # The GSI on its own, throttled keys only, through the AWS CLI.
    cli = subprocess.run(
        ["aws", "dynamodb", "update-contributor-insights", "--endpoint-url", server,
         "--table-name", "orders", "--index-name", "gsi1",
         "--contributor-insights-action", "ENABLE",
         "--contributor-insights-mode", "THROTTLED_KEYS", "--output", "json"],
        env=aws_env, capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["IndexName"] == "gsi1"
    index = ddb.describe_contributor_insights(TableName="orders", IndexName="gsi1")
    assert index["ContributorInsightsMode"] == "THROTTLED_KEYS"
    assert [r.split("-")[1] for r in index["ContributorInsightsRuleList"]] == ["PKT"]
    summaries = ddb.list_contributor_insights()["ContributorInsightsSummaries"]
    assert [(s["TableName"], s.get("IndexName"), s["ContributorInsightsStatus"])
            for s in summaries] == [("orders", None, "ENABLED"), ("orders", "gsi1", "ENABLED")]
    page = ddb.list_contributor_insights(MaxResults=1)
    assert len(page["ContributorInsightsSummaries"]) == 1 and page["NextToken"]
    rest = ddb.list_contributor_insights(MaxResults=1, NextToken=page["NextToken"])
    assert rest["ContributorInsightsSummaries"][0]["IndexName"] == "gsi1"
    assert "NextToken" not in rest

    for bad, code in [
        (dict(TableName="missing", ContributorInsightsAction="ENABLE"),
         "ResourceNotFoundException"),
        (dict(TableName="orders", IndexName="nope", ContributorInsightsAction="ENABLE"),
         "ResourceNotFoundException"),
        (dict(TableName="orders", ContributorInsightsAction="START"), "ValidationException"),
    ]:
        with pytest.raises(ClientError) as refused:
            ddb.update_contributor_insights(**bad)
        assert refused.value.response["Error"]["Code"] == code
    with pytest.raises(ClientError) as refused:
        ddb.list_contributor_insights(MaxResults=101)
    assert refused.value.response["Error"]["Code"] == "ValidationException"

    # Traffic: one hot partition key among many.
    for i in range(300):
        user = "hot-user" if i % 4 == 0 else f"user-{i}"
        ddb.put_item(TableName="orders", Item={
            "user_id": {"S": user}, "order_id": {"S": f"o{i}"}, "shop_id": {"S": "s1"}})
    # Transactions count too: one put and one check of the hot key.
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": "orders", "Item": {
            "user_id": {"S": "hot-user"}, "order_id": {"S": "t1"}, "shop_id": {"S": "s1"}}}},
        {"ConditionCheck": {"TableName": "orders",
                            "Key": {"user_id": {"S": "hot-user"}, "order_id": {"S": "o0"}},
                            "ConditionExpression": "attribute_exists(user_id)"}}])
    ddb.transact_get_items(TransactItems=[{"Get": {"TableName": "orders", "Key": {
        "user_id": {"S": "hot-user"}, "order_id": {"S": "t1"}}}}])
    report = subprocess.run([str(KURA), "insights", "orders", "--endpoint", server, "--json",
                             "--minutes", "5", "--top", "3"],
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    top = json.loads(report.stdout)["mostAccessedPartitionKeys"]
    assert top["events"] == 303
    assert top["keys"][0] == {"key": "hot-user", "count": 78}
    printed = subprocess.run([str(KURA), "insights", "orders", "--endpoint", server],
                             capture_output=True, text=True, timeout=60)
    assert "hot-user" in printed.stdout and "Most accessed partition keys" in printed.stdout

    # Disabled: the rules go, and the report says how to turn it on.
    ddb.update_contributor_insights(TableName="orders", ContributorInsightsAction="DISABLE")
    assert ddb.describe_contributor_insights(
        TableName="orders")["ContributorInsightsStatus"] == "DISABLED"
    off = subprocess.run([str(KURA), "insights", "orders", "--endpoint", server],
                         capture_output=True, text=True, timeout=60)
    assert off.returncode != 0 and "not enabled" in off.stderr


def test_contributor_insights_setting_survives_a_restart(tmp_path):
    data = tmp_path / "data"
    with kura_server(["--data-dir", str(data)], tmp_path) as endpoint:
        ddb = client(endpoint)
        create(ddb, "orders")
        ddb.update_contributor_insights(TableName="orders", ContributorInsightsAction="ENABLE")
    with kura_server(["--data-dir", str(data)], tmp_path) as endpoint:
        ddb = client(endpoint)
        assert ddb.describe_contributor_insights(
            TableName="orders")["ContributorInsightsStatus"] == "ENABLED"
        ddb.put_item(TableName="orders", Item={"user_id": {"S": "u"}, "order_id": {"S": "o"}})
        report = subprocess.run([str(KURA), "insights", "orders", "--endpoint", endpoint,
                                 "--json"], capture_output=True, text=True, timeout=60)
        assert json.loads(report.stdout)["mostAccessedItems"]["keys"] == [
            {"key": "u | o", "count": 1}]


def test_deleted_tables_and_indexes_leave_the_figures(server):
    ddb = client(server)
    create(ddb, "orders", gsi=True)
    ddb.update_contributor_insights(TableName="orders", IndexName="gsi1",
                                    ContributorInsightsAction="ENABLE")
    ddb.put_item(TableName="orders", Item={
        "user_id": {"S": "u"}, "order_id": {"S": "o"}, "shop_id": {"S": "s"}})
    text = scrape(server)
    assert value(text, "kura_consumed_write_capacity_units_total", table_name="orders") == 1
    assert value(text, "kura_successful_request_latency_seconds_count",
                 table_name="orders", operation="PutItem") == 1
    # Deleting the GSI takes its Contributor Insights with it.
    ddb.update_table(TableName="orders",
                     GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gsi1"}}])
    assert ddb.list_contributor_insights(TableName="orders")["ContributorInsightsSummaries"] == [
        {"TableName": "orders", "ContributorInsightsStatus": "DISABLED"}]
    ddb.delete_table(TableName="orders")
    text = scrape(server)
    assert value(text, "kura_consumed_write_capacity_units_total", table_name="orders") is None
    assert value(text, "kura_successful_request_latency_seconds_count",
                 table_name="orders", operation="PutItem") is None


def test_contributor_insights_refusals(server):
    ddb = client(server)
    create(ddb, "orders", gsi=True)
    for call, args, code in [
        (ddb.describe_contributor_insights, dict(TableName="missing"),
         "ResourceNotFoundException"),
        (ddb.describe_contributor_insights, dict(TableName="orders", IndexName="nope"),
         "ResourceNotFoundException"),
        (ddb.list_contributor_insights, dict(TableName="missing"), "ResourceNotFoundException"),
        (ddb.list_contributor_insights, dict(NextToken="not-a-token"), "ValidationException"),
    ]:
        with pytest.raises(ClientError) as refused:
            call(**args)
        assert refused.value.response["Error"]["Code"] == code, args


def test_kura_insights_endpoint_refusals(server):
    ddb = client(server)
    create(ddb, "orders", gsi=True)
    for path, status in [
        ("/kura/insights/missing", 404),
        ("/kura/insights/orders?index=nope", 404),
        ("/kura/insights/orders?minutes=soon", 400),
        ("/kura/insights/orders", 409),
    ]:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server + path)
        assert refused.value.code == status, path
        assert json.load(refused.value)["message"]
    # The command line says what went wrong and fails.
    missing = subprocess.run([str(KURA), "insights", "missing", "--endpoint", server],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "no table missing" in missing.stderr


def test_kura_endpoints_refuse_unsigned_reads_under_auth(tmp_path):
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps({"Credentials": [
        {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice",
         "Account": "123456789012"}]}))
    with kura_server(["--in-memory", "--auth", str(creds)], tmp_path) as endpoint:
        for path in ["/kura/advise", "/kura/insights/orders"]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(endpoint + path)
            assert refused.value.code == 403, path
        advise = subprocess.run([str(KURA), "advise", "--endpoint", endpoint],
                                capture_output=True, text=True, timeout=60)
        assert advise.returncode != 0 and "403" in advise.stderr
