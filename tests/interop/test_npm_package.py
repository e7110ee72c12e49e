"""The kura-dynamodb npm package (packaging/npm, packed by scripts/npm-package.sh with the
static binary the other interop tests use): the tarball installs offline, `npx kura`
serves, `startKura()` starts, resets and stops a server, and the Jest and Vitest global
setups give a test run a server that the AWS SDK for JavaScript v3 finds with no
configuration. scripts/test.sh packs it and sets KURA_NPM."""

import json
import os
import shutil
import subprocess

import pytest

TARBALL = os.environ.get("KURA_NPM")


@pytest.fixture(scope="module")
def tarball():
    if TARBALL:
        return TARBALL
    if os.environ.get("CI"):
        pytest.fail("KURA_NPM is not set: scripts/test.sh packs it", pytrace=False)
    pytest.skip("KURA_NPM is not set")


def node_env():
    # The package's own binary, not the one the other tests were pointed at.
    return {k: v for k, v in os.environ.items() if k not in ("KURA_BIN", "KURA_ENDPOINT")}


def run(args, cwd, timeout=300):
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=node_env())
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def project(path, tarball, *online):
    path.mkdir()
    (path / "package.json").write_text(json.dumps({"name": "app", "version": "1.0.0",
                                                   "private": True}))
    run(["npm", "install", "--offline", "--no-audit", "--no-fund", tarball], path)
    if online:
        run(["npm", "install", "--no-audit", "--no-fund", *online], path, timeout=600)
    return path


def test_the_tarball_installs_offline_and_serves(tmp_path, tarball):
    app = project(tmp_path / "app", tarball)
    assert "commit" in run(["npx", "--no-install", "kura", "--version"], app)
    script = """
const { startKura } = require("kura-dynamodb");
(async () => {
  const kura = await startKura();
  const call = (op, body) => fetch(kura.endpoint, { method: "POST", body: JSON.stringify(body),
    headers: { "X-Amz-Target": `DynamoDB_20120810.${op}`,
               "Content-Type": "application/x-amz-json-1.0" } }).then((r) => r.json());
  await call("CreateTable", { TableName: "npm_t", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }] });
  const before = (await call("ListTables", {})).TableNames;
  await kura.reset();
  const after = (await call("ListTables", {})).TableNames;
  await kura.stop();
  console.log(JSON.stringify({ before, after, exited: kura.process.exitCode }));
})().catch((e) => { console.error(e); process.exit(1); });
"""
    (app / "check.js").write_text(script)
    lines = [line for line in run(["node", "check.js"], app).splitlines() if line.startswith("{")]
    answer = json.loads(lines[-1])
    assert answer == {"before": ["npm_t"], "after": [], "exited": 0}, answer


TEST_FILE = """
const { DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand } =
  require("@aws-sdk/client-dynamodb");

test("the SDK finds Kura with no endpoint setting", async () => {
  const client = new DynamoDBClient({});
  await client.send(new CreateTableCommand({ TableName: "%(table)s",
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }] }));
  await client.send(new PutItemCommand({ TableName: "%(table)s",
    Item: { pk: { S: "a" }, n: { N: "1" } } }));
  const got = await client.send(new GetItemCommand({ TableName: "%(table)s",
    Key: { pk: { S: "a" } } }));
  expect(got.Item).toEqual({ pk: { S: "a" }, n: { N: "1" } });
  expect(process.env.AWS_ENDPOINT_URL_DYNAMODB).toMatch(/^http:\\/\\/127\\.0\\.0\\.1:/);
});
"""


def test_jest_and_vitest_global_setups(tmp_path, tarball):
    if not shutil.which("npm"):
        pytest.fail("npm is missing")
    app = project(tmp_path / "app", tarball, "jest@29", "vitest@2",
                  "@aws-sdk/client-dynamodb@3")
    (app / "jest.config.js").write_text(
        'module.exports = { globalSetup: "kura-dynamodb/jest-global-setup",'
        ' globalTeardown: "kura-dynamodb/jest-global-teardown",'
        ' testMatch: ["**/*.jest.test.js"] };\n')
    (app / "kura.jest.test.js").write_text(TEST_FILE % {"table": "jest_t"})
    out = run(["npx", "--no-install", "jest", "--ci"], app)
    assert "Tests:       1 passed, 1 total" in out, out
    (app / "vitest.config.mjs").write_text(
        'export default { test: { globals: true, include: ["**/*.vitest.test.js"],'
        ' globalSetup: ["kura-dynamodb/vitest-global-setup"] } };\n')
    (app / "kura.vitest.test.js").write_text(TEST_FILE % {"table": "vitest_t"})
    out = run(["npx", "--no-install", "vitest", "run"], app)
    assert "1 passed" in out, out
    # Both runs stopped their servers: no kura serve is left behind by this test.
    left = subprocess.run(["pgrep", "-f", str(app / "node_modules")], capture_output=True)
    assert left.returncode == 1, left.stdout
