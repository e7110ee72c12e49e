"""Kura, a DynamoDB-compatible server, for Python tests.

`KuraServer` runs the `kura` binary; `KuraContainer` runs the image through testcontainers;
the pytest plugin (`kura_dynamodb.pytest_plugin`) hands tests a client of an empty server.
Both servers run `serve --in-memory --test-controls`, so `reset()` empties them at once.
"""

import json
import os
import re
import subprocess
import tempfile
import time
import urllib.request

from ._binary import find_binary

__all__ = ["KuraServer", "KuraContainer", "find_binary"]

READY = re.compile(r"kura ready on (https?://\S+)")


class _Client:
    """What both servers offer once they run: `endpoint`, `reset()`, `client()`."""

    endpoint: str

    def reset(self):
        """Empties the server: no tables, backups or exports (POST /kura/admin/reset)."""
        request = urllib.request.Request(self.endpoint + "/kura/admin/reset", method="POST",
                                         data=b"")
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"{}")

    def client(self, service="dynamodb", region="us-east-1"):
        """A boto3 client of this server (any key and region work)."""
        import boto3

        return boto3.client(service, endpoint_url=self.endpoint, region_name=region,
                            aws_access_key_id="kura", aws_secret_access_key="kura")

    def resource(self, region="us-east-1"):
        import boto3

        return boto3.resource("dynamodb", endpoint_url=self.endpoint, region_name=region,
                              aws_access_key_id="kura", aws_secret_access_key="kura")


class KuraServer(_Client):
    """`kura serve --in-memory --test-controls --port 0` as a child process."""

    def __init__(self, *args, binary=None, in_memory=True, timeout=30):
        self.binary = binary or find_binary()
        self.args = list(args)
        if in_memory:
            self.args = ["--in-memory", "--test-controls", *self.args]
        self.timeout = timeout
        self.process = None
        self.endpoint = None

    def start(self):
        self._log = tempfile.TemporaryFile()
        env = {**os.environ, "KURA_LOG": os.environ.get("KURA_LOG", "info")}
        self.process = subprocess.Popen(
            [self.binary, "serve", "--port", "0", *self.args],
            stdout=subprocess.DEVNULL, stderr=self._log, env=env)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            self._log.seek(0)
            found = READY.search(self._log.read().decode(errors="replace"))
            if found:
                self.endpoint = found.group(1)
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.005)
        self.stop()
        self._log.seek(0)
        raise RuntimeError("kura serve did not become ready:\n"
                           + self._log.read().decode(errors="replace"))

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _container_base():
    try:
        from testcontainers.core.container import DockerContainer
    except ImportError:  # the module works without testcontainers until it is used
        return object
    return DockerContainer


class KuraContainer(_Client, _container_base()):
    """The Kura image under testcontainers: `serve --in-memory --test-controls` on port
    8000, ready once GET /ready answers through the mapped port."""

    PORT = 8000

    def __init__(self, image=None, *args, in_memory=True, **kwargs):
        if _container_base() is object:
            raise ImportError("KuraContainer needs testcontainers: pip install testcontainers")
        super().__init__(image or os.environ.get("KURA_IMAGE", "kura:latest"), **kwargs)
        command = ["serve", *(["--in-memory", "--test-controls"] if in_memory else []), *args]
        self.with_command(command)
        self.with_exposed_ports(self.PORT)

    def start(self):
        super().start()
        host = self.get_container_host_ip()
        port = self.get_exposed_port(self.PORT)
        self.endpoint = f"http://{host}:{port}"
        # Ready when GET /ready answers through the mapped port (the readiness contract
        # `kura healthcheck` uses too); no log-reading wait strategy is needed.
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.endpoint + "/ready", timeout=2):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get_endpoint(self):
        return self.endpoint
