#!/usr/bin/env python3
"""Vector search benchmark (issue 33): SearchVectors over HTTP against Kura and Dynoxide
in the same run, and the same queries through hnswlib in process as the reference for the
recall/speed trade-off.

    python3 benches/vectors.py                       # 100,000 x 128 and 10,000 x 768
    python3 benches/vectors.py --sizes 20000x128     # a quicker run
    KURA_BIN=target/static/kura python3 benches/vectors.py

Data: embedding-like clustered vectors (100 centres, each with a 16-dimensional subspace;
numpy seed 42), queries drawn the same way (seed 7). Ground truth: exact top 10 by brute force (numpy). Per target:
index build rate (items loaded with BatchWriteItem, 4 client processes, until the index
answers them), recall@10, SearchVectors p50/p99 at one client, throughput at 16 client
processes, and the server's RSS per vector after loading. Peers that are not installed
(benches/peers/install.sh dynoxide) are skipped. Needs numpy and hnswlib (installed into
benches/peers/venv-vectors on first use).
"""

import argparse
import http.client
import json
import multiprocessing as mp
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
VENV = ROOT / "benches" / "peers" / "venv-vectors"
AUTH = ("AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=0")


def ensure_venv():
    """Re-runs this script inside a venv that has numpy and hnswlib."""
    python = VENV / "bin" / "python"
    if pathlib.Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "numpy", "hnswlib"],
                       check=True)
    os.execv(str(python), [str(python), *sys.argv])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clustered(np, n, dims, seed):
    """Embedding-like data: 100 centres, each with its own 16-dimensional subspace, plus a
    little isotropic noise (real embeddings have a low intrinsic dimension; isotropic
    clusters in 128 dimensions defeat every graph index and no embedding looks like them).
    The centres and subspaces are fixed (seed 1); `seed` draws the points."""
    shape = np.random.RandomState(1)
    centres = shape.normal(size=(100, dims)).astype(np.float32)
    bases = (0.25 * shape.normal(size=(100, 16, dims))).astype(np.float32)
    rng = np.random.RandomState(seed)
    picks = rng.randint(0, 100, size=n)
    latent = rng.normal(size=(n, 16)).astype(np.float32)
    points = centres[picks] + np.einsum("nk,nkd->nd", latent, bases[picks])
    return (points + 0.05 * rng.normal(size=(n, dims))).astype(np.float32)


def truth(np, base, queries, k=10):
    out = []
    norms = (base * base).sum(axis=1)
    for q in queries:
        d = norms - 2 * base.dot(q)
        top = np.argpartition(d, k)[:k]
        out.append(set(top[np.argsort(d[top])].tolist()))
    return out


class Target:
    def __init__(self, name, argv, port, workdir):
        self.name, self.port = name, port
        self.log = open(workdir / f"{name}.log", "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.call("ListTables", {})
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{name} did not start")

    def call(self, operation, body, conn=None):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request("POST", "/", body=json.dumps(body) if not isinstance(body, bytes) else body,
                     headers={"X-Amz-Target": f"DynamoDB_20120810.{operation}",
                              "Content-Type": "application/x-amz-json-1.0",
                              "X-Amz-Date": "20260101T000000Z",
                              "Authorization": AUTH})
        response = conn.getresponse()
        data = response.read()
        if own:
            conn.close()
        if response.status != 200:
            raise RuntimeError(f"{operation}: {response.status} {data[:300]!r}")
        return json.loads(data)

    def index_memory_bytes(self):
        """Kura's own figure for the index (`kura_vector_index_memory_bytes`); NaN elsewhere."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
                text = r.read().decode()
        except OSError:
            return float("nan")
        found = re.search(r'^kura_vector_index_memory_bytes\{table_name="vectors",[^}]*\} (\S+)$',
                          text, re.M)
        return float(found.group(1)) if found else float("nan")

    def rss_mb(self):
        text = pathlib.Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", text).group(1)) / 1024

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def item(i, v):
    return {"pk": {"S": f"k{i}"}, "emb": {"L": [{"N": repr(float(x))} for x in v]}}


def load_part(args):
    port, rows, start, table = args
    target = Target.__new__(Target)
    target.port = port
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for at in range(0, len(rows), 25):
        batch = [{"PutRequest": {"Item": item(start + at + j, v)}}
                 for j, v in enumerate(rows[at:at + 25])]
        pending = {table: batch}
        while pending:
            answer = target.call("BatchWriteItem", {"RequestItems": pending}, conn)
            pending = answer.get("UnprocessedItems") or {}


def search_body(q, k=10):
    return json.dumps({"TableName": "vectors", "IndexName": "emb", "TopK": k,
                       "SearchVector": [{"N": repr(float(x))} for x in q]}).encode()


def search_worker(args):
    port, bodies, seconds = args
    target = Target.__new__(Target)
    target.port = port
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    done, end, i = 0, time.time() + seconds, 0
    while time.time() < end:
        target.call("SearchVectors", bodies[i % len(bodies)], conn)
        done, i = done + 1, i + 1
    return done


def load(target, rows, table):
    parts = 4
    chunk = (len(rows) + parts - 1) // parts
    with mp.Pool(parts) as pool:
        pool.map(load_part, [(target.port, rows[p * chunk:(p + 1) * chunk], p * chunk, table)
                             for p in range(parts)])


def bench_target(np, target, base, queries, exact, seconds):
    dims = base.shape[1]
    rows = base.tolist()
    # The same items into a table without a vector index: what the index adds to writes.
    target.call("CreateTable", {
        "TableName": "plain", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    time.sleep(0.5)
    plain_rss_before = target.rss_mb()
    started = time.time()
    load(target, rows, "plain")
    plain_rate = len(rows) / (time.time() - started)
    plain_rss_growth = target.rss_mb() - plain_rss_before
    target.call("CreateTable", {
        "TableName": "vectors", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "VectorIndexes": [{"IndexName": "emb", "VectorAttribute": {"AttributeName": "emb"},
                           "Dimensions": dims, "DistanceFunction": "EUCLIDEAN",
                           "Projection": {"ProjectionType": "KEYS_ONLY"}}]})
    time.sleep(0.5)
    rss_before = target.rss_mb()
    started = time.time()
    load(target, rows, "vectors")
    # The index may lag the table (DynamoDB's does): wait until it answers the last item.
    probe = search_body(base[-1], 1)
    while target.call("SearchVectors", probe)["SearchResults"][0]["Item"]["pk"]["S"] != f"k{len(rows) - 1}":
        time.sleep(0.05)
    build_rate = len(rows) / (time.time() - started)
    rss_after = target.rss_mb()
    bodies = [search_body(q) for q in queries]
    conn = http.client.HTTPConnection("127.0.0.1", target.port, timeout=120)
    latencies, found = [], []
    for body in bodies:
        t = time.perf_counter()
        answer = target.call("SearchVectors", body, conn)
        latencies.append(time.perf_counter() - t)
        found.append({int(r["Item"]["pk"]["S"][1:]) for r in answer["SearchResults"]})
    recall = sum(len(f & e) for f, e in zip(found, exact)) / (10 * len(exact))
    latencies.sort()
    with mp.Pool(16) as pool:
        counts = pool.map(search_worker, [(target.port, bodies[w::16] or bodies, seconds)
                                          for w in range(16)])
    return {
        "recall@10": recall,
        "p50_ms": statistics.median(latencies) * 1e3,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1e3,
        "qps_c16": sum(counts) / seconds,
        "build_per_s": build_rate,
        "plain_load_per_s": plain_rate,
        "rss_bytes_per_vector": (rss_after - rss_before) * 1048576 / len(rows),
        # What the index adds to the server's memory: the growth loading the same items
        # with the index, less the growth without one.
        "index_rss_bytes_per_vector":
            (rss_after - rss_before - plain_rss_growth) * 1048576 / len(rows),
        "index_memory_bytes_per_vector": target.index_memory_bytes() / len(rows),
        "raw_bytes_per_vector": dims * 4,
    }


def bench_hnswlib(np, base, queries, exact):
    import hnswlib

    index = hnswlib.Index(space="l2", dim=base.shape[1])
    started = time.time()
    index.init_index(max_elements=len(base), ef_construction=128, M=16)
    index.set_num_threads(1)
    index.add_items(base, np.arange(len(base)))
    build = len(base) / (time.time() - started)
    rows = []
    for ef in (10, 20, 40, 80, 160, 320):
        index.set_ef(ef)
        per = float("inf")
        for _ in range(5):  # best of five passes, as benches/vector_engine.rs times Kura
            started = time.perf_counter()
            labels, _ = index.knn_query(queries, k=10)
            per = min(per, (time.perf_counter() - started) / len(queries))
        recall = sum(len(set(l.tolist()) & e) for l, e in zip(labels, exact)) / (10 * len(exact))
        rows.append({"ef": ef, "recall@10": recall, "qps_one_thread": 1 / per})
    return {"build_per_s_one_thread": build, "curve": rows}


def bench_engine(np, base, queries, exact, workdir):
    """Kura's SearchVectors in process (`benches/vector_engine.rs`): the same data and
    truth, one thread, each expansion in turn."""
    # Built as scripts/build-static.sh builds kura (crt-static, the host target named), so
    # the two share their compiled dependencies.
    host = next(line.split(": ", 1)[1] for line in subprocess.run(
        ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.startswith("host: "))
    env = dict(os.environ, RUSTFLAGS=(os.environ.get("RUSTFLAGS", "") + " -C target-feature=+crt-static").strip())
    subprocess.run(["cargo", "build", "--locked", "--release", "--target", host, "-p", "kura-bench",
                    "--bin", "vector-engine"], cwd=ROOT, check=True, env=env)
    binary = ROOT / "target" / host / "release" / "vector-engine"
    base.astype("<f4").tofile(workdir / "base.f32")
    queries.astype("<f4").tofile(workdir / "queries.f32")
    (workdir / "truth.json").write_text(json.dumps([sorted(e) for e in exact]))
    out = subprocess.run([str(binary), str(workdir), str(base.shape[1]), "16,24,32,48,64,96,128,256"],
                         check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {"load_per_s": lines[0]["load_per_s"], "curve": lines[1:]}


def fastest_at(curve, recall):
    """The most searches per second among the points of `curve` at `recall` or better."""
    return max((c["qps_one_thread"] for c in curve if c["recall@10"] >= recall), default=None)


def main():
    ensure_venv()
    import numpy as np

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000x128,10000x768")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--no-engine", action="store_true",
                        help="skip the in-process measurement (it builds a release binary)")
    args = parser.parse_args()
    kura = pathlib.Path(os.environ.get("KURA_BIN", ROOT / "target" / "static" / "kura"))
    dynoxide = ROOT / "benches" / "peers" / "dynoxide" / "bin" / "dynoxide"
    results = {}
    for size in args.sizes.split(","):
        n, dims = (int(x) for x in size.split("x"))
        base = clustered(np, n, dims, 42)
        queries = clustered(np, args.queries, dims, 7)
        exact = truth(np, base, queries)
        results[size] = {"hnswlib": bench_hnswlib(np, base, queries, exact)}
        workdir = pathlib.Path(tempfile.mkdtemp(prefix="kura-vectors-"))
        if not args.no_engine:
            results[size]["kura_engine"] = bench_engine(np, base, queries, exact, workdir)
        targets = [("kura", lambda p: [str(kura), "serve", "--port", str(p),
                                        "--data-dir", str(workdir / "kura")])]
        if dynoxide.exists():
            targets.append(("dynoxide", lambda p: [str(dynoxide), "serve", "--host", "127.0.0.1",
                                                    "--port", str(p),
                                                    "--db-path", str(workdir / "dynoxide.db")]))
        else:
            print("dynoxide skipped: run benches/peers/install.sh dynoxide", file=sys.stderr)
        for name, argv in targets:
            port = free_port()
            target = Target(name, argv(port), port, workdir)
            try:
                results[size][name] = bench_target(np, target, base, queries, exact, args.seconds)
            finally:
                target.stop()
        shutil.rmtree(workdir, ignore_errors=True)
        print(f"\n{size}")
        for name in ("kura", "dynoxide"):
            r = results[size].get(name)
            if r:
                print(f"  {name:9} recall@10 {r['recall@10']:.3f}  p50 {r['p50_ms']:.2f} ms  "
                      f"p99 {r['p99_ms']:.2f} ms  C=16 {r['qps_c16']:.0f}/s  "
                      f"build {r['build_per_s']:.0f}/s (no index: {r['plain_load_per_s']:.0f}/s)  RSS {r['rss_bytes_per_vector']:.0f} B/vector "
                      f"(index alone {r['index_rss_bytes_per_vector']:.0f} by RSS, "
                      f"{r['index_memory_bytes_per_vector']:.0f} by its own count; "
                      f"raw {r['raw_bytes_per_vector']})")
        if "dynoxide" in results[size] and "kura" in results[size]:
            ratio = results[size]["kura"]["qps_c16"] / results[size]["dynoxide"]["qps_c16"]
            print(f"  Kura / Dynoxide throughput at C=16: {ratio:.1f}x")
        h = results[size]["hnswlib"]
        curve = "  ".join(f"ef={c['ef']}: {c['recall@10']:.3f} @ {c['qps_one_thread']:.0f}/s"
                          for c in h["curve"])
        print(f"  hnswlib (in process, one thread): build {h['build_per_s_one_thread']:.0f}/s; {curve}")
        e = results[size].get("kura_engine")
        if e:
            curve = "  ".join(f"ef={c['ef']}: {c['recall@10']:.3f} @ {c['qps_one_thread']:.0f}/s"
                              for c in e["curve"])
            print(f"  Kura SearchVectors in process, one thread: {curve}")
            index_curve = [dict(c, qps_one_thread=c["index_qps_one_thread"]) for c in e["curve"]]
            curve = "  ".join(f"ef={c['ef']}: {c['qps_one_thread']:.0f}/s" for c in index_curve)
            print(f"  Kura's index alone (graph and exact rescoring), one thread: {curve}")
            theirs = fastest_at(h["curve"], 0.95)
            for what, points in (("SearchVectors", e["curve"]), ("index alone", index_curve)):
                ours = fastest_at(points, 0.95)
                if ours and theirs:
                    print(f"  at recall@10 >= 0.95: Kura {what} {ours:.0f}/s, hnswlib "
                          f"{theirs:.0f}/s (hnswlib / Kura {theirs / ours:.2f}x)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
