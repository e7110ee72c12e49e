"""Global tables (version 2019.11.21) through boto3 and the AWS CLI, one client per region,
on `kura serve --regions separate` (docs/global-tables.md): a replica added to a table with
data, concurrent writes in both regions ending equal everywhere (last writer wins), the
refusals DynamoDB makes, and the drill's isolation of a region."""

import json
import subprocess
import threading
import time
import urllib.request

import boto3
import pytest
from botocore.config import Config

from conftest import KURA_BIN, kura_server

TABLE = "Music"


@pytest.fixture()
def server(tmp_path):
    with kura_server(["--in-memory", "--regions", "separate", "--test-controls"], tmp_path) as endpoint:
        yield endpoint


def client(endpoint, region, retries=True):
    config = Config(retries={"max_attempts": 1 if not retries else 3, "mode": "standard"})
    return boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name=region, config=config,
        aws_access_key_id="kura-test", aws_secret_access_key="kura-test")


def create_table(ddb):
    ddb.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"},
                   {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "Artist", "AttributeType": "S"},
                              {"AttributeName": "SongTitle", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")


def add_replica(source, replica, region):
    out = source.update_table(TableName=TABLE, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    described = out["TableDescription"]
    assert described["GlobalTableVersion"] == "2019.11.21"
    assert {"RegionName": region, "ReplicaStatus": "CREATING"} in described["Replicas"]
    # The waiters a user would use: the replica exists, and the source is ACTIVE again.
    replica.get_waiter("table_exists").wait(TableName=TABLE, WaiterConfig={"Delay": 1})
    for _ in range(200):
        statuses = [c.describe_table(TableName=TABLE)["Table"]["TableStatus"] for c in (source, replica)]
        if statuses == ["ACTIVE", "ACTIVE"]:
            return
        time.sleep(0.05)
    raise AssertionError(f"replica in {region} not ACTIVE: {statuses}")


def items(ddb):
    pages = ddb.get_paginator("scan").paginate(TableName=TABLE, ConsistentRead=True)
    return {(i["Artist"]["S"], i["SongTitle"]["S"]): i.get("Plays", {}).get("N")
            for page in pages for i in page["Items"]}


def converged(*clients):
    for _ in range(400):
        seen = [items(c) for c in clients]
        if all(s == seen[0] for s in seen):
            return seen[0]
        time.sleep(0.05)
    raise AssertionError(f"replicas differ: {[len(s) for s in seen]}")


def test_a_replica_of_a_table_with_data_converges_under_writes_in_both_regions(server):
    east, west = client(server, "us-east-1"), client(server, "eu-west-1")
    create_table(east)
    for i in range(100):
        east.put_item(TableName=TABLE, Item={"Artist": {"S": "A"}, "SongTitle": {"S": f"s{i:03}"},
                                             "Plays": {"N": "0"}})
    assert west.list_tables()["TableNames"] == [], "a region is its own namespace"
    add_replica(east, west, "eu-west-1")
    assert len(items(west)) == 100
    table = west.describe_table(TableName=TABLE)["Table"]
    assert table["Replicas"] == [{"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert ":eu-west-1:" in table["TableArn"]

    # Both regions update the same songs at once: each song ends with one value everywhere.
    def writer(ddb, offset):
        for round_ in range(30):
            for i in range(0, 100, 7):
                ddb.update_item(TableName=TABLE, Key={"Artist": {"S": "A"}, "SongTitle": {"S": f"s{i:03}"}},
                                UpdateExpression="SET Plays = :p",
                                ExpressionAttributeValues={":p": {"N": str(offset + round_)}})
    threads = [threading.Thread(target=writer, args=(c, o)) for c, o in ((east, 1000), (west, 2000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = converged(east, west)
    assert len(final) == 100
    assert final[("A", "s000")] in {"1029", "2029"}

    # Settings a global table keeps in step: a GSI made in one replica, TTL in another.
    east.update_table(TableName=TABLE,
                      AttributeDefinitions=[{"AttributeName": "SongTitle", "AttributeType": "S"}],
                      GlobalSecondaryIndexUpdates=[{"Create": {
                          "IndexName": "BySong",
                          "KeySchema": [{"AttributeName": "SongTitle", "KeyType": "HASH"}],
                          "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    west.update_time_to_live(TableName=TABLE,
                             TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    for _ in range(200):
        indexes = west.describe_table(TableName=TABLE)["Table"].get("GlobalSecondaryIndexes", [])
        if [i["IndexStatus"] for i in indexes] == ["ACTIVE"]:
            break
        time.sleep(0.05)
    assert [i["IndexName"] for i in indexes] == ["BySong"]
    songs = west.query(TableName=TABLE, IndexName="BySong", KeyConditionExpression="SongTitle = :s",
                       ExpressionAttributeValues={":s": {"S": "s007"}})["Items"]
    assert len(songs) == 1
    ttl = east.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}

    # Replica auto scaling: every replica, none of them scaled (Kura scales nothing).
    scaling = west.describe_table_replica_auto_scaling(TableName=TABLE)["TableAutoScalingDescription"]
    assert [r["RegionName"] for r in scaling["Replicas"]] == ["eu-west-1", "us-east-1"]
    assert scaling["Replicas"][1]["GlobalSecondaryIndexes"] == [{"IndexName": "BySong", "IndexStatus": "ACTIVE"}]
    updated = east.update_table_replica_auto_scaling(TableName=TABLE)["TableAutoScalingDescription"]
    assert updated["TableStatus"] == "ACTIVE"

    # A replica's stream must keep both images.
    with pytest.raises(west.exceptions.ClientError) as refused:
        west.update_table(TableName=TABLE, StreamSpecification={"StreamEnabled": False})
    assert refused.value.response["Error"]["Code"] == "ValidationException"


def test_the_cli_adds_and_removes_a_replica_and_refuses_the_local_region(server, aws_env):
    east = client(server, "us-east-1")
    create_table(east)

    def cli(region, *args):
        proc = subprocess.run(["aws", "dynamodb", "--endpoint-url", server, "--region", region,
                               "--output", "json", *args], env=aws_env, capture_output=True,
                              text=True, timeout=60)
        return proc

    proc = cli("us-east-1", "update-table", "--table-name", TABLE,
               "--replica-updates", '[{"Create": {"RegionName": "us-east-1"}}]')
    assert proc.returncode != 0
    assert "Cannot add, delete, or update the local region through ReplicaUpdates" in proc.stderr
    proc = cli("us-east-1", "update-table", "--table-name", TABLE,
               "--replica-updates", '[{"Create": {"RegionName": "ap-northeast-1"}}]')
    assert proc.returncode == 0, proc.stderr
    tokyo = client(server, "ap-northeast-1")
    tokyo.get_waiter("table_exists").wait(TableName=TABLE, WaiterConfig={"Delay": 1})
    converged(east, tokyo)
    proc = cli("us-east-1", "update-table", "--table-name", TABLE,
               "--replica-updates", '[{"Delete": {"RegionName": "ap-northeast-1"}}]')
    assert proc.returncode == 0, proc.stderr
    assert "Replicas" not in json.loads(proc.stdout)["TableDescription"]
    assert tokyo.list_tables()["TableNames"] == []


def test_an_isolated_region_is_unreachable_and_catches_up_when_healed(server):
    east, west = client(server, "us-east-1", retries=False), client(server, "eu-west-1", retries=False)
    create_table(east)
    add_replica(east, west, "eu-west-1")

    def admin(path):
        request = urllib.request.Request(f"{server}/kura/admin/regions{path}", method="POST" if path else "GET")
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    admin("/eu-west-1/isolate")
    with pytest.raises(west.exceptions.ClientError) as refused:
        west.list_tables()
    assert refused.value.response["Error"]["Code"] == "ServiceUnavailable"
    east.put_item(TableName=TABLE, Item={"Artist": {"S": "B"}, "SongTitle": {"S": "x"}})
    backlog = admin("")["backlog"]
    assert backlog == [{"table": TABLE, "from": "us-east-1", "to": "eu-west-1", "changes": 1,
                        "oldest_ms": backlog[0]["oldest_ms"]}]
    healed = admin("/eu-west-1/heal")
    assert healed["outage"]["region"] == "eu-west-1"
    assert converged(east, west) == {("B", "x"): None}


def test_shared_regions_refuse_replicas(tmp_path):
    with kura_server(["--in-memory"], tmp_path) as endpoint:
        east = client(endpoint, "us-east-1")
        create_table(east)
        with pytest.raises(east.exceptions.ClientError) as refused:
            east.update_table(TableName=TABLE, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
        assert refused.value.response["Error"]["Code"] == "ValidationException"
        assert "--regions separate" in refused.value.response["Error"]["Message"]


def test_the_legacy_operations_join_empty_tables_and_leave_current_ones_alone(server):
    east, west = client(server, "us-east-1"), client(server, "eu-west-1")
    # A current-version global table is no legacy one.
    create_table(east)
    add_replica(east, west, "eu-west-1")
    with pytest.raises(east.exceptions.GlobalTableNotFoundException):
        east.describe_global_table(GlobalTableName=TABLE)
    assert east.list_global_tables()["GlobalTables"] == []

    # Version 2017.11.29: the same empty table, with its stream, in each region.
    legacy = "Legacy"
    spec = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    for ddb in (east, west):
        ddb.create_table(TableName=legacy, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST", StreamSpecification=spec)
    with pytest.raises(east.exceptions.TableNotFoundException) as missing:
        east.create_global_table(GlobalTableName=legacy, ReplicationGroup=[
            {"RegionName": "us-east-1"}, {"RegionName": "sa-east-1"}])
    assert missing.value.response["Error"]["Message"] == \
        "Table not found: Table: 'Legacy' not found in region: 'sa-east-1'."
    # Joining tables must be empty.
    west.put_item(TableName=legacy, Item={"pk": {"S": "early"}})
    with pytest.raises(east.exceptions.ClientError) as not_empty:
        east.create_global_table(GlobalTableName=legacy, ReplicationGroup=[
            {"RegionName": "us-east-1"}, {"RegionName": "eu-west-1"}])
    assert not_empty.value.response["Error"]["Code"] == "ValidationException"
    west.delete_item(TableName=legacy, Key={"pk": {"S": "early"}})
    created = east.create_global_table(GlobalTableName=legacy, ReplicationGroup=[
        {"RegionName": "us-east-1"}, {"RegionName": "eu-west-1"}])["GlobalTableDescription"]
    assert created["GlobalTableStatus"] == "ACTIVE"
    assert created["ReplicationGroup"] == [{"RegionName": "eu-west-1"}, {"RegionName": "us-east-1"}]
    assert created["GlobalTableArn"].endswith(":global-table/Legacy")
    with pytest.raises(east.exceptions.GlobalTableAlreadyExistsException):
        east.create_global_table(GlobalTableName=legacy, ReplicationGroup=[{"RegionName": "us-east-1"}])
    listed = west.list_global_tables()["GlobalTables"]
    assert [t["GlobalTableName"] for t in listed] == [legacy]
    assert "GlobalTableVersion" not in east.describe_table(TableName=legacy)["Table"]
    settings = west.describe_global_table_settings(GlobalTableName=legacy)["ReplicaSettings"]
    assert sorted(s["RegionName"] for s in settings) == ["eu-west-1", "us-east-1"]

    # A legacy global table is managed by the legacy operations only.
    with pytest.raises(east.exceptions.ClientError) as legacy_replicas:
        east.update_table(TableName=legacy, ReplicaUpdates=[{"Create": {"RegionName": "ap-south-1"}}])
    assert legacy_replicas.value.response["Error"]["Code"] == "ValidationException"

    west.put_item(TableName=legacy, Item={"pk": {"S": "from-west"}})
    for _ in range(200):
        if "Item" in east.get_item(TableName=legacy, Key={"pk": {"S": "from-west"}}):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the legacy global table did not replicate")

    with pytest.raises(east.exceptions.ReplicaNotFoundException):
        east.update_global_table(GlobalTableName=legacy, ReplicaUpdates=[{"Delete": {"RegionName": "ap-south-1"}}])
    with pytest.raises(east.exceptions.ReplicaAlreadyExistsException):
        east.update_global_table(GlobalTableName=legacy, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    left = east.update_global_table(GlobalTableName=legacy, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])
    assert left["GlobalTableDescription"]["ReplicationGroup"] == [{"RegionName": "us-east-1"}]
    with pytest.raises(west.exceptions.GlobalTableNotFoundException):
        west.describe_global_table(GlobalTableName=legacy)


def test_the_console_shows_and_switches_the_region(server):
    west = client(server, "eu-west-1")
    west.create_table(TableName="WestOnly", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                      BillingMode="PAY_PER_REQUEST")

    def tables_page(cookie=None):
        request = urllib.request.Request(f"{server}/console/tables")
        if cookie:
            request.add_header("Cookie", cookie)
        with urllib.request.urlopen(request) as response:
            return response.read().decode()

    home = tables_page()
    assert '<option value="us-east-1" selected>' in home and '<option value="eu-west-1">' in home
    assert "WestOnly" not in home, "the home region has no such table"
    chosen = tables_page("kura-console-region=eu-west-1")
    assert '<option value="eu-west-1" selected>' in chosen
    assert "WestOnly" in chosen
    # The code the console shows signs for the region it acts in.
    request = urllib.request.Request(f"{server}/console/tables/WestOnly/items")
    request.add_header("Cookie", "kura-console-region=eu-west-1")
    with urllib.request.urlopen(request) as response:
        items = response.read().decode()
    assert "--region eu-west-1" in items and "us-east-1" not in items.split("Code for this request")[-1]


def test_mrsc_with_a_witness_loses_no_increment_and_keeps_its_majority(server):
    """Multi-region strong consistency (MRSC) through boto3: two replicas and a witness made
    from an empty table, writers in both replica regions adding to one item at once (a
    conflict is ReplicatedWriteConflictException and is retried; every acknowledged
    increment is counted in both regions), a strongly consistent read in the other region
    at once, and no writes once neither the other replica nor the witness is reachable."""
    east, ohio = client(server, "us-east-1", retries=False), client(server, "us-east-2", retries=False)
    create_table(east)
    out = east.update_table(
        TableName=TABLE, MultiRegionConsistency="STRONG",
        ReplicaUpdates=[{"Create": {"RegionName": "us-east-2"}}],
        GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}])["TableDescription"]
    assert out["MultiRegionConsistency"] == "STRONG"
    assert out["GlobalTableWitnesses"] == [{"RegionName": "us-west-2", "WitnessStatus": "ACTIVE"}]
    assert ohio.describe_table(TableName=TABLE)["Table"]["Replicas"] == [
        {"RegionName": "us-east-1", "ReplicaStatus": "ACTIVE"}]
    key = {"Artist": {"S": "Hot"}, "SongTitle": {"S": "count"}}
    acknowledged, conflicts, lock = [0], [0], threading.Lock()

    def writer(ddb):
        for _ in range(25):
            try:
                ddb.update_item(TableName=TABLE, Key=key, UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": {"N": "1"}})
            except ddb.exceptions.ReplicatedWriteConflictException:
                with lock:
                    conflicts[0] += 1
                continue
            with lock:
                acknowledged[0] += 1

    threads = [threading.Thread(target=writer, args=(client(server, region, retries=False),))
               for region in ("us-east-1", "us-east-2") for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for ddb in (east, ohio):
        item = ddb.get_item(TableName=TABLE, Key=key, ConsistentRead=True)["Item"]
        assert int(item["n"]["N"]) == acknowledged[0], f"{conflicts[0]} conflicts"
    with pytest.raises(east.exceptions.ClientError) as refused:
        east.transact_write_items(TransactItems=[{"Put": {"TableName": TABLE, "Item": key}}])
    assert refused.value.response["Error"]["Code"] == "ValidationException"

    def admin(path):
        request = urllib.request.Request(f"{server}/kura/admin/regions{path}", method="POST")
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    admin("/us-east-2/isolate")
    east.put_item(TableName=TABLE, Item={**key, "n": {"N": "100"}})
    admin("/us-west-2/isolate")
    with pytest.raises(east.exceptions.ClientError) as refused:
        east.put_item(TableName=TABLE, Item={**key, "n": {"N": "200"}})
    assert refused.value.response["Error"]["Code"] == "ServiceUnavailable"
    admin("/us-west-2/heal")
    admin("/us-east-2/heal")
    item = ohio.get_item(TableName=TABLE, Key=key, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "100"}


def test_a_replica_keeps_its_own_read_capacity_table_class_and_key(server):
    """Per-replica overrides: a Create's ProvisionedThroughputOverride, GSI override,
    TableClassOverride and KMSMasterKeyId are the replica's (its table is throttled at its
    own read capacity), listed by every member; an Update merges; a provisioned throughput
    change made in the source keeps the replica's own reads."""
    east, west = client(server, "us-east-1"), client(server, "eu-west-1")
    east.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "Artist", "AttributeType": "S"},
                              {"AttributeName": "Genre", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "ByGenre",
                                 "KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"},
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}],
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})

    def refused(create):
        with pytest.raises(east.exceptions.ClientError) as e:
            east.update_table(TableName=TABLE, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1", **create}}])
        assert e.value.response["Error"]["Code"] == "ValidationException"
        return e.value.response["Error"]["Message"]

    assert "tableClassOverride" in refused({"TableClassOverride": "GLACIER"})
    assert "no global secondary index Nope" in refused({"GlobalSecondaryIndexes": [{"IndexName": "Nope"}]})
    assert "OnDemandThroughputOverride cannot be set" in refused({"OnDemandThroughputOverride": {"MaxReadRequestUnits": 10}})
    out = east.update_table(TableName=TABLE, ReplicaUpdates=[{"Create": {
        "RegionName": "eu-west-1", "KMSMasterKeyId": "alias/replica-key",
        "ProvisionedThroughputOverride": {"ReadCapacityUnits": 7},
        "GlobalSecondaryIndexes": [{"IndexName": "ByGenre", "ProvisionedThroughputOverride": {"ReadCapacityUnits": 3}}],
        "TableClassOverride": "STANDARD_INFREQUENT_ACCESS"}}])["TableDescription"]
    (replica,) = out["Replicas"]
    assert replica["ProvisionedThroughputOverride"] == {"ReadCapacityUnits": 7}
    assert replica["GlobalSecondaryIndexes"] == [
        {"IndexName": "ByGenre", "ProvisionedThroughputOverride": {"ReadCapacityUnits": 3}}]
    assert replica["ReplicaTableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert replica["KMSMasterKeyId"] == "alias/replica-key"
    west.get_waiter("table_exists").wait(TableName=TABLE, WaiterConfig={"Delay": 1})
    own = west.describe_table(TableName=TABLE)["Table"]
    assert own["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert own["ProvisionedThroughput"]["WriteCapacityUnits"] == 5
    assert own["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
    assert own["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert "TableClassSummary" not in east.describe_table(TableName=TABLE)["Table"] or \
        east.describe_table(TableName=TABLE)["Table"]["TableClassSummary"]["TableClass"] == "STANDARD"
    for _ in range(200):
        if [c.describe_table(TableName=TABLE)["Table"]["TableStatus"] for c in (east, west)] == ["ACTIVE"] * 2:
            break
        time.sleep(0.05)
    # An Update changes what it names and keeps the rest.
    out = east.update_table(TableName=TABLE, ReplicaUpdates=[{"Update": {
        "RegionName": "eu-west-1", "ProvisionedThroughputOverride": {"ReadCapacityUnits": 9}}}])
    (replica,) = out["TableDescription"]["Replicas"]
    assert replica["ProvisionedThroughputOverride"] == {"ReadCapacityUnits": 9}
    assert replica["ReplicaTableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert west.describe_table(TableName=TABLE)["Table"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 9
    # The source's new throughput reaches the replica, which keeps its own reads.
    east.update_table(TableName=TABLE, ProvisionedThroughput={"ReadCapacityUnits": 20, "WriteCapacityUnits": 20})
    theirs = west.describe_table(TableName=TABLE)["Table"]["ProvisionedThroughput"]
    assert (theirs["ReadCapacityUnits"], theirs["WriteCapacityUnits"]) == (9, 20)
    # Every member lists the replica in the source with its overrides too.
    (listed,) = west.describe_table(TableName=TABLE)["Table"]["Replicas"]
    assert listed["RegionName"] == "us-east-1" and "ProvisionedThroughputOverride" not in listed
    # A backup of a replica restores as a table of its own, as on AWS.
    arn = west.create_backup(TableName=TABLE, BackupName="replica")["BackupDetails"]["BackupArn"]
    west.restore_table_from_backup(TargetTableName="Restored", BackupArn=arn)
    west.get_waiter("table_exists").wait(TableName="Restored", WaiterConfig={"Delay": 1})
    restored = west.describe_table(TableName="Restored")["Table"]
    assert "Replicas" not in restored and "GlobalTableVersion" not in restored
