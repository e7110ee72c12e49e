"""Fixtures: the endpoint of a running `kura serve` (KURA_ENDPOINT), a boto3 client, and
an AWS CLI runner. scripts/test.sh starts the server and sets the variable."""

import contextlib
import json
import os
import pathlib
import re
import subprocess
import time
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


ROOT = pathlib.Path(__file__).resolve().parents[2]
# The binary under test: scripts/test.sh sets KURA_BIN to the static release build it also
# puts in the image; by hand, the debug build.
KURA_BIN = pathlib.Path(os.environ.get("KURA_BIN", ROOT / "target" / "debug" / "kura"))


def credentials_file(home, *entries):
    """Writes a `--auth` credentials file of ENTRIES (dicts) in HOME; returns its path."""
    path = pathlib.Path(home) / "credentials.json"
    path.write_text(json.dumps({"Credentials": list(entries)}))
    return path


# The process id of each server kura_server started, by endpoint (for tests that read its
# memory from /proc).
SERVER_PIDS = {}


def rss_kib(pid):
    """A process's resident memory in KiB, from /proc."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


@contextlib.contextmanager
def kura_server(args, home, env=None):
    """A `kura serve ARGS --port 0` of its own (the binary scripts/test.sh builds, or
    KURA_BIN), logging to HOME/kura.log; yields its endpoint, stops it afterwards."""
    binary = KURA_BIN
    if not binary.exists():
        pytest.fail(f"{binary} is not built")
    log = pathlib.Path(home) / "kura.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [str(binary), "serve", "--port", "0", *args], stderr=err, stdout=subprocess.DEVNULL,
            env={**os.environ, "KURA_LOG": "info", **(env or {})})
    try:
        endpoint = None
        for _ in range(300):
            found = re.search(r"kura ready on (http:\S+)", log.read_text())
            if found:
                endpoint = found.group(1)
                break
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
        assert endpoint, log.read_text()
        SERVER_PIDS[endpoint] = proc.pid
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=30)
