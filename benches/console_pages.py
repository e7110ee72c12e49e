#!/usr/bin/env python3
"""Server time of each console page on a large table.

Starts `kura serve` on a durable data directory, loads --items items (default 1,000,000)
into a table with a GSI, a stream and Contributor Insights, then fetches every console
page --repeat times and prints the server time each took (its `Server-Timing` header:
from the request's arrival to the response, page rendering included), median and p95,
and as a ratio to a DescribeTable call through the API measured the same way in the same
run (the cheapest page's floor: one engine call and its HTTP round).

    python3 benches/console_pages.py                    # 1M items, release build
    python3 benches/console_pages.py --items 20000 --binary target/debug/kura   # CI form

Needs boto3 (the test command's .venv has it). Nothing is asserted: figures are printed.
"""

import argparse
import base64
import concurrent.futures
import http.cookiejar
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import boto3
import botocore.config

ROOT = pathlib.Path(__file__).resolve().parents[1]


def start(binary, data_dir, log_path):
    log = open(log_path, "w")
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data_dir],
                            stderr=log, stdout=subprocess.DEVNULL,
                            env={**os.environ, "KURA_LOG": "info"})
    for _ in range(600):
        found = re.search(r"kura ready on (http:\S+)", pathlib.Path(log_path).read_text())
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            sys.exit(pathlib.Path(log_path).read_text())
        time.sleep(0.1)
    sys.exit("kura did not become ready")


def load(endpoint, items, table):
    config = botocore.config.Config(max_pool_connections=16, retries={"mode": "standard"})
    ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="k", aws_secret_access_key="s", config=config)
    ddb.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "customer", "AttributeType": "S"},
                              {"AttributeName": "order_id", "AttributeType": "S"},
                              {"AttributeName": "status", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "customer", "KeyType": "HASH"},
                   {"AttributeName": "order_id", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_status",
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                                               {"AttributeName": "order_id", "KeyType": "RANGE"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
    statuses = ["open", "paid", "shipped", "delivered", "returned"]

    def batch(start):
        requests = [{"PutRequest": {"Item": {
            "customer": {"S": f"customer#{n % 50_000:05}"},
            "order_id": {"S": f"order#{n:08}"},
            "status": {"S": statuses[n % len(statuses)]},
            "total": {"N": str(n % 997)},
            "note": {"S": "x" * 40}}}} for n in range(start, min(start + 25, items))]
        pending = {table: requests}
        while pending:
            pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or None

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for i, _ in enumerate(pool.map(batch, range(0, items, 25))):
            if i % 4000 == 0 and i:
                print(f"  loaded {i * 25:,} items", file=sys.stderr)
    print(f"loaded {items:,} items in {time.time() - started:.0f} s", file=sys.stderr)
    return ddb


class Browser:
    """A cookie-keeping client that reads each response's Server-Timing."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = None
        self.wall = []

    def fetch(self, path, form=None):
        """(server ms, body); the round trip's ms as seen here goes to self.wall."""
        data = urllib.parse.urlencode({**form, "csrf": self.csrf}).encode() if form else None
        begun = time.perf_counter()
        with self.opener.open(self.endpoint + path, data=data, timeout=120) as answer:
            body = answer.read().decode()
            timing = answer.headers.get("server-timing", "")
        self.wall.append((time.perf_counter() - begun) * 1000)
        found = re.search(r'name="csrf" value="([0-9a-f]+)"', body)
        if found:
            self.csrf = found.group(1)
        ms = float(re.search(r"dur=([0-9.]+)", timing).group(1))
        return ms, body


def measure(repeat, call):
    times = sorted(call() for _ in range(repeat))
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "kura"))
    args = parser.parse_args()
    if not pathlib.Path(args.binary).exists():
        sys.exit(f"{args.binary} is not built (cargo build --release -p kura)")
    table = "console-bench"
    with tempfile.TemporaryDirectory() as home:
        proc, endpoint = start(args.binary, f"{home}/data", f"{home}/kura.log")
        try:
            ddb = load(endpoint, args.items, table)
            b = Browser(endpoint)
            t = "/console/tables/" + table

            def api_describe():
                begun = time.perf_counter()
                ddb.describe_table(TableName=table)
                return (time.perf_counter() - begun) * 1000

            _, first = b.fetch(t + "/items?limit=25")
            start_key = re.search(r'rel="next" href="[^"]*start=([^&"]+)', first).group(1)
            b.fetch("/console/partiql")  # a page with a form: its CSRF token
            poll = json.loads(b.fetch(t + "/stream/poll", {"from": "latest", "cursor": ""})[1])
            packed_key = base64.urlsafe_b64encode(json.dumps(
                {"customer": {"S": "customer#00042"}, "order_id": {"S": "order#00000042"}}
            ).encode()).decode().rstrip("=")
            pages = [
                ("tables list", lambda: b.fetch("/console/tables")[0]),
                ("table overview", lambda: b.fetch(t)[0]),
                ("items: first Scan page (25)", lambda: b.fetch(t + "/items?limit=25")[0]),
                ("items: a later Scan page", lambda: b.fetch(
                    f"{t}/items?limit=25&start={start_key}&back=~")[0]),
                ("items: Query on the GSI (25)", lambda: b.fetch(
                    t + "/items?op=query&index=by_status&pk=paid&limit=25")[0]),
                ("items: Query, filter, COUNT", lambda: b.fetch(
                    t + "/items?op=query&pk=customer%2300042&filter=total+%3E+%3Am"
                    "&values=%7B%22%3Am%22%3A100%7D&select=count&limit=100")[0]),
                ("item editor", lambda: b.fetch(t + "/item?key=" + packed_key)[0]),
                ("stream page", lambda: b.fetch(t + "/stream")[0]),
                ("stream tail poll", lambda: b.fetch(
                    t + "/stream/poll", {"from": "latest", "cursor": poll["cursor"]})[0]),
                ("metrics and insights", lambda: b.fetch(t + "/metrics")[0]),
                ("backups and PITR", lambda: b.fetch(t + "/protection")[0]),
                ("PartiQL SELECT by key", lambda: b.fetch("/console/partiql", {
                    "statement": f'SELECT * FROM "{table}" WHERE customer = ?',
                    "parameters": '["customer#00042"]', "go": "run"})[0]),
                ("advisor (findings reused for 10 s)", lambda: b.fetch("/console/advisor")[0]),
            ]
            # The advisor samples every table once, then reuses its findings for ten
            # seconds: its first fetch is the one that does the work.
            b.wall.clear()
            advisor_first = b.fetch("/console/advisor")[0]
            advisor_first_wall = b.wall[0]
            base_median, _ = measure(args.repeat, api_describe)
            print(f"\nConsole pages on a {args.items:,}-item table, {args.repeat} fetches each. "
                  "Server: Server-Timing (arrival to response, API calls and rendering "
                  "included). Round trip: as this client sees it, HTTP and the HTML's "
                  "transfer included; ÷ API: that round trip over a DescribeTable call "
                  "through boto3 in the same run.")
            print(f"{'page':34} {'server median ms':>17} {'server p95 ms':>14} "
                  f"{'round trip ms':>14} {'÷ API':>6}")
            print(f"{'DescribeTable via boto3 (baseline)':34} {'':>17} {'':>14} "
                  f"{base_median:14.2f} {1.0:6.2f}")
            print(f"{'advisor, first fetch (samples all)':34} {advisor_first:17.2f} {'':>14} "
                  f"{advisor_first_wall:14.2f} {advisor_first_wall / base_median:6.2f}")
            for name, call in pages:
                b.wall.clear()
                median, p95 = measure(args.repeat, call)
                wall = statistics.median(b.wall)
                print(f"{name:34} {median:17.2f} {p95:14.2f} {wall:14.2f} "
                      f"{wall / base_median:6.2f}")
        finally:
            proc.terminate()
            proc.wait(timeout=60)


if __name__ == "__main__":
    main()
