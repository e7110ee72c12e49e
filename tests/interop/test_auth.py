"""`kura serve --auth FILE` through boto3 and the AWS CLI: right keys pass, a wrong secret,
an unknown key, a missing or wrong session token and expired credentials are refused with
DynamoDB's error codes; a table's resource-based policy lets a principal read. Starts its own server (the binary scripts/test.sh builds, or
KURA_BIN)."""

import json
import os
import subprocess

import boto3
import botocore
import pytest
from botocore.config import Config
from conftest import kura_server

CREDENTIALS = {
    "Credentials": [
        {"AccessKeyId": "AKIDALICE", "SecretAccessKey": "alice-secret", "User": "alice",
         "Account": "123456789012"},
        {"AccessKeyId": "ASIAROLE", "SecretAccessKey": "role-secret",
         "SessionToken": "the-token", "Expiration": "2099-01-01T00:00:00Z", "Role": "deployer"},
        {"AccessKeyId": "AKIDCAROL", "SecretAccessKey": "carol-secret", "User": "carol",
         "Account": "123456789012", "Policies": [{"Statement": {
             "Effect": "Allow", "Action": "dynamodb:ListTables", "Resource": "*"}}]},
        {"AccessKeyId": "AKIDVEC", "SecretAccessKey": "vec-secret", "User": "vec",
         "Account": "123456789012", "Policies": [{"Statement": {
             "Effect": "Allow", "Action": "dynamodb:SearchVectors",
             "Resource": "arn:aws:dynamodb:us-east-1:123456789012:table/vectbl/index/near"}}]},
        {"AccessKeyId": "AKIDEXPORT", "SecretAccessKey": "export-secret", "User": "exporter",
         "Account": "123456789012", "Policies": [{"Statement": [
             {"Effect": "Allow", "Resource": "*",
              "Action": ["dynamodb:ExportTableToPointInTime", "dynamodb:ImportTable"]},
             {"Effect": "Allow", "Resource": "arn:aws:s3:::team-bucket/exports/*",
              "Action": ["s3:AbortMultipartUpload", "s3:PutObject", "s3:PutObjectAcl",
                         "s3:GetObject"]},
             {"Effect": "Allow", "Action": "s3:ListBucket",
              "Resource": "arn:aws:s3:::team-bucket"},
             {"Effect": "Deny", "Action": "s3:*",
              "Resource": "arn:aws:s3:::team-bucket/exports/held/*"}]}]},
        {"AccessKeyId": "ASIAOLD", "SecretAccessKey": "old-secret", "SessionToken": "old-token",
         "Expiration": "2020-01-01T00:00:00Z", "Role": "deployer"},
    ]
}


@pytest.fixture(scope="module")
def auth_endpoint(tmp_path_factory):
    home = tmp_path_factory.mktemp("auth")
    creds = home / "credentials.json"
    creds.write_text(json.dumps(CREDENTIALS))
    with kura_server(["--in-memory", "--auth", str(creds)], home) as endpoint:
        yield endpoint


def client(endpoint, key, secret, token=None):
    return boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret, aws_session_token=token,
        config=Config(retries={"max_attempts": 1}))


def error_code(endpoint, key, secret, token=None):
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        client(endpoint, key, secret, token).list_tables()
    return raised.value.response["Error"]["Code"], raised.value.response["Error"]["Message"]


def test_boto3_right_keys_pass(auth_endpoint):
    alice = client(auth_endpoint, "AKIDALICE", "alice-secret")
    alice.create_table(
        TableName="authtbl", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    alice.put_item(TableName="authtbl", Item={"pk": {"S": "a"}})
    role = client(auth_endpoint, "ASIAROLE", "role-secret", "the-token")
    assert role.get_item(TableName="authtbl", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}


def test_boto3_wrong_keys_are_refused(auth_endpoint):
    code, message = error_code(auth_endpoint, "AKIDALICE", "wrong")
    assert code == "InvalidSignatureException"
    assert message.startswith("The request signature we calculated does not match")
    invalid = ("UnrecognizedClientException",
               "The security token included in the request is invalid.")
    assert error_code(auth_endpoint, "AKIDNOBODY", "x") == invalid
    assert error_code(auth_endpoint, "ASIAROLE", "role-secret") == invalid
    assert error_code(auth_endpoint, "ASIAROLE", "role-secret", "wrong") == invalid
    assert error_code(auth_endpoint, "ASIAOLD", "old-secret", "old-token") == (
        "ExpiredTokenException", "The security token included in the request is expired")


def test_aws_cli_right_and_wrong_keys(auth_endpoint, tmp_path):
    def run(key, secret):
        env = {**os.environ, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_MAX_ATTEMPTS": "1",
               "AWS_CONFIG_FILE": str(tmp_path / "config"),
               "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials")}
        env.pop("AWS_SESSION_TOKEN", None)
        env.pop("AWS_PROFILE", None)
        return subprocess.run(
            ["aws", "dynamodb", "list-tables", "--endpoint-url", auth_endpoint],
            env=env, capture_output=True, text=True, timeout=60)

    ok = run("AKIDALICE", "alice-secret")
    assert ok.returncode == 0, ok.stderr
    bad = run("AKIDALICE", "wrong")
    assert bad.returncode != 0
    assert "InvalidSignatureException" in bad.stderr


def test_boto3_resource_policy(auth_endpoint):
    """A table's resource-based policy through boto3: carol's identity policy allows only
    ListTables; the table's policy lets her read, not write; revisions and errors."""
    alice = client(auth_endpoint, "AKIDALICE", "alice-secret")
    alice.create_table(
        TableName="rptbl", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    alice.put_item(TableName="rptbl", Item={"pk": {"S": "a"}})
    arn = "arn:aws:dynamodb:us-east-1:123456789012:table/rptbl"
    carol = client(auth_endpoint, "AKIDCAROL", "carol-secret")
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        carol.get_item(TableName="rptbl", Key={"pk": {"S": "a"}})
    assert raised.value.response["Error"]["Code"] == "AccessDeniedException"
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:user/carol"},
        "Action": "dynamodb:GetItem", "Resource": arn}]})
    revision = alice.put_resource_policy(
        ResourceArn=arn, Policy=policy, ExpectedRevisionId="NO_POLICY")["RevisionId"]
    got = alice.get_resource_policy(ResourceArn=arn)
    assert (got["Policy"], got["RevisionId"]) == (policy, revision)
    assert carol.get_item(TableName="rptbl", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        carol.put_item(TableName="rptbl", Item={"pk": {"S": "b"}})
    assert raised.value.response["Error"]["Code"] == "AccessDeniedException"
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        alice.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId="1")
    assert raised.value.response["Error"]["Code"] == "PolicyNotFoundException"
    assert alice.delete_resource_policy(ResourceArn=arn)["RevisionId"] == revision
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        alice.get_resource_policy(ResourceArn=arn)
    assert raised.value.response["Error"]["Code"] == "PolicyNotFoundException"


def test_search_vectors_is_authorized_on_the_vector_index_arn(auth_endpoint):
    """SearchVectors is the action `dynamodb:SearchVectors` on the vector index's ARN: a
    policy naming one index allows that index only, and nothing else on the table."""
    alice = client(auth_endpoint, "AKIDALICE", "alice-secret")
    alice.create_table(
        TableName="vectbl", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        VectorIndexes=[{"IndexName": name, "VectorAttribute": {"AttributeName": "emb"},
                        "Dimensions": 3, "DistanceFunction": "EUCLIDEAN",
                        "Projection": {"ProjectionType": "KEYS_ONLY"}}
                       for name in ("near", "far")])
    alice.put_item(TableName="vectbl", Item={
        "pk": {"S": "a"}, "emb": {"L": [{"N": "1"}, {"N": "0"}, {"N": "0"}]}})
    vec = client(auth_endpoint, "AKIDVEC", "vec-secret")
    found = vec.search_vectors(TableName="vectbl", IndexName="near",
                               SearchVector=[{"N": "1"}, {"N": "0"}, {"N": "0"}], TopK=1)["SearchResults"]
    assert [r["Item"] for r in found] == [{"pk": {"S": "a"}}]
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        vec.search_vectors(TableName="vectbl", IndexName="far", SearchVector=[{"N": "1"}, {"N": "0"}, {"N": "0"}],
                           TopK=1)
    error = raised.value.response["Error"]
    assert error["Code"] == "AccessDeniedException"
    assert ("not authorized to perform: dynamodb:SearchVectors on resource: "
            "arn:aws:dynamodb:us-east-1:123456789012:table/vectbl/index/far") in error["Message"]
    with pytest.raises(botocore.exceptions.ClientError) as raised:
        vec.get_item(TableName="vectbl", Key={"pk": {"S": "a"}})
    assert raised.value.response["Error"]["Code"] == "AccessDeniedException"


def test_exports_and_imports_need_the_callers_s3_permissions(auth_endpoint):
    """As in AWS, an export or import uses the caller's S3 permissions: s3:PutObject (and
    AbortMultipartUpload, PutObjectAcl) on the objects under PREFIX/AWSDynamoDB/ for an
    export, s3:ListBucket on the bucket and s3:GetObject under the key prefix for an
    import. A principal with a table's rights cannot reach a bucket its policies do not
    name; a principal without Policies is not held to any."""
    alice = client(auth_endpoint, "AKIDALICE", "alice-secret")
    alice.create_table(
        TableName="exptbl", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    alice.update_continuous_backups(
        TableName="exptbl",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    arn = alice.describe_table(TableName="exptbl")["Table"]["TableArn"]
    exporter = client(auth_endpoint, "AKIDEXPORT", "export-secret")

    started = exporter.export_table_to_point_in_time(
        TableArn=arn, S3Bucket="team-bucket", S3Prefix="exports")
    assert started["ExportDescription"]["S3Bucket"] == "team-bucket"

    def refused(call, **kwargs):
        with pytest.raises(botocore.exceptions.ClientError) as raised:
            call(**kwargs)
        error = raised.value.response["Error"]
        assert error["Code"] == "AccessDeniedException", error
        return error["Message"]

    message = refused(exporter.export_table_to_point_in_time, TableArn=arn,
                      S3Bucket="someone-elses", S3Prefix="exports")
    assert ("User: arn:aws:iam::123456789012:user/exporter is not authorized to perform: "
            "s3:AbortMultipartUpload on resource: arn:aws:s3:::someone-elses/exports/AWSDynamoDB/*"
            " because no identity-based policy allows the s3:AbortMultipartUpload action"
            ) == message
    assert "arn:aws:s3:::team-bucket/AWSDynamoDB/*" in refused(
        exporter.export_table_to_point_in_time, TableArn=arn, S3Bucket="team-bucket")

    creation = {"TableName": "imported", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
    message = refused(exporter.import_table, InputFormat="DYNAMODB_JSON",
                      S3BucketSource={"S3Bucket": "someone-elses"},
                      TableCreationParameters=creation)
    assert "s3:ListBucket on resource: arn:aws:s3:::someone-elses " in message
    message = refused(exporter.import_table, InputFormat="DYNAMODB_JSON",
                      S3BucketSource={"S3Bucket": "team-bucket", "S3KeyPrefix": "private/"},
                      TableCreationParameters=creation)
    assert "s3:GetObject on resource: arn:aws:s3:::team-bucket/private/*" in message
    # A Deny narrower than the prefix still refuses: the job would touch the held keys.
    message = refused(exporter.export_table_to_point_in_time, TableArn=arn,
                      S3Bucket="team-bucket", S3Prefix="exports/held")
    assert message.endswith("with an explicit deny in an identity-based policy"), message
    message = refused(exporter.import_table, InputFormat="DYNAMODB_JSON",
                      S3BucketSource={"S3Bucket": "team-bucket", "S3KeyPrefix": "exports/"},
                      TableCreationParameters=creation)
    assert ("s3:GetObject on resource: arn:aws:s3:::team-bucket/exports/* with an explicit deny"
            in message), message
    imported = exporter.import_table(
        InputFormat="DYNAMODB_JSON", TableCreationParameters=creation,
        S3BucketSource={"S3Bucket": "team-bucket", "S3KeyPrefix": "exports/AWSDynamoDB/"})
    assert imported["ImportTableDescription"]["ImportStatus"] == "IN_PROGRESS"

    # Alice has no Policies: she is held to none, buckets included.
    alice.export_table_to_point_in_time(TableArn=arn, S3Bucket="anything")
