"""Interop: on-demand backups and point-in-time recovery from boto3 and the AWS CLI.

A backup taken, the table changed and deleted, and the backup restored equal to the
table as it was (its GSI answering queries); ListBackups filters and paging through the
paginator; point-in-time recovery enabled, a restore to a past second and to the latest
time; the errors with DynamoDB's types and texts; the AWS CLI's backup commands."""

import time
from datetime import datetime, timezone

import pytest
from botocore.exceptions import ClientError


def create(ddb, name, gsi=False):
    spec = dict(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    if gsi:
        spec["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ]
    else:
        spec["AttributeDefinitions"] = spec["AttributeDefinitions"][:1]
    ddb.create_table(**spec)


def scan_all(ddb, name):
    items = []
    for page in ddb.get_paginator("scan").paginate(TableName=name, PaginationConfig={"PageSize": 11}):
        items.extend(page["Items"])
    return sorted(items, key=lambda i: i["pk"]["S"])


def wait_active(ddb, name, timeout=30):
    deadline = time.time() + timeout
    while True:
        table = ddb.describe_table(TableName=name)["Table"]
        if table["TableStatus"] == "ACTIVE":
            assert "RestoreSummary" not in table
            return table
        assert time.time() < deadline, f"{name} stayed {table['TableStatus']}"
        time.sleep(0.05)


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def test_backup_outlives_its_table_and_restores_whole(ddb, table_name):
    create(ddb, table_name, gsi=True)
    with _writer(ddb, table_name) as put:
        for i in range(120):
            put({"pk": {"S": f"k{i:03}"}, "g": {"S": f"g{i % 4}"}, "n": {"N": str(i)}})
    before = scan_all(ddb, table_name)
    details = ddb.create_backup(TableName=table_name, BackupName="before-change")["BackupDetails"]
    arn = details["BackupArn"]
    assert details["BackupStatus"] == "CREATING"
    assert isinstance(details["BackupCreationDateTime"], datetime)
    for i in range(0, 120, 2):
        ddb.delete_item(TableName=table_name, Key={"pk": {"S": f"k{i:03}"}})
    ddb.delete_table(TableName=table_name)

    described = ddb.describe_backup(BackupArn=arn)["BackupDescription"]
    assert described["BackupDetails"]["BackupStatus"] == "AVAILABLE"
    assert described["SourceTableDetails"]["ItemCount"] == 120
    gsis = described["SourceTableFeatureDetails"]["GlobalSecondaryIndexes"]
    assert [g["IndexName"] for g in gsis] == ["byG"]

    target = table_name + "-restored"
    out = ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    assert out["TableDescription"]["RestoreSummary"]["RestoreInProgress"] is True
    table = wait_active(ddb, target)
    assert table["ItemCount"] == 120
    assert scan_all(ddb, target) == before
    got = ddb.query(
        TableName=target,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "g1"}},
    )
    assert got["Count"] == 30

    ddb.delete_backup(BackupArn=arn)
    with pytest.raises(ClientError) as e:
        ddb.describe_backup(BackupArn=arn)
    assert error(e) == ("BackupNotFoundException", f"Backup not found: {arn}")


class _writer:
    """Puts items through BatchWriteItem, 25 at a time."""

    def __init__(self, ddb, table):
        self.ddb, self.table, self.pending = ddb, table, []

    def __enter__(self):
        return self.put

    def put(self, item):
        self.pending.append({"PutRequest": {"Item": item}})
        if len(self.pending) == 25:
            self.flush()

    def flush(self):
        if self.pending:
            out = self.ddb.batch_write_item(RequestItems={self.table: self.pending})
            assert not out["UnprocessedItems"]
            self.pending = []

    def __exit__(self, *exc):
        self.flush()


def test_list_backups_filters_and_pages(ddb, table_name):
    create(ddb, table_name)
    arns = [
        ddb.create_backup(TableName=table_name, BackupName=f"bk-{n}")["BackupDetails"]["BackupArn"]
        for n in range(5)
    ]
    pages = ddb.get_paginator("list_backups").paginate(
        TableName=table_name, PaginationConfig={"PageSize": 2}
    )
    listed = [s["BackupArn"] for page in pages for s in page["BackupSummaries"]]
    assert listed == arns
    assert ddb.list_backups(TableName=table_name, BackupType="SYSTEM")["BackupSummaries"] == []
    assert len(ddb.list_backups(TableName=table_name, BackupType="ALL")["BackupSummaries"]) == 5
    late = datetime(2100, 1, 1, tzinfo=timezone.utc)
    assert ddb.list_backups(TableName=table_name, TimeRangeLowerBound=late)["BackupSummaries"] == []
    assert ddb.list_backups(TableName="no-such-table")["BackupSummaries"] == []
    with pytest.raises(ClientError) as e:
        ddb.list_backups(TimeRangeLowerBound=late, TimeRangeUpperBound=datetime(2000, 1, 1))
    assert error(e) == (
        "ValidationException",
        "One or more parameter values were invalid: Time range lower bound must be less than or equal to upper bound",
    )
    for arn in arns:
        ddb.delete_backup(BackupArn=arn)


def test_point_in_time_recovery(ddb, table_name):
    create(ddb, table_name)
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(
            SourceTableName=table_name, TargetTableName=table_name + "-x", UseLatestRestorableTime=True
        )
    assert error(e) == (
        "PointInTimeRecoveryUnavailableException",
        f"Point in time recovery is not enabled for table '{table_name}'",
    )
    desc = ddb.update_continuous_backups(
        TableName=table_name,
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
    )["ContinuousBackupsDescription"]
    pitr = desc["PointInTimeRecoveryDescription"]
    assert desc["ContinuousBackupsStatus"] == "ENABLED"
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    assert pitr["RecoveryPeriodInDays"] == 35
    for i in range(10):
        ddb.put_item(TableName=table_name, Item={"pk": {"S": f"a{i}"}, "v": {"N": "1"}})
    time.sleep(1.1)
    mid = datetime.fromtimestamp(int(time.time()) - 0.001, tz=timezone.utc)
    time.sleep(1.1)
    for i in range(10):
        ddb.update_item(
            TableName=table_name,
            Key={"pk": {"S": f"a{i}"}},
            UpdateExpression="SET v = :two",
            ExpressionAttributeValues={":two": {"N": "2"}},
        )
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "later"}})

    at_mid = table_name + "-mid"
    out = ddb.restore_table_to_point_in_time(
        SourceTableName=table_name, TargetTableName=at_mid, RestoreDateTime=mid
    )
    assert "SourceBackupArn" not in out["TableDescription"]["RestoreSummary"]
    wait_active(ddb, at_mid)
    items = scan_all(ddb, at_mid)
    assert len(items) == 10 and {i["v"]["N"] for i in items} == {"1"}

    latest = table_name + "-latest"
    ddb.restore_table_to_point_in_time(
        SourceTableArn=f"arn:aws:dynamodb:eu-west-1:000000000000:table/{table_name}",
        TargetTableName=latest,
        UseLatestRestorableTime=True,
    )
    wait_active(ddb, latest)
    assert scan_all(ddb, latest) == scan_all(ddb, table_name)

    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(
            SourceTableName=table_name,
            TargetTableName=latest,
            RestoreDateTime=mid,
            UseLatestRestorableTime=True,
        )
    assert error(e)[0] == "ValidationException"
    assert error(e)[1].startswith("Invalid Request: Both RestoreDateTime and UseLatestRestorableTime")
    with pytest.raises(ClientError) as e:
        ddb.restore_table_to_point_in_time(
            SourceTableName=table_name,
            TargetTableName=table_name + "-early",
            RestoreDateTime=datetime(2020, 1, 1, tzinfo=timezone.utc),
        )
    assert error(e)[0] == "InvalidRestoreTimeException"
    assert error(e)[1].startswith("RestoreDateTime '2020-01-01T00:00:00Z' must be within EarliestRestorableDateTime '")
    with pytest.raises(ClientError) as e:
        ddb.update_continuous_backups(
            TableName=table_name,
            PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False, "RecoveryPeriodInDays": 3},
        )
    assert error(e) == (
        "ValidationException",
        "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.",
    )
    # Deleting the table leaves a SYSTEM backup that users cannot delete.
    ddb.delete_table(TableName=table_name)
    system = ddb.list_backups(TableName=table_name, BackupType="SYSTEM")["BackupSummaries"]
    assert [s["BackupName"] for s in system] == [f"{table_name}$DeletedTableBackup"]
    assert system[0]["BackupArn"].endswith("-00000000")
    with pytest.raises(ClientError) as e:
        ddb.delete_backup(BackupArn=system[0]["BackupArn"])
    assert error(e)[1].startswith("Invalid Request: User is not allowed to delete the system backup")


def test_cli_backup_commands(aws, table_name):
    aws(
        "create-table", "--table-name", table_name, "--billing-mode", "PAY_PER_REQUEST",
        "--attribute-definitions", "AttributeName=pk,AttributeType=S",
        "--key-schema", "AttributeName=pk,KeyType=HASH",
    )
    aws("put-item", "--table-name", table_name, "--item", '{"pk": {"S": "one"}}')
    arn = aws("create-backup", "--table-name", table_name, "--backup-name", "cli-1")["BackupDetails"]["BackupArn"]
    listed = aws("list-backups", "--table-name", table_name)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == [arn]
    assert aws("describe-backup", "--backup-arn", arn)["BackupDescription"]["BackupDetails"]["BackupName"] == "cli-1"
    aws("restore-table-from-backup", "--target-table-name", table_name + "-r", "--backup-arn", arn)
    aws("wait", "table-exists", "--table-name", table_name + "-r")
    got = aws("get-item", "--table-name", table_name + "-r", "--key", '{"pk": {"S": "one"}}')
    assert got["Item"]["pk"]["S"] == "one"
    on = aws(
        "update-continuous-backups", "--table-name", table_name,
        "--point-in-time-recovery-specification", "PointInTimeRecoveryEnabled=true,RecoveryPeriodInDays=3",
    )
    assert on["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]["RecoveryPeriodInDays"] == 3
    described = aws("describe-continuous-backups", "--table-name", table_name)
    assert described["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    aws(
        "restore-table-to-point-in-time", "--source-table-name", table_name,
        "--target-table-name", table_name + "-p", "--use-latest-restorable-time",
    )
    aws("wait", "table-exists", "--table-name", table_name + "-p")
    assert aws("delete-backup", "--backup-arn", arn)["BackupDescription"]["BackupDetails"]["BackupStatus"] == "DELETED"
    aws("describe-backup", "--backup-arn", arn, expect_error="BackupNotFoundException")


def test_export_and_import_errors_through_boto3(ddb, table_name):
    """The refusals of the export and import operations, as DynamoDB words them."""
    create(ddb, table_name)
    arn = ddb.describe_table(TableName=table_name)["Table"]["TableArn"]
    account_arn = arn.rsplit(":table/", 1)[0]

    def refused(call, **kwargs):
        with pytest.raises(ClientError) as e:
            call(**kwargs)
        return error(e)

    assert refused(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket") == (
        "PointInTimeRecoveryUnavailableException",
        f"Point in time recovery is not enabled for table '{table_name}'",
    )
    assert refused(ddb.export_table_to_point_in_time, TableArn=table_name, S3Bucket="errors-bucket") == (
        "ValidationException",
        "One or more parameter values were invalid: tableArn is not a valid ARN",
    )
    assert refused(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket", ExportFormat="CSV") == (
        "ValidationException",
        "1 validation error detected: Value 'CSV' at 'exportFormat' failed to satisfy constraint: "
        "Member must satisfy enum value set: [ION, DYNAMODB_JSON]",
    )
    assert refused(
        ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket",
        IncrementalExportSpecification={"ExportFromTime": datetime(2026, 1, 1, tzinfo=timezone.utc)},
    ) == (
        "ValidationException",
        "Invalid Request: Export Type expected to be Incremental Export when incremental export specification is provided",
    )
    ddb.update_continuous_backups(
        TableName=table_name, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    assert refused(
        ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket",
        ExportTime=datetime(2100, 1, 1, tzinfo=timezone.utc),
    ) == ("InvalidExportTimeException", "Export Time is invalid")
    now = time.time()
    assert refused(
        ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket",
        ExportType="INCREMENTAL_EXPORT",
        IncrementalExportSpecification={"ExportFromTime": datetime.fromtimestamp(now - 60, tz=timezone.utc),
                                        "ExportToTime": datetime.fromtimestamp(now - 1, tz=timezone.utc)},
    )[0] == "InvalidExportTimeException"
    first = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="errors-bucket", ClientToken="same-token")
    again = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket="errors-bucket", ClientToken="same-token")
    assert first["ExportDescription"]["ExportArn"] == again["ExportDescription"]["ExportArn"]
    assert refused(
        ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket="errors-bucket", S3Prefix="other",
        ClientToken="same-token",
    ) == ("ExportConflictException", "Export conflict: Duplicate request detected with conflicting parameters")
    assert refused(ddb.describe_export, ExportArn=arn) == ("ValidationException", "Invalid Export ARN")
    missing = f"{arn}/export/01800000000000-00000000"
    assert refused(ddb.describe_export, ExportArn=missing) == (
        "ExportNotFoundException", f"Export not found: Export not found: {missing}")
    assert refused(ddb.list_exports, NextToken="zz") == (
        "ValidationException", "Invalid Request: Provided nextToken is invalid: zz")

    creation = {"TableName": table_name, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
    source = {"S3Bucket": "errors-bucket", "S3KeyPrefix": "nothing/"}
    assert refused(ddb.import_table, S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                   TableCreationParameters=creation) == (
        "ResourceInUseException", f"Table already exists: {table_name}")
    assert refused(ddb.import_table, S3BucketSource=source, InputFormat="DYNAMODB_JSON",
                   InputFormatOptions={"Csv": {"Delimiter": ";"}},
                   TableCreationParameters={**creation, "TableName": table_name + "-new"}) == (
        "ValidationException",
        "Invalid Request: Unsupported InputFormatOptions for the given input format: DYNAMODB_JSON.",
    )
    assert refused(ddb.describe_import, ImportArn=arn) == ("ValidationException", "Invalid Import ARN")
    missing = f"{account_arn}:table/{table_name}/import/01800000000000-00000000"
    assert refused(ddb.describe_import, ImportArn=missing) == ("ImportNotFoundException", f"Import not found: {missing}")
    assert refused(
        ddb.restore_table_to_point_in_time, SourceTableName=table_name, SourceTableArn=arn,
        TargetTableName=table_name + "-r", UseLatestRestorableTime=True,
    ) == ("ValidationException", "Must provide exactly one of: sourceTableArn, sourceTableName")
