"""`kura mcp` driven by the official MCP Python SDK (`mcp`), as an assistant drives it:
over stdio and over streamable HTTP, in front of the suite's `kura serve` and of a
`kura serve --auth` of its own. It lists tables, describes one, queries and scans in
bounded pages, runs PartiQL, reads the advisor's findings and a table's access patterns;
a write is refused without --allow-writes and lands with it; under --auth a table
outside the key's policy is refused with DynamoDB's AccessDeniedException."""

import asyncio
import contextlib
import json
import os
import re
import subprocess
import time

import pytest
from conftest import KURA_BIN, kura_server
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

READ_TOOLS = {"list_tables", "describe_table", "get_item", "query", "scan",
              "execute_statement", "advise", "explain_access_patterns"}
WRITE_TOOLS = {"put_item", "update_item", "delete_item"}


def mcp_env(key="kura-test", secret="kura-test"):
    return {**os.environ, "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret,
            "AWS_REGION": "us-east-1", "KURA_LOG": "warn"}


@contextlib.asynccontextmanager
async def stdio_session(endpoint, *flags, key="kura-test", secret="kura-test"):
    params = StdioServerParameters(command=str(KURA_BIN),
                                   args=["mcp", "--endpoint", endpoint, *flags],
                                   env=mcp_env(key, secret))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@contextlib.contextmanager
def http_server(endpoint, *flags, home, env=None, bind="127.0.0.1:0"):
    log = home / "mcp.log"
    with open(log, "w") as err:
        proc = subprocess.Popen([str(KURA_BIN), "mcp", "--endpoint", endpoint,
                                 "--http", bind, *flags],
                                stdout=subprocess.DEVNULL, stderr=err,
                                env={**mcp_env(), **(env or {})})
    try:
        for _ in range(300):
            found = re.search(r"kura mcp ready on (http:\S+)", log.read_text())
            if found:
                yield found.group(1)
                return
            assert proc.poll() is None, log.read_text()
            time.sleep(0.1)
        pytest.fail(log.read_text())
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0, log.read_text()


async def call(session, tool, **arguments):
    """A tool's answer as JSON; a tool error raises with its text."""
    result = await session.call_tool(tool, arguments)
    text = "".join(c.text for c in result.content if getattr(c, "text", None) is not None)
    if result.is_error:
        raise ToolError(text)
    return json.loads(text)


async def refused(session, tool, **arguments):
    """The text of a tool's refusal (a tool error, or the protocol's unknown tool)."""
    try:
        result = await session.call_tool(tool, arguments)
    except Exception as e:  # the SDK raises for a protocol error (an unknown tool)
        return str(e)
    assert result.is_error, f"{tool} was not refused: {result.content}"
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)


class ToolError(Exception):
    pass


def make_orders(ddb, name, count=30):
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "byStatus",
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    for i in range(count):
        ddb.put_item(TableName=name, Item={
            "pk": {"S": "USER#1"}, "sk": {"S": f"ORDER#{i:03}"},
            "status": {"S": "OPEN" if i % 2 else "DONE"}, "type": {"S": "Order"},
            "note": {"S": "n" * 100}})


def test_read_tools_over_stdio(ddb, endpoint, table_name):
    make_orders(ddb, table_name)

    async def run():
        async with stdio_session(endpoint) as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert names == READ_TOOLS, names
            listed = await call(session, "list_tables")
            assert table_name in listed["TableNames"]
            described = await call(session, "describe_table", table=table_name)
            assert described["Table"]["ItemCount"] == 30
            item = await call(session, "get_item", table=table_name,
                              key={"pk": {"S": "USER#1"}, "sk": {"S": "ORDER#007"}})
            assert item["Item"]["status"] == {"S": "OPEN"}
            # A page is bounded: the default 25 items, then the rest from its key.
            first = await call(session, "query", table=table_name, key_condition="pk = :p",
                               values={":p": {"S": "USER#1"}})
            assert first["Count"] == 25 and "LastEvaluatedKey" in first
            rest = await call(session, "query", table=table_name, key_condition="pk = :p",
                              values={":p": {"S": "USER#1"}}, start_key=first["LastEvaluatedKey"])
            assert rest["Count"] == 5 and "LastEvaluatedKey" not in rest
            huge = await call(session, "scan", table=table_name, limit=100000)
            assert huge["Count"] == 30  # clamped to 100, the table has 30
            by_status = await call(session, "query", table=table_name, index="byStatus",
                                   key_condition="#s = :s", names={"#s": "status"},
                                   values={":s": {"S": "OPEN"}}, limit=100)
            assert by_status["Count"] == 15
            selected = await call(session, "execute_statement",
                                  statement=f'SELECT * FROM "{table_name}" WHERE pk = ?',
                                  parameters=[{"S": "USER#1"}], limit=10)
            assert len(selected["Items"]) == 10 and "NextToken" in selected
            explained = await call(session, "explain_access_patterns", table=table_name)
            patterns = explained["accessPatterns"]
            assert [p["operation"] for p in patterns] == ["GetItem", "Query", "Query", "Scan"]
            assert patterns[2]["index"] == "byStatus"
            assert patterns[2]["consistency"] == "eventual only"
            assert {"attribute": "sk", "value": "ORDER", "items": 30} in explained["entityTypes"]
            # The ready-made request runs as it is.
            ready = await call(session, "query", **patterns[1]["request"])
            assert ready["Count"] == 25
            advice = await call(session, "advise", table=table_name)
            assert "findings" in advice and "rulesChecked" in advice
            assert all(f.get("table") in (table_name, None) for f in advice["findings"])
            # DynamoDB's own refusal, word for word.
            missing = await refused(session, "describe_table", table="no-such-table-mcp")
            assert "ResourceNotFoundException" in missing, missing

    asyncio.run(run())


def test_writes_need_allow_writes(ddb, endpoint, table_name):
    make_orders(ddb, table_name, count=1)
    key = {"pk": {"S": "USER#2"}, "sk": {"S": "ORDER#001"}}

    async def run():
        async with stdio_session(endpoint) as session:
            said = await refused(session, "put_item", table=table_name,
                                 item={**key, "status": {"S": "OPEN"}})
            assert "put_item" in said or "Unknown tool" in said or "not found" in said, said
            said = await refused(session, "execute_statement",
                                 statement=f"INSERT INTO \"{table_name}\" VALUE {{'pk': 'USER#2', 'sk': 'X'}}")
            assert "--allow-writes" in said, said
            said = await refused(session, "execute_statement",
                                 statement=f'/* SELECT */ DELETE FROM "{table_name}" WHERE pk = \'USER#1\' AND sk = \'ORDER#000\'')
            assert "--allow-writes" in said, said
        assert "Item" not in ddb.get_item(TableName=table_name, Key=key)
        assert "Item" in ddb.get_item(TableName=table_name,
                                      Key={"pk": {"S": "USER#1"}, "sk": {"S": "ORDER#000"}})

        async with stdio_session(endpoint, "--allow-writes") as session:
            names = {t.name for t in (await session.list_tools()).tools}
            assert names == READ_TOOLS | WRITE_TOOLS, names
            await call(session, "put_item", table=table_name, item={**key, "status": {"S": "OPEN"}},
                       condition="attribute_not_exists(pk)")
            again = await refused(session, "put_item", table=table_name,
                                  item={**key, "status": {"S": "OPEN"}},
                                  condition="attribute_not_exists(pk)")
            assert "ConditionalCheckFailedException" in again, again
            updated = await call(session, "update_item", table=table_name, key=key,
                                 update="SET #s = :s", names={"#s": "status"},
                                 values={":s": {"S": "DONE"}})
            assert updated["Attributes"]["status"] == {"S": "DONE"}
            await call(session, "execute_statement",
                       statement=f"UPDATE \"{table_name}\" SET note = 'via PartiQL' "
                                 f"WHERE pk = 'USER#2' AND sk = 'ORDER#001'")
            deleted = await call(session, "delete_item", table=table_name, key=key)
            assert deleted["Attributes"]["note"] == {"S": "via PartiQL"}
        assert "Item" not in ddb.get_item(TableName=table_name, Key=key)

    asyncio.run(run())


def test_streamable_http(ddb, endpoint, table_name, tmp_path):
    make_orders(ddb, table_name, count=3)

    async def run(url):
        async with streamable_http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await call(session, "list_tables")
                assert table_name in listed["TableNames"]
                page = await call(session, "scan", table=table_name, limit=2)
                assert page["Count"] == 2 and "LastEvaluatedKey" in page

    with http_server(endpoint, home=tmp_path) as url:
        asyncio.run(run(url))


def test_streamable_http_with_a_token(ddb, endpoint, table_name, tmp_path):
    """With --http-token (here from KURA_MCP_TOKEN), a request without the bearer token,
    or with another, is answered 401 before MCP sees it; with it, the tools work."""
    import httpx2
    make_orders(ddb, table_name, count=3)
    token = "a-token-of-twenty-four-chars"
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream"}

    async def run(url):
        async with httpx2.AsyncClient() as bare:
            for given in [None, "Bearer wrong-token-of-enough-chars", f"Basic {token}"]:
                sent = {**headers, **({"Authorization": given} if given else {})}
                answer = await bare.post(url, json=initialize, headers=sent)
                assert answer.status_code == 401, (given, answer.text)
                assert answer.headers["www-authenticate"] == "Bearer"
            # The scheme is case-insensitive (RFC 9110); the token is not.
            sent = {**headers, "Authorization": f"bearer {token}"}
            answer = await bare.post(url, json=initialize, headers=sent)
            assert answer.status_code == 200, answer.text
        authorized = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with streamable_http_client(url, http_client=authorized) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = await call(session, "list_tables")
                assert table_name in listed["TableNames"]

    with http_server(endpoint, home=tmp_path, env={"KURA_MCP_TOKEN": token}) as url:
        asyncio.run(run(url))


def test_http_beyond_loopback_needs_a_token(endpoint):
    """An MCP server other hosts can reach does not start without a token, nor with a
    short one; it says why."""
    env = {k: v for k, v in mcp_env().items() if k != "KURA_MCP_TOKEN"}
    for flags in [[], ["--http-token", "short"]]:
        done = subprocess.run([str(KURA_BIN), "mcp", "--endpoint", endpoint,
                               "--http", "0.0.0.0:0", *flags], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode != 0
        assert "token" in done.stderr, done.stderr
    assert "bind a loopback address" in subprocess.run(
        [str(KURA_BIN), "mcp", "--endpoint", endpoint, "--http", "0.0.0.0:0"],
        env=env, capture_output=True, text=True, timeout=60).stderr


def test_http_on_another_loopback_address_answers_its_own_name(ddb, endpoint, table_name,
                                                               tmp_path):
    """Without a token the server takes only loopback names in Host (against DNS
    rebinding); the loopback address it is bound to is one of them."""
    make_orders(ddb, table_name, count=1)

    async def run(url):
        async with streamable_http_client(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = await call(session, "list_tables")
                assert table_name in listed["TableNames"]

    with http_server(endpoint, home=tmp_path, bind="127.0.0.2:0") as url:
        assert url.startswith("http://127.0.0.2:")
        asyncio.run(run(url))


CREDENTIALS = {"Credentials": [
    {"AccessKeyId": "AKIDMCP", "SecretAccessKey": "mcp-secret", "User": "assistant",
     "Account": "123456789012", "Policies": [{"Statement": [
         {"Effect": "Allow", "Action": ["dynamodb:ListTables", "dynamodb:DescribeTable",
                                        "dynamodb:DescribeTimeToLive", "dynamodb:Query",
                                        "dynamodb:Scan", "dynamodb:GetItem",
                                        "dynamodb:PartiQLSelect"],
          "Resource": "arn:aws:dynamodb:*:*:table/open-*"}]}]},
    {"AccessKeyId": "AKIDADMIN", "SecretAccessKey": "admin-secret", "User": "admin",
     "Account": "123456789012"},
]}


def test_auth_holds_the_assistant_to_its_policy(tmp_path):
    import boto3
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps(CREDENTIALS))
    with kura_server(["--in-memory", "--auth", str(creds)], tmp_path) as endpoint:
        admin = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                             aws_access_key_id="AKIDADMIN", aws_secret_access_key="admin-secret")
        make_orders(admin, "open-orders", count=3)
        make_orders(admin, "secret-orders", count=3)

        async def run():
            async with stdio_session(endpoint, key="AKIDMCP", secret="mcp-secret") as session:
                page = await call(session, "query", table="open-orders", key_condition="pk = :p",
                                  values={":p": {"S": "USER#1"}})
                assert page["Count"] == 3
                said = await refused(session, "scan", table="secret-orders")
                assert "AccessDeniedException" in said and "assistant" in said, said
                said = await refused(session, "describe_table", table="secret-orders")
                assert "AccessDeniedException" in said, said
                # /kura/advise is off under --auth: the advisor works from what the key
                # may read through the signed API.
                advice = await call(session, "advise", table="open-orders")
                assert "definitions" in advice["source"], advice["source"]
            async with stdio_session(endpoint, key="AKIDMCP", secret="wrong") as session:
                said = await refused(session, "list_tables")
                assert "InvalidSignatureException" in said, said

        asyncio.run(run())


def test_dynamodb_local():
    """The same tools in front of Amazon DynamoDB Local: scripts/test.sh runs this once
    DynamoDB Local is up (DYNAMODB_LOCAL_ENDPOINT); the advisor works from definitions and
    a sample there, since DynamoDB Local has no /kura/advise."""
    import boto3
    endpoint = os.environ.get("DYNAMODB_LOCAL_ENDPOINT")
    if not endpoint:
        pytest.skip("run by scripts/test.sh against DynamoDB Local")
    # DynamoDB Local takes letters and digits only in an access key.
    ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="local", aws_secret_access_key="local")
    name = "mcp" + os.urandom(4).hex()
    make_orders(ddb, name, count=30)

    async def run():
        async with stdio_session(endpoint, key="local", secret="local") as session:
            assert name in (await call(session, "list_tables"))["TableNames"]
            page = await call(session, "query", table=name, key_condition="pk = :p",
                              values={":p": {"S": "USER#1"}})
            assert page["Count"] == 25 and "LastEvaluatedKey" in page
            explained = await call(session, "explain_access_patterns", table=name)
            assert {"attribute": "sk", "value": "ORDER", "items": 30} in explained["entityTypes"]
            advice = await call(session, "advise", table=name)
            assert "definitions" in advice["source"] and advice["findings"], advice
            selected = await call(session, "execute_statement",
                                  statement=f'SELECT * FROM "{name}"', limit=5)
            assert len(selected["Items"]) == 5 and "NextToken" in selected
            said = await refused(session, "describe_table", table="no-such-table")
            assert "ResourceNotFoundException" in said, said

    asyncio.run(run())


def test_an_endpoint_that_is_not_there_and_bad_arguments_are_tool_errors():
    """The errors an assistant can cause: an endpoint nothing listens on is a tool error
    that says so, and arguments that do not fit a tool's schema are refused, not a crash;
    the server keeps answering after both."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"

    async def run():
        async with stdio_session(closed) as session:
            said = await refused(session, "list_tables")
            assert f"cannot connect to {closed} (" in said, said
            said = await refused(session, "query", table=7, key_condition=["not", "text"])
            assert said, said
            said = await refused(session, "describe_table")
            assert said, said
            # Still serving.
            assert "cannot connect" in await refused(session, "describe_table", table="t")

    asyncio.run(run())
