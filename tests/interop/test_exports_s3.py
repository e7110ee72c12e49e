"""Exports to and imports from a real S3-compatible server: moto's S3 (installed with
the interop requirements), started here, with a `kura serve --s3-endpoint` pointed at it
(the binary scripts/test.sh builds, or KURA_BIN). boto3 exports a table in both formats,
reads the objects back through the S3 API and checks DynamoDB's layout and checksums,
then imports the data files into new tables equal to the source; a missing bucket fails
the export and the import with S3's error code."""

import base64
import gzip
import hashlib
import json
import pathlib
import socket
import subprocess
import sys
import time

import boto3
import pytest
from conftest import kura_server

KEYS = dict(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    moto = pathlib.Path(sys.executable).parent / "moto_server"
    if not moto.exists():
        pytest.fail(f"{moto} is missing: install tests/interop/requirements.txt")
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([str(moto), "-H", "127.0.0.1", "-p", str(port)], stdout=out, stderr=out)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                boto3.client("s3", endpoint_url=endpoint, **KEYS).list_buckets()
                break
            except Exception:
                assert proc.poll() is None, log.read_text()
                time.sleep(0.1)
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def kura(s3_endpoint, tmp_path_factory):
    home = tmp_path_factory.mktemp("kura-s3")
    keys = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    args = ["--data-dir", str(home / "data"), "--s3-endpoint", s3_endpoint]
    with kura_server(args, home, keys) as endpoint:
        yield endpoint


def wait(fetch, key, timeout=30):
    deadline = time.time() + timeout
    while True:
        described = fetch()
        if described[key] != "IN_PROGRESS":
            return described
        assert time.time() < deadline, described
        time.sleep(0.1)


def md5_b64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def test_export_to_s3_and_import_back(kura, s3_endpoint):
    ddb = boto3.client("dynamodb", endpoint_url=kura, **KEYS)
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, **KEYS)
    s3.create_bucket(Bucket="kura-exports")
    ddb.create_table(
        TableName="s3-source", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    ddb.update_continuous_backups(TableName="s3-source",
                                  PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    for i in range(60):
        ddb.put_item(TableName="s3-source", Item={
            "pk": {"S": f"k{i:02}"}, "g": {"S": f"g{i % 3}"}, "n": {"N": str(i)},
            "tags": {"SS": ["a", f"t{i}"]}, "blob": {"B": bytes([i, 255])}, "ok": {"BOOL": i % 2 == 0}})
    source = sorted(ddb.scan(TableName="s3-source")["Items"], key=lambda i: i["pk"]["S"])
    table_arn = ddb.describe_table(TableName="s3-source")["Table"]["TableArn"]

    for fmt in ["DYNAMODB_JSON", "ION"]:
        started = ddb.export_table_to_point_in_time(
            TableArn=table_arn, S3Bucket="kura-exports", S3Prefix=f"runs/{fmt.lower()}", ExportFormat=fmt)
        arn = started["ExportDescription"]["ExportArn"]
        done = wait(lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"], "ExportStatus")
        assert done["ExportStatus"] == "COMPLETED", done
        assert done["ItemCount"] == 60
        export_id = arn.rsplit("/", 1)[1]
        base = f"runs/{fmt.lower()}/AWSDynamoDB/{export_id}/"
        listed = {o["Key"] for o in s3.list_objects_v2(Bucket="kura-exports", Prefix=base)["Contents"]}
        for name in ["_started", "manifest-files.json", "manifest-files.md5", "manifest-summary.json", "manifest-summary.md5"]:
            assert base + name in listed, listed
        summary = s3.get_object(Bucket="kura-exports", Key=base + "manifest-summary.json")["Body"].read()
        assert s3.get_object(Bucket="kura-exports", Key=base + "manifest-summary.md5")["Body"].read().decode() == md5_b64(summary)
        summary = json.loads(summary)
        assert (summary["version"], summary["outputFormat"], summary["itemCount"]) == ("2020-06-30", fmt, 60)
        assert done["ExportManifest"] == base + "manifest-summary.json"
        files = s3.get_object(Bucket="kura-exports", Key=summary["manifestFilesS3Key"])["Body"].read().decode()
        count = 0
        for line in files.splitlines():
            entry = json.loads(line)
            body = s3.get_object(Bucket="kura-exports", Key=entry["dataFileS3Key"])["Body"].read()
            assert entry["md5Checksum"] == md5_b64(body)
            count += len(gzip.decompress(body).decode().splitlines())
        assert count == 60

        target = f"s3-from-{fmt.lower().replace('_', '-')}"
        imported = ddb.import_table(
            S3BucketSource={"S3Bucket": "kura-exports", "S3KeyPrefix": base + "data/"},
            InputFormat=fmt, InputCompressionType="GZIP",
            TableCreationParameters={
                "TableName": target, "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "g", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "GlobalSecondaryIndexes": [{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                            "Projection": {"ProjectionType": "ALL"}}]})
        import_arn = imported["ImportTableDescription"]["ImportArn"]
        done = wait(lambda: ddb.describe_import(ImportArn=import_arn)["ImportTableDescription"], "ImportStatus")
        assert done["ImportStatus"] == "COMPLETED", done
        assert done["ImportedItemCount"] == 60
        assert sorted(ddb.scan(TableName=target)["Items"], key=lambda i: i["pk"]["S"]) == source
        by_g = ddb.query(TableName=target, IndexName="byG", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": "g1"}})
        assert by_g["Count"] == 20


def test_refused_lines_are_counted_and_the_valid_ones_kept(kura, s3_endpoint):
    ddb = boto3.client("dynamodb", endpoint_url=kura, **KEYS)
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, **KEYS)
    s3.create_bucket(Bucket="kura-bad-lines")
    lines = "\n".join([
        '{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}',
        "not json at all",
        '{"Item":{"n":{"N":"2"}}}',
        '{"Item":{"pk":{"N":"3"}}}',
        '{"Item":{"pk":{"S":"b"}}}',
    ]) + "\n"
    s3.put_object(Bucket="kura-bad-lines", Key="in/part-1.json.gz", Body=gzip.compress(lines.encode()))
    imported = ddb.import_table(
        S3BucketSource={"S3Bucket": "kura-bad-lines", "S3KeyPrefix": "in/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        TableCreationParameters={"TableName": "s3-bad-lines", "BillingMode": "PAY_PER_REQUEST",
                                 "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                 "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    arn = imported["ImportTableDescription"]["ImportArn"]
    done = wait(lambda: ddb.describe_import(ImportArn=arn)["ImportTableDescription"], "ImportStatus")
    assert (done["ImportStatus"], done["FailureCode"]) == ("FAILED", "ItemValidationError"), done
    assert (done["ProcessedItemCount"], done["ImportedItemCount"], done["ErrorCount"]) == (5, 2, 3)
    assert ddb.describe_table(TableName="s3-bad-lines")["Table"]["TableStatus"] == "ACTIVE"
    assert sorted(i["pk"]["S"] for i in ddb.scan(TableName="s3-bad-lines")["Items"]) == ["a", "b"]


def test_a_missing_bucket_fails_with_s3s_code(kura):
    ddb = boto3.client("dynamodb", endpoint_url=kura, **KEYS)
    ddb.create_table(TableName="s3-lonely", BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ddb.update_continuous_backups(TableName="s3-lonely",
                                  PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = ddb.export_table_to_point_in_time(
        TableArn=ddb.describe_table(TableName="s3-lonely")["Table"]["TableArn"],
        S3Bucket="no-such-bucket-here")["ExportDescription"]["ExportArn"]
    done = wait(lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"], "ExportStatus")
    assert (done["ExportStatus"], done["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    imported = ddb.import_table(
        S3BucketSource={"S3Bucket": "no-such-bucket-here"}, InputFormat="CSV",
        TableCreationParameters={"TableName": "s3-never", "BillingMode": "PAY_PER_REQUEST",
                                 "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                 "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    import_arn = imported["ImportTableDescription"]["ImportArn"]
    done = wait(lambda: ddb.describe_import(ImportArn=import_arn)["ImportTableDescription"], "ImportStatus")
    assert (done["ImportStatus"], done["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    assert "s3-never" not in ddb.list_tables()["TableNames"]


def test_an_import_creates_vector_indexes_and_fills_them(kura, s3_endpoint):
    """Issue 33: ImportTable's TableCreationParameters take VectorIndexes; the imported
    items' vectors are searchable once the import completes."""
    ddb = boto3.client("dynamodb", endpoint_url=kura, **KEYS)
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, **KEYS)
    s3.create_bucket(Bucket="kura-vectors")
    lines = "\n".join(json.dumps({"Item": {
        "pk": {"S": f"v{i}"}, "emb": {"L": [{"N": str(i)}, {"N": "0"}]}}}) for i in range(20))
    s3.put_object(Bucket="kura-vectors", Key="in/part-1.json", Body=(lines + "\n").encode())
    index = {"IndexName": "emb-index", "VectorAttribute": {"AttributeName": "emb"},
             "Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
             "Projection": {"ProjectionType": "KEYS_ONLY"}}
    imported = ddb.import_table(
        S3BucketSource={"S3Bucket": "kura-vectors", "S3KeyPrefix": "in/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="NONE",
        TableCreationParameters={"TableName": "s3-vectors", "BillingMode": "PAY_PER_REQUEST",
                                 "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                 "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                                 "VectorIndexes": [index]})
    description = imported["ImportTableDescription"]
    assert description["TableCreationParameters"]["VectorIndexes"][0]["IndexName"] == "emb-index"
    done = wait(lambda: ddb.describe_import(ImportArn=description["ImportArn"])["ImportTableDescription"],
                "ImportStatus")
    assert (done["ImportStatus"], done["ImportedItemCount"]) == ("COMPLETED", 20), done
    found = ddb.search_vectors(TableName="s3-vectors", IndexName="emb-index",
                               SearchVector=[{"N": "7.2"}, {"N": "0"}], TopK=3)["SearchResults"]
    assert [r["Item"]["pk"]["S"] for r in found] == ["v7", "v8", "v6"]
