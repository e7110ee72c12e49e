"""The container image (packaging/docker/Dockerfile, built by scripts/image.sh from the
static binary) through the AWS CLI and boto3: it serves on port 8000 as a non-root user,
keeps its data in the /data volume across a restart, reports healthy through its own
HEALTHCHECK, serves the documented in-memory mode, and refuses a read-only or full volume
with a plain error and a non-zero exit. scripts/test.sh builds the image and sets KURA_IMAGE."""

import json
import os
import socket
import subprocess
import time
import uuid

import boto3
import pytest

IMAGE = os.environ.get("KURA_IMAGE")

if not IMAGE:
    if os.environ.get("CI"):
        pytest.fail("KURA_IMAGE is not set: scripts/test.sh builds the image", pytrace=False)
    pytest.skip("KURA_IMAGE is not set (scripts/image.sh builds the image)",
                allow_module_level=True)


def docker(*args, check=True, timeout=60):
    proc = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, f"docker {' '.join(args)}: {proc.stderr}"
    return proc


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Container:
    """A `docker run -d` of the image, removed at the end."""

    def __init__(self, *args, volume=None, port=None, tmpfs=None):
        self.name = "kura-test-" + uuid.uuid4().hex[:10]
        self.port = port or free_port()
        mounts = ["-v", volume] if volume else []
        mounts += ["--tmpfs", tmpfs] if tmpfs else []
        docker("run", "-d", "--name", self.name, "-p", f"127.0.0.1:{self.port}:8000",
               *mounts, IMAGE, *args)
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                if docker("exec", self.name, "/kura", "healthcheck", check=False).returncode == 0:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"{self.name} not ready: {self.logs()}")

    def logs(self):
        proc = docker("logs", self.name, check=False)
        return proc.stdout + proc.stderr

    def stop(self):
        docker("stop", "-t", "10", self.name, check=False)

    def remove(self):
        docker("rm", "-f", self.name, check=False)


def client(endpoint):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="kura", aws_secret_access_key="kura")


def aws(endpoint, aws_env, *args):
    proc = subprocess.run(["aws", "dynamodb", "--endpoint-url", endpoint, "--output", "json",
                           *args], env=aws_env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def test_the_image_is_small_static_and_not_root():
    inspect = json.loads(docker("image", "inspect", IMAGE).stdout)[0]
    config = inspect["Config"]
    assert config["User"] == "65532:65532"
    assert "/data" in config["Volumes"]
    assert "8000/tcp" in config["ExposedPorts"]
    assert config["Healthcheck"]["Test"] == ["CMD", "/kura", "healthcheck"]
    assert inspect["Size"] < 60_000_000, inspect["Size"]


def test_the_aws_cli_and_boto3_keep_data_across_a_restart(aws_env):
    volume = "kura-test-" + uuid.uuid4().hex[:10]
    first = Container(volume=f"{volume}:/data")
    try:
        first.wait_ready()
        aws(first.endpoint, aws_env, "create-table", "--table-name", "Boxed",
            "--attribute-definitions", "AttributeName=pk,AttributeType=S",
            "--key-schema", "AttributeName=pk,KeyType=HASH", "--billing-mode", "PAY_PER_REQUEST")
        aws(first.endpoint, aws_env, "put-item", "--table-name", "Boxed",
            "--item", '{"pk": {"S": "kept"}, "n": {"N": "1"}}')
        client(first.endpoint).put_item(TableName="Boxed", Item={"pk": {"S": "boto3"}})
        first.stop()
        assert "kura stopped" in first.logs()
    finally:
        first.remove()
    second = Container(volume=f"{volume}:/data")
    try:
        second.wait_ready()
        got = aws(second.endpoint, aws_env, "get-item", "--table-name", "Boxed",
                  "--key", '{"pk": {"S": "kept"}}')
        assert got["Item"] == {"pk": {"S": "kept"}, "n": {"N": "1"}}
        assert client(second.endpoint).scan(TableName="Boxed")["Count"] == 2
        # The image's own HEALTHCHECK turns the container healthy.
        deadline = time.time() + 30
        status = None
        while time.time() < deadline:
            status = docker("inspect", "--format", "{{.State.Health.Status}}",
                            second.name).stdout.strip()
            if status == "healthy":
                break
            time.sleep(0.5)
        assert status == "healthy", second.logs()
    finally:
        second.remove()
        docker("volume", "rm", "-f", volume, check=False)


def test_in_memory_mode_and_a_failing_healthcheck():
    box = Container("serve", "--in-memory")
    try:
        box.wait_ready()
        ddb = client(box.endpoint)
        ddb.create_table(TableName="Fast", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        assert ddb.list_tables()["TableNames"] == ["Fast"]
        # Against nothing listening: exit 1 and one plain line.
        proc = docker("exec", box.name, "/kura", "healthcheck", "--endpoint",
                      "http://127.0.0.1:1", check=False)
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert lines == ["kura healthcheck: cannot connect to http://127.0.0.1:1 (Connection "
                         "refused (os error 111)): is `kura serve` running there?"], proc.stderr
    finally:
        box.remove()


def exited(box, seconds=30):
    """The container's final state, once it has stopped running."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        state = json.loads(docker("inspect", box.name).stdout)[0]["State"]
        if not state["Running"]:
            return state
        time.sleep(0.2)
    raise AssertionError(f"{box.name} still runs: {box.logs()}")


def test_a_full_volume_is_refused_plainly():
    # A 4 KiB tmpfs at /data: the store's first file does not fit.
    box = Container(tmpfs="/data:size=4k,uid=65532,gid=65532")
    try:
        state = exited(box)
        assert state["ExitCode"] != 0
        logs = box.logs()
        assert "cannot open /data: storage: No space left on device" in logs, logs
        assert "FjallError" not in logs, logs
    finally:
        box.remove()


def test_a_read_only_volume_is_refused_plainly(tmp_path):
    data = tmp_path / "ro"
    data.mkdir()
    box = Container(volume=f"{data}:/data:ro")
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            state = json.loads(docker("inspect", box.name).stdout)[0]["State"]
            if not state["Running"]:
                break
            time.sleep(0.2)
        assert not state["Running"], box.logs()
        assert state["ExitCode"] != 0
        assert "/data" in box.logs(), box.logs()
        assert list(data.iterdir()) == []
    finally:
        box.remove()
