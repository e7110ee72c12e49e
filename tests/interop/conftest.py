"""Fixtures: the endpoint of a running `kura serve` (KURA_ENDPOINT), a boto3 client, and
an AWS CLI runner. scripts/test.sh starts the server and sets the variable."""

import json
import os
import subprocess
import uuid

import boto3
import pytest


@pytest.fixture(scope="session")
def endpoint():
    value = os.environ.get("KURA_ENDPOINT")
    if not value:
        pytest.fail("KURA_ENDPOINT is not set: run the suite through scripts/test.sh")
    return value


@pytest.fixture(scope="session")
def aws_env(tmp_path_factory):
    # Any key and region work against Kura; keep the user's own AWS config out of it.
    home = tmp_path_factory.mktemp("aws-home")
    env = dict(os.environ)
    env.update(
        AWS_ACCESS_KEY_ID="kura-test",
        AWS_SECRET_ACCESS_KEY="kura-test",
        AWS_DEFAULT_REGION="eu-west-1",
        AWS_CONFIG_FILE=str(home / "config"),
        AWS_SHARED_CREDENTIALS_FILE=str(home / "credentials"),
    )
    return env


@pytest.fixture()
def ddb(endpoint, aws_env):
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name=aws_env["AWS_DEFAULT_REGION"],
        aws_access_key_id="kura-test",
        aws_secret_access_key="kura-test",
    )


@pytest.fixture()
def table_name():
    return "interop-" + uuid.uuid4().hex[:12]


@pytest.fixture()
def aws(endpoint, aws_env):
    """Runs `aws dynamodb ...` against Kura; returns parsed JSON output (or None)."""

    def run(*args, expect_error=None):
        cmd = ["aws", "dynamodb", "--endpoint-url", endpoint, "--output", "json", *args]
        proc = subprocess.run(cmd, env=aws_env, capture_output=True, text=True, timeout=60)
        if expect_error:
            assert proc.returncode != 0, f"expected {expect_error}, got success: {proc.stdout}"
            assert expect_error in proc.stderr, proc.stderr
            return proc.stderr
        assert proc.returncode == 0, f"{' '.join(cmd)} failed: {proc.stderr}"
        return json.loads(proc.stdout) if proc.stdout.strip() else None

    return run
