"""Vector indexes and SearchVectors through boto3 (1.44.8 or later speaks them), against a
real `kura serve`: the CreateTable/UpdateTable/DescribeTable shapes, each distance function
against a brute-force reference on the same data (exact mode: the same answers, in the same
order, with the same scores), partition keys and inline filters, projections, capacity,
writes reflected at once on every write path, DynamoDB's errors word for word, and the
index surviving `kill -9`."""

import math
import os
import random
import re
import signal
import subprocess
import time
import urllib.request

import boto3
import pytest
from botocore.exceptions import ClientError

from conftest import KURA_BIN

DIMS = 8


def n(x):
    return {"N": repr(float(x))}


def vector(values):
    return {"L": [n(x) for x in values]}


def search_vector(values):
    return [n(x) for x in values]


def f32(x):
    """x rounded to an f32, as the index stores it."""
    import struct

    return struct.unpack("f", struct.pack("f", x))[0]


def reference(distance, query, stored):
    """Brute force: (score, key) for every stored vector, best first."""
    scored = []
    q = [f32(x) for x in query]
    for key, v in stored.items():
        v = [f32(x) for x in v]
        dot = sum(a * b for a, b in zip(q, v))
        if distance == "DOT_PRODUCT":
            score = dot
        elif distance == "EUCLIDEAN":
            score = math.sqrt(sum((a - b) ** 2 for a, b in zip(q, v)))
        else:
            norms = math.sqrt(sum(a * a for a in q)) * math.sqrt(sum(b * b for b in v))
            score = 1.0 - dot / norms if norms else 1.0
        scored.append((score, key))
    scored.sort(key=lambda s: (-s[0], s[1]) if distance == "DOT_PRODUCT" else s)
    return scored


def assert_exact(results, expected, top_k):
    """The answer is the true top-k: the same scores in the same order, and each key's own
    score is its reference score (a swap is only allowed between equal scores)."""
    assert len(results) == min(top_k, len(expected))
    by_key = {k: s for s, k in expected}
    for got, (score, _) in zip(results, expected):
        assert got["Score"] == pytest.approx(score, abs=1e-4)
        assert by_key[got["Item"]["pk"]["S"]] == pytest.approx(got["Score"], abs=1e-4)


def error(excinfo):
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def create(ddb, name, indexes, definitions=(), billing="PAY_PER_REQUEST"):
    throughput = {}
    if billing == "PROVISIONED":
        throughput["ProvisionedThroughput"] = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, *definitions],
        BillingMode=billing,
        VectorIndexes=indexes,
        **throughput,
    )


def index(name, distance="COSINE", schema=None, projection=None, dims=DIMS, attribute="emb"):
    out = {
        "IndexName": name,
        "VectorAttribute": {"AttributeName": attribute},
        "Dimensions": dims,
        "DistanceFunction": distance,
        "Projection": projection or {"ProjectionType": "ALL"},
    }
    if schema:
        out["SearchSchema"] = schema
    return out


@pytest.fixture()
def catalog(ddb, table_name):
    """A table with one index per distance function and one partitioned, filtered index,
    and 300 items of random vectors (fixed seed)."""
    create(
        ddb,
        table_name,
        [
            index("cos"),
            index("euclid", "EUCLIDEAN"),
            index("dot", "DOT_PRODUCT", projection={"ProjectionType": "KEYS_ONLY"}),
            index(
                "by_tenant",
                schema=[
                    {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                    {"AttributeName": "color", "SearchSchemaElementType": "INLINE_FILTER"},
                ],
                projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]},
            ),
        ],
        definitions=[
            {"AttributeName": "tenant", "AttributeType": "S"},
            {"AttributeName": "color", "AttributeType": "S"},
        ],
    )
    rng = random.Random(33)
    stored = {}
    meta = {}
    for i in range(300):
        key = f"item-{i:03}"
        v = [rng.uniform(-1, 1) for _ in range(DIMS)]
        stored[key] = v
        meta[key] = (f"t{i % 3}", ["red", "green", "blue", "gold"][i % 4])
        ddb.put_item(
            TableName=table_name,
            Item={
                "pk": {"S": key},
                "emb": vector(v),
                "tenant": {"S": meta[key][0]},
                "color": {"S": meta[key][1]},
                "title": {"S": f"title {i}"},
                "body": {"S": "not projected into by_tenant"},
            },
        )
    return table_name, stored, meta


def test_describe_table_reports_the_vector_indexes(ddb, catalog):
    table_name, _, _ = catalog
    table = ddb.describe_table(TableName=table_name)["Table"]
    indexes = {v["IndexName"]: v for v in table["VectorIndexes"]}
    assert sorted(indexes) == ["by_tenant", "cos", "dot", "euclid"]
    tenant = indexes["by_tenant"]
    assert tenant["IndexStatus"] == "ACTIVE"
    assert "Backfilling" not in tenant
    assert tenant["Dimensions"] == DIMS
    assert tenant["DistanceFunction"] == "COSINE"
    assert tenant["VectorAttribute"] == {"AttributeName": "emb"}
    assert tenant["SearchSchema"] == [
        {"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
        {"AttributeName": "color", "SearchSchemaElementType": "INLINE_FILTER"},
    ]
    assert tenant["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}
    assert tenant["IndexArn"].endswith(f"table/{table_name}/index/by_tenant")
    assert indexes["cos"]["ItemCount"] == 300
    assert indexes["cos"]["IndexSizeBytes"] == 300 * DIMS * 4
    assert "SearchSchema" not in indexes["cos"]


@pytest.mark.parametrize("index_name,distance", [("cos", "COSINE"), ("euclid", "EUCLIDEAN"), ("dot", "DOT_PRODUCT")])
def test_each_distance_matches_brute_force(ddb, catalog, index_name, distance):
    table_name, stored, _ = catalog
    rng = random.Random(index_name)
    for _ in range(5):
        query = [rng.uniform(-1, 1) for _ in range(DIMS)]
        for top_k in (1, 10, 100):
            answer = ddb.search_vectors(
                TableName=table_name, IndexName=index_name,
                SearchVector=search_vector(query), TopK=top_k,
            )
            assert_exact(answer["SearchResults"], reference(distance, query, stored), top_k)


def test_partition_key_and_inline_filter_are_applied_inside_the_search(ddb, catalog):
    table_name, stored, meta = catalog
    query = [0.5] * DIMS
    answer = ddb.search_vectors(
        TableName=table_name, IndexName="by_tenant", SearchVector=search_vector(query), TopK=20,
        SearchConditionExpression="tenant = :t AND #c = :c",
        ExpressionAttributeNames={"#c": "color"},
        ExpressionAttributeValues={":t": {"S": "t1"}, ":c": {"S": "blue"}},
    )
    matching = {k: v for k, v in stored.items() if meta[k] == ("t1", "blue")}
    # 300 items: 25 are in t1 and blue, so TopK=20 is full.
    assert len(matching) == 25
    assert_exact(answer["SearchResults"], reference("COSINE", query, matching), 20)
    only_tenant = ddb.search_vectors(
        TableName=table_name, IndexName="by_tenant", SearchVector=search_vector(query), TopK=100,
        SearchConditionExpression="tenant = :t", ExpressionAttributeValues={":t": {"S": "t2"}},
    )
    in_tenant = {k: v for k, v in stored.items() if meta[k][0] == "t2"}
    assert_exact(only_tenant["SearchResults"], reference("COSINE", query, in_tenant), 100)
    nobody = ddb.search_vectors(
        TableName=table_name, IndexName="by_tenant", SearchVector=search_vector(query), TopK=5,
        SearchConditionExpression="tenant = :t", ExpressionAttributeValues={":t": {"S": "t9"}},
    )
    assert nobody["SearchResults"] == []


def test_projections(ddb, catalog):
    table_name, _, _ = catalog
    query = search_vector([0.1] * DIMS)
    include = ddb.search_vectors(
        TableName=table_name, IndexName="by_tenant", SearchVector=query, TopK=3,
        SearchConditionExpression="tenant = :t", ExpressionAttributeValues={":t": {"S": "t0"}},
    )["SearchResults"]
    # Keys, the search schema and the INCLUDE list; never the vector unless asked for.
    assert set(include[0]["Item"]) == {"pk", "tenant", "color", "title"}
    keys_only = ddb.search_vectors(
        TableName=table_name, IndexName="dot", SearchVector=query, TopK=3)["SearchResults"]
    assert set(keys_only[0]["Item"]) == {"pk"}
    everything = ddb.search_vectors(
        TableName=table_name, IndexName="cos", SearchVector=query, TopK=3)["SearchResults"]
    assert set(everything[0]["Item"]) == {"pk", "tenant", "color", "title", "body"}
    asked = ddb.search_vectors(
        TableName=table_name, IndexName="by_tenant", SearchVector=query, TopK=3,
        SearchConditionExpression="tenant = :t", ExpressionAttributeValues={":t": {"S": "t0"}},
        # `body` is not projected into by_tenant: silently left out, as in DynamoDB.
        ProjectionExpression="pk, emb, body",
    )["SearchResults"]
    item = asked[0]["Item"]
    assert set(item) == {"pk", "emb"}
    assert len(item["emb"]["L"]) == DIMS


def test_writes_are_reflected_at_once_on_every_write_path(ddb, catalog):
    table_name, _, _ = catalog
    target = [0.25, -0.5, 0.75, 0.1, 0.0, 0.3, -0.2, 0.9]

    def top(k=1):
        return [r["Item"]["pk"]["S"] for r in ddb.search_vectors(
            TableName=table_name, IndexName="euclid", SearchVector=search_vector(target), TopK=k,
        )["SearchResults"]]

    ddb.put_item(TableName=table_name, Item={"pk": {"S": "new"}, "emb": vector(target)})
    assert top() == ["new"]
    ddb.update_item(
        TableName=table_name, Key={"pk": {"S": "new"}},
        UpdateExpression="SET emb = :v", ExpressionAttributeValues={":v": vector([9] * DIMS)},
    )
    assert "new" not in top(10)
    ddb.update_item(
        TableName=table_name, Key={"pk": {"S": "new"}},
        UpdateExpression="SET emb = :v", ExpressionAttributeValues={":v": vector(target)},
    )
    assert top() == ["new"]
    ddb.update_item(TableName=table_name, Key={"pk": {"S": "new"}}, UpdateExpression="REMOVE emb")
    assert "new" not in top(10)
    ddb.batch_write_item(RequestItems={table_name: [
        {"PutRequest": {"Item": {"pk": {"S": "batch"}, "emb": vector(target)}}}]})
    assert top() == ["batch"]
    ddb.delete_item(TableName=table_name, Key={"pk": {"S": "batch"}})
    assert "batch" not in top(10)
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table_name, "Item": {"pk": {"S": "tx"}, "emb": vector(target)}}}])
    assert top() == ["tx"]
    ddb.execute_statement(Statement=f"DELETE FROM \"{table_name}\" WHERE pk = 'tx'")
    assert "tx" not in top(10)
    # A transaction that fails leaves the index as it was.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "kept"}, "emb": vector(target)})
    with pytest.raises(ClientError):
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table_name, "Item": {"pk": {"S": "kept"}, "emb": vector([5] * DIMS)}}},
            {"ConditionCheck": {"TableName": table_name, "Key": {"pk": {"S": "kept"}},
                                "ConditionExpression": "attribute_not_exists(pk)"}},
        ])
    assert top() == ["kept"]


def wait_active(ddb, name):
    for _ in range(1200):
        if ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE":
            return
        time.sleep(0.05)
    raise AssertionError(f"{name} is not ACTIVE")


def test_backups_and_pitr_restore_the_vector_indexes_with_overrides(ddb, catalog):
    """A restored table gets the source's vector indexes, filled from the restored items;
    VectorIndexOverride chooses them; a restore to provisioned mode cannot keep them."""
    table_name, _, _ = catalog
    query = search_vector([0.1] * DIMS)

    def search(name, index_name="euclid"):
        return ddb.search_vectors(TableName=name, IndexName=index_name, SearchVector=query,
                                  TopK=5)["SearchResults"]

    expected = search(table_name)
    arn = ddb.create_backup(TableName=table_name, BackupName="vectors")["BackupDetails"]["BackupArn"]
    ddb.restore_table_from_backup(TargetTableName=table_name + "-whole", BackupArn=arn)
    wait_active(ddb, table_name + "-whole")
    restored = ddb.describe_table(TableName=table_name + "-whole")["Table"]["VectorIndexes"]
    assert {i["IndexName"] for i in restored} == {"cos", "euclid", "dot", "by_tenant"}
    assert all(i["ItemCount"] == 300 for i in restored), restored
    assert search(table_name + "-whole") == expected
    ddb.restore_table_from_backup(TargetTableName=table_name + "-one", BackupArn=arn,
                                  VectorIndexOverride=[index("euclid", "EUCLIDEAN")])
    wait_active(ddb, table_name + "-one")
    kept = ddb.describe_table(TableName=table_name + "-one")["Table"]["VectorIndexes"]
    assert [i["IndexName"] for i in kept] == ["euclid"]
    assert search(table_name + "-one") == expected
    with pytest.raises(ClientError) as refused:
        search(table_name + "-one", "cos")
    assert error(refused)[0] == "ValidationException"
    with pytest.raises(ClientError) as refused:
        ddb.restore_table_from_backup(
            TargetTableName=table_name + "-prov", BackupArn=arn, BillingModeOverride="PROVISIONED",
            ProvisionedThroughputOverride={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert error(refused) == ("ValidationException", "One or more parameter values were invalid: "
                              "Vector indexes are only supported for PAY_PER_REQUEST tables")
    ddb.update_continuous_backups(TableName=table_name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    ddb.restore_table_to_point_in_time(SourceTableName=table_name,
                                       TargetTableName=table_name + "-pitr",
                                       UseLatestRestorableTime=True)
    wait_active(ddb, table_name + "-pitr")
    assert search(table_name + "-pitr") == expected


def test_ttl_deletes_take_items_out_of_the_index(ddb, table_name):
    create(ddb, table_name, [index("euclid", "EUCLIDEAN")])
    ddb.update_time_to_live(TableName=table_name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    target = [0.5] * DIMS
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "expired"}, "emb": vector(target),
                                             "expires": {"N": str(int(time.time()) - 60)}})
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "kept"}, "emb": vector([1] * DIMS)})
    for _ in range(600):
        if "Item" not in ddb.get_item(TableName=table_name, Key={"pk": {"S": "expired"}}):
            break
        time.sleep(0.05)
    found = ddb.search_vectors(TableName=table_name, IndexName="euclid",
                               SearchVector=search_vector(target), TopK=10)["SearchResults"]
    assert [r["Item"]["pk"]["S"] for r in found] == ["kept"]


def test_consumed_capacity(ddb, catalog):
    table_name, _, _ = catalog
    answer = ddb.search_vectors(
        TableName=table_name, IndexName="cos", SearchVector=search_vector([1] * DIMS), TopK=5,
        ReturnConsumedCapacity="TOTAL",
    )
    assert answer["ConsumedCapacity"]["VectorSearchRequestBytes"] >= 1024
    plain = ddb.search_vectors(
        TableName=table_name, IndexName="cos", SearchVector=search_vector([1] * DIMS), TopK=5)
    assert "ConsumedCapacity" not in plain


def test_writes_report_vector_write_request_bytes_per_index(ddb, catalog):
    """INDEXES on a write reports `VectorIndexes` with `VectorWriteRequestBytes` for each
    vector index whose view of the item changed: the vector's f32 bytes plus the other
    projected attributes (Kura's model, docs/vector-search.md)."""
    table_name, _, _ = catalog
    item = {"pk": {"S": "item-new"}, "emb": vector([0.5] * DIMS), "tenant": {"S": "t1"},
            "color": {"S": "red"}, "title": {"S": "new"}, "body": {"S": "b"}}
    put = ddb.put_item(TableName=table_name, Item=item, ReturnConsumedCapacity="INDEXES")
    written = {name: c["VectorWriteRequestBytes"]
               for name, c in put["ConsumedCapacity"]["VectorIndexes"].items()}
    keys_only = DIMS * 4 + len("pk") + len("item-new")
    assert written["dot"] == keys_only
    assert written["by_tenant"] == keys_only + len("tenant") + 2 + len("color") + 3 + len("title") + 3
    assert written["cos"] == written["euclid"] == written["by_tenant"] + len("body") + 1
    assert put["ConsumedCapacity"]["CapacityUnits"] == 1.0  # metered apart from units
    # A change to an attribute only ALL projects reaches only those indexes.
    update = ddb.update_item(TableName=table_name, Key={"pk": {"S": "item-new"}},
                             UpdateExpression="SET body = :b",
                             ExpressionAttributeValues={":b": {"S": "c"}},
                             ReturnConsumedCapacity="INDEXES")
    assert set(update["ConsumedCapacity"]["VectorIndexes"]) == {"cos", "euclid"}
    # TOTAL reports no detail; a delete takes the item out of every index.
    total = ddb.put_item(TableName=table_name, Item=item, ReturnConsumedCapacity="TOTAL")
    assert "VectorIndexes" not in total["ConsumedCapacity"]
    gone = ddb.delete_item(TableName=table_name, Key={"pk": {"S": "item-new"}},
                           ReturnConsumedCapacity="INDEXES")
    assert set(gone["ConsumedCapacity"]["VectorIndexes"]) == {"cos", "euclid", "dot", "by_tenant"}


def test_search_errors(ddb, catalog):
    table_name, _, _ = catalog
    v = search_vector([1] * DIMS)

    def search(**kwargs):
        args = dict(TableName=table_name, IndexName="by_tenant", SearchVector=v, TopK=5,
                    SearchConditionExpression="tenant = :t",
                    ExpressionAttributeValues={":t": {"S": "t0"}})
        args.update(kwargs)
        with pytest.raises(ClientError) as e:
            ddb.search_vectors(**{k: a for k, a in args.items() if a is not None})
        return error(e)

    assert search(TopK=101) == ("ValidationException", "Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive")
    assert search(SearchVector=search_vector([1, 2])) == ("ValidationException", f"Input search vector dimension 2 does not match vector index dimension {DIMS}")
    assert search(SearchVector=[{"S": "x"}] * DIMS) == ("ValidationException", "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute")
    assert search(SearchVector=[{"N": "1E+39"}] * DIMS)[1].startswith("Search vector contains invalid values")
    assert search(SearchConditionExpression=None, ExpressionAttributeValues=None) == ("ValidationException", "SearchConditionExpression must be provided when SearchSchema has a HASH key")
    assert search(SearchConditionExpression="tenant < :t") == ("ValidationException", "Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression")
    assert search(SearchConditionExpression="tenant IN (:t)") == ("ValidationException", "Invalid SearchConditionExpression: Invalid operator used in SearchConditionExpression")
    assert search(SearchConditionExpression="tenant = :t AND title = :t") == ("ValidationException", "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: title")
    assert search(IndexName="nope") == ("ValidationException", "The table does not have the specified index: nope")
    assert search(TableName="no-such-table")[0] == "ResourceNotFoundException"


def test_query_scan_and_partiql_on_a_vector_index_are_refused(ddb, catalog):
    table_name, _, _ = catalog
    with pytest.raises(ClientError) as e:
        ddb.query(TableName=table_name, IndexName="cos", KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "x"}})
    assert error(e) == ("ValidationException", "Query operation not supported on this index type.")
    with pytest.raises(ClientError) as e:
        ddb.scan(TableName=table_name, IndexName="cos")
    assert error(e) == ("ValidationException", "Scan operation not supported on this index type")
    with pytest.raises(ClientError) as e:
        ddb.execute_statement(Statement=f'SELECT * FROM "{table_name}"."cos"')
    assert error(e) == ("ValidationException", "Scan operation not supported on this index type")


def test_writes_with_a_malformed_vector_are_rejected(ddb, catalog):
    table_name, _, _ = catalog

    def put(item):
        with pytest.raises(ClientError) as e:
            ddb.put_item(TableName=table_name, Item={"pk": {"S": "bad"}, **item})
        return error(e)

    code, message = put({"emb": vector([1, 2])})
    assert code == "ValidationException"
    assert re.fullmatch(r"One or more parameter values were invalid\. Invalid size for parameter emb, Expected: 8, Actual: 2 IndexName: \w+", message)
    assert re.fullmatch(r"One or more parameter values were invalid\. Invalid type for parameter emb\[1\], Expected: 32-bit floating point number, Actual: S\. IndexName: \w+",
                        put({"emb": {"L": [n(1), {"S": "x"}] + [n(1)] * (DIMS - 2)}})[1])
    assert re.fullmatch(r"One or more parameter values were invalid\. Invalid type for parameter emb, Expected: 32-bit floating point number list IndexName: \w+",
                        put({"emb": {"S": "x"}})[1])
    assert put({"emb": vector([1] * DIMS), "tenant": {"N": "1"}})[1] == "One or more parameter values were invalid: Type mismatch for Index Key tenant Expected: S Actual: N IndexName: by_tenant"
    # Without a partition value the item is stored, and only the partitioned index skips it.
    ddb.put_item(TableName=table_name, Item={"pk": {"S": "lone"}, "emb": vector([7] * DIMS)})
    nearest = ddb.search_vectors(TableName=table_name, IndexName="euclid",
                                 SearchVector=search_vector([7] * DIMS), TopK=1)["SearchResults"]
    assert nearest[0]["Item"]["pk"]["S"] == "lone"


def test_create_table_errors(ddb, table_name):
    def refused(indexes, definitions=(), billing="PAY_PER_REQUEST"):
        with pytest.raises(ClientError) as e:
            create(ddb, table_name, indexes, definitions, billing)
        return error(e)

    assert refused([index("idx_a")], billing="PROVISIONED") == ("ValidationException", "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables")
    assert refused([index(f"idx{i}") for i in range(6)])[1] == "One or more parameter values were invalid: VectorIndex count exceeds the per-table limit of 5"
    assert refused([index("idx_a", schema=[{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"}])])[1] == "One or more parameter values were invalid: One element in SearchSchema is not defined in attribute definitions"
    assert refused([index("idx_a", dims=4097)])[1] == "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive."
    assert refused([index("idx_a"), index("idx_b", dims=4)])[1] == "One or more parameter values were invalid: Conflicting attribute definition for 'emb'. All VectorIndexes on the same vector attribute must use the same dimensions."
    assert refused([index("idx_a"), index("idx_a", attribute="other")])[1] == "One or more parameter values were invalid: Duplicate index name: idx_a"
    assert refused([index("idx_a", "MANHATTAN")])[1] == "1 validation error detected: Value 'MANHATTAN' at 'vectorIndexes.1.member.distanceFunction' failed to satisfy constraint: Member must satisfy enum value set: [DOT_PRODUCT, COSINE, EUCLIDEAN]"


def test_update_table_adds_and_removes_a_vector_index(ddb, table_name):
    ddb.create_table(
        TableName=table_name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    rng = random.Random(7)
    stored = {}
    for i in range(200):
        v = [rng.uniform(-1, 1) for _ in range(DIMS)]
        stored[f"k{i}"] = v
        ddb.put_item(TableName=table_name, Item={"pk": {"S": f"k{i}"}, "emb": vector(v), "cat": {"S": "a" if i % 2 else "b"}})
    ddb.update_table(
        TableName=table_name,
        AttributeDefinitions=[{"AttributeName": "cat", "AttributeType": "S"}],
        VectorIndexUpdates=[{"Create": index(
            "late", "EUCLIDEAN",
            schema=[{"AttributeName": "cat", "SearchSchemaElementType": "INLINE_FILTER"}])}],
    )
    deadline = time.time() + 30
    while True:
        described = ddb.describe_table(TableName=table_name)["Table"]["VectorIndexes"][0]
        if described["IndexStatus"] == "ACTIVE":
            break
        assert described["IndexStatus"] == "CREATING" and described["Backfilling"] is True
        assert time.time() < deadline
        time.sleep(0.05)
    assert "Backfilling" not in described
    query = [0.0] * DIMS
    answer = ddb.search_vectors(TableName=table_name, IndexName="late",
                                SearchVector=search_vector(query), TopK=50)
    assert_exact(answer["SearchResults"], reference("EUCLIDEAN", query, stored), 50)
    attributes = ddb.describe_table(TableName=table_name)["Table"]["AttributeDefinitions"]
    assert {"AttributeName": "cat", "AttributeType": "S"} in attributes
    with pytest.raises(ClientError) as e:
        ddb.update_table(TableName=table_name, VectorIndexUpdates=[
            {"Create": index("xx1", dims=DIMS)}, {"Create": index("xx2", dims=DIMS)}])
    assert error(e) == ("LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
    with pytest.raises(ClientError) as e:
        ddb.update_table(TableName=table_name, BillingMode="PROVISIONED",
                         ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert error(e)[1] == "One or more parameter values were invalid: Vector indexes are only supported for PAY_PER_REQUEST tables"
    gsi = {"IndexName": "late", "KeySchema": [{"AttributeName": "cat", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "KEYS_ONLY"}}
    with pytest.raises(ClientError) as e:
        ddb.update_table(TableName=table_name, GlobalSecondaryIndexUpdates=[{"Create": gsi}])
    assert error(e) == ("ValidationException", "One or more parameter values were invalid: Duplicate index name: late")
    with pytest.raises(ClientError) as e:
        ddb.update_table(TableName=table_name,
                         GlobalSecondaryIndexUpdates=[{"Create": {**gsi, "IndexName": "by_cat"}}],
                         VectorIndexUpdates=[{"Delete": {"IndexName": "late"}}])
    assert error(e)[0] == "LimitExceededException"
    ddb.update_table(TableName=table_name, VectorIndexUpdates=[{"Delete": {"IndexName": "late"}}])
    table = ddb.describe_table(TableName=table_name)["Table"]
    assert "VectorIndexes" not in table
    assert [a["AttributeName"] for a in table["AttributeDefinitions"]] == ["pk"]
    with pytest.raises(ClientError) as e:
        ddb.search_vectors(TableName=table_name, IndexName="late",
                           SearchVector=search_vector(query), TopK=1)
    assert error(e)[1] == "The table does not have the specified index: late"


def test_the_index_survives_kill_9_and_is_refilled_in_the_background(tmp_path):
    """Acknowledged writes are in the index after a kill -9 and a restart: the index is
    rebuilt from the items in the background and the first search waits for it."""
    data = tmp_path / "data"
    log_path = tmp_path / "kura.log"

    def start():
        log = open(log_path, "w")
        proc = subprocess.Popen([str(KURA_BIN), "serve", "--port", "0", "--data-dir", str(data)],
                                stderr=log, stdout=subprocess.DEVNULL,
                                env={**os.environ, "KURA_LOG": "info"})
        for _ in range(300):
            found = re.search(r"kura ready on (http:\S+)", log_path.read_text())
            if found:
                return proc, found.group(1)
            assert proc.poll() is None, log_path.read_text()
            time.sleep(0.1)
        raise AssertionError(log_path.read_text())

    def client(endpoint):
        return boto3.client("dynamodb", endpoint_url=endpoint, region_name="eu-west-1",
                            aws_access_key_id="k", aws_secret_access_key="k")

    proc, endpoint = start()
    ddb = client(endpoint)
    create(ddb, "vectors", [index("vix", "EUCLIDEAN")])
    rng = random.Random(99)
    stored = {}
    try:
        for i in range(2000):
            v = [rng.uniform(-1, 1) for _ in range(DIMS)]
            ddb.put_item(TableName="vectors", Item={"pk": {"S": f"k{i:04}"}, "emb": vector(v)})
            stored[f"k{i:04}"] = v  # acknowledged
            if i % 97 == 0:
                ddb.delete_item(TableName="vectors", Key={"pk": {"S": f"k{i:04}"}})
                del stored[f"k{i:04}"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    proc, endpoint = start()
    try:
        ddb = client(endpoint)
        query = [0.2] * DIMS
        answer = ddb.search_vectors(TableName="vectors", IndexName="vix",
                                    SearchVector=search_vector(query), TopK=100)
        assert_exact(answer["SearchResults"], reference("EUCLIDEAN", query, stored), 100)
        described = ddb.describe_table(TableName="vectors")["Table"]["VectorIndexes"][0]
        assert described["IndexStatus"] == "ACTIVE"
        assert described["ItemCount"] == len(stored)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def embedding_like(rng, n, dims):
    """Points near a few centres in a low-dimensional subspace, as embeddings are."""
    shape = random.Random(1)
    centres = [[shape.gauss(0, 1) for _ in range(dims)] for _ in range(6)]
    axes = [[shape.gauss(0, 0.3) for _ in range(dims)] for _ in range(3)]
    out = []
    for i in range(n):
        v = list(centres[i % len(centres)])
        for axis in axes:
            z = rng.gauss(0, 1)
            v = [x + z * a for x, a in zip(v, axis)]
        out.append([x + rng.gauss(0, 0.05) for x in v])
    return out


def test_a_large_index_walks_a_graph_with_high_recall_and_no_stale_answers(tmp_path):
    """Above --vector-exact-below the search walks the HNSW graph: recall@10 against brute
    force stays high, scores stay exact, partitions hold, and a deleted or moved vector is
    never an answer once its write has returned."""
    from conftest import kura_server

    with kura_server(["--in-memory", "--vector-exact-below", "200"], tmp_path) as endpoint:
        ddb = boto3.client("dynamodb", endpoint_url=endpoint, region_name="eu-west-1",
                           aws_access_key_id="k", aws_secret_access_key="k")
        create(ddb, "big", [
            index("flat", "EUCLIDEAN", dims=16),
            index("split", "EUCLIDEAN", dims=16,
                  schema=[{"AttributeName": "half", "SearchSchemaElementType": "HASH"}]),
        ], definitions=[{"AttributeName": "half", "AttributeType": "S"}])
        rng = random.Random(5)
        stored = {f"k{i:04}": v for i, v in enumerate(embedding_like(rng, 3000, 16))}
        keys = list(stored)
        for at in range(0, len(keys), 25):
            ddb.batch_write_item(RequestItems={"big": [
                {"PutRequest": {"Item": {"pk": {"S": k}, "emb": vector(stored[k]),
                                         "half": {"S": "even" if int(k[1:]) % 2 == 0 else "odd"}}}}
                for k in keys[at:at + 25]]})
        for k in keys[::4]:
            ddb.delete_item(TableName="big", Key={"pk": {"S": k}})
            del stored[k]

        def metric(name, index_name):
            with urllib.request.urlopen(endpoint + "/metrics") as r:
                metrics = r.read().decode()
            pattern = rf'^kura_{name}{{table_name="big",vector_index_name="{index_name}"}} (\S+)$'
            return float(re.search(pattern, metrics, re.M).group(1))

        # The graph is built on a thread of its own once the index outgrows exact search
        # (searches are exact until then): wait for both.
        for _ in range(1200):
            if all(metric("vector_index_approximate", i) == 1 for i in ("flat", "split")):
                break
            time.sleep(0.05)
        found = wanted = 0
        for q in embedding_like(random.Random(6), 40, 16):
            answer = ddb.search_vectors(TableName="big", IndexName="flat",
                                        SearchVector=search_vector(q), TopK=10)["SearchResults"]
            expected = reference("EUCLIDEAN", q, stored)[:10]
            by_key = {k: s for s, k in reference("EUCLIDEAN", q, stored)}
            got = [r["Item"]["pk"]["S"] for r in answer]
            assert len(got) == 10 and all(k in stored for k in got)
            assert all(by_key[r["Item"]["pk"]["S"]] == pytest.approx(r["Score"], abs=1e-4) for r in answer)
            found += len(set(got) & {k for _, k in expected})
            wanted += 10
            odd = ddb.search_vectors(
                TableName="big", IndexName="split", SearchVector=search_vector(q), TopK=10,
                SearchConditionExpression="half = :h", ExpressionAttributeValues={":h": {"S": "odd"}},
            )["SearchResults"]
            assert len(odd) == 10 and all(int(r["Item"]["pk"]["S"][1:]) % 2 == 1 for r in odd)
        assert found / wanted >= 0.9, found / wanted
        # /metrics knows the index kind: its items, its f32 bytes, its memory (the vectors,
        # the graph, keys and maps) and its mode.
        assert metric("vector_index_item_count", "flat") == len(stored)
        assert metric("vector_index_size_bytes", "flat") == len(stored) * 16 * 4
        assert metric("vector_index_approximate", "flat") == 1
        memory = metric("vector_index_memory_bytes", "flat")
        assert len(stored) * 64 < memory, memory
        # A vector moved next to the query is its nearest at once; moved away, it is gone.
        target = [9.0] * 16
        ddb.put_item(TableName="big", Item={"pk": {"S": "k0001"}, "emb": vector(target), "half": {"S": "odd"}})
        top = ddb.search_vectors(TableName="big", IndexName="flat", SearchVector=search_vector(target), TopK=1)
        assert top["SearchResults"][0]["Item"]["pk"]["S"] == "k0001"
        ddb.delete_item(TableName="big", Key={"pk": {"S": "k0001"}})
        top = ddb.search_vectors(TableName="big", IndexName="flat", SearchVector=search_vector(target), TopK=5)
        assert "k0001" not in [r["Item"]["pk"]["S"] for r in top["SearchResults"]]
