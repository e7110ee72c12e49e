"""The kura-dynamodb Python package (packaging/python, built by scripts/python-package.sh
with the static binary the other interop tests use): the wheel installs offline into a
fresh virtualenv and puts a working `kura` on PATH; its pytest plugin gives each test an
empty server, from the binary and from the container image; `KuraContainer` works as a
testcontainers module. scripts/test.sh builds the wheel and the image and sets
KURA_WHEEL and KURA_IMAGE."""

import os
import subprocess
import sys
import venv

import pytest

from conftest import ROOT

WHEEL = os.environ.get("KURA_WHEEL")
IMAGE = os.environ.get("KURA_IMAGE")
PACKAGE_SRC = ROOT / "packaging" / "python" / "src"
EXAMPLE = ROOT / "packaging" / "python" / "tests"


def need(value, what):
    if value:
        return value
    if os.environ.get("CI"):
        pytest.fail(f"{what} is not set: scripts/test.sh builds it", pytrace=False)
    pytest.skip(f"{what} is not set")


def test_the_wheel_installs_offline_and_serves(tmp_path):
    wheel = need(WHEEL, "KURA_WHEEL")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", wheel],
        capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    version = subprocess.run([str(env_dir / "bin" / "kura"), "--version"],
                             capture_output=True, text=True, timeout=30)
    assert version.returncode == 0 and "commit" in version.stdout, version
    # The package's own KuraServer runs the bundled binary, with the standard library only.
    script = (
        "from kura_dynamodb import KuraServer, find_binary\n"
        "import urllib.request, importlib.metadata as md\n"
        "assert find_binary().endswith('kura_dynamodb/bin/kura'), find_binary()\n"
        "with KuraServer() as k:\n"
        "    assert urllib.request.urlopen(k.endpoint + '/ready').status == 200\n"
        "    k.reset()\n"
        "plugins = [e.value for e in md.entry_points(group='pytest11')]\n"
        "assert 'kura_dynamodb.pytest_plugin' in plugins, plugins\n"
        "print('served')\n")
    env = {k: v for k, v in os.environ.items() if k != "KURA_BIN"}
    ran = subprocess.run([str(python), "-c", script], capture_output=True, text=True,
                         timeout=120, env=env)
    assert ran.returncode == 0 and "served" in ran.stdout, ran.stderr


@pytest.mark.parametrize("mode", ["binary", "container"])
def test_the_pytest_plugin_gives_each_test_an_empty_server(mode):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_SRC), "TESTCONTAINERS_RYUK_DISABLED": "true"}
    if mode == "container":
        env["KURA_IMAGE"] = need(IMAGE, "KURA_IMAGE")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "kura_dynamodb.pytest_plugin",
         "-p", "no:cacheprovider", f"--kura={mode}", "--rootdir", str(EXAMPLE), str(EXAMPLE)],
        capture_output=True, text=True, timeout=300, env=env, cwd=EXAMPLE)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "3 passed" in ran.stdout, ran.stdout


def test_kura_container_as_a_testcontainers_module(monkeypatch):
    monkeypatch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
    monkeypatch.syspath_prepend(str(PACKAGE_SRC))
    from kura_dynamodb import KuraContainer

    with KuraContainer(need(IMAGE, "KURA_IMAGE")) as kura:
        ddb = kura.client()
        ddb.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}})
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
        kura.reset()
        assert ddb.list_tables()["TableNames"] == []
