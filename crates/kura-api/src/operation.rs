//! The one table of the operations Kura serves. Everything that lists operations derives
//! from it: parsing `X-Amz-Target`, the dispatch (an exhaustive `match` on [`Op`], so an
//! operation added here does not compile until it has a handler), the metric label set,
//! the IAM action, and what the audit log and the console's charts need to know of each:
//! its plane and whether it writes. A new operation is placed in each column or does not
//! compile; how it is authorized is its input's (`ops::input::Input`, ADR 0019).

/// Which API of the shared port an operation belongs to (the `X-Amz-Target` prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `DynamoDB_20120810.<Op>`
    DynamoDb,
    /// `DynamoDBStreams_20120810.<Op>`
    Streams,
    /// `Kinesis_20131202.<Op>`: Kinesis Data Streams, JSON 1.1.
    Kinesis,
}

/// CloudTrail's split: data events are item-level operations, PartiQL and the Streams
/// record reads; everything else is a management event. The audit log files them so, and
/// the console's per-table charts sum the data plane only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plane {
    Data,
    Management,
}

/// Whether an operation changes anything (CloudTrail's `readOnly`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// ExecuteStatement: a SELECT reads, the others write.
    Statement,
}

/// An operation's name on the wire: the variant's, unless the row gives one (Kinesis's
/// operations share names with DynamoDB Streams', so their variants carry a prefix).
macro_rules! wire_name {
    ($op:ident) => {
        stringify!($op)
    };
    ($op:ident $wire:literal) => {
        $wire
    };
}

macro_rules! operations {
    ($($op:ident $($wire:literal)?: $api:ident, $plane:ident, $access:ident;)*) => {
        /// An operation Kura serves. The variants are in name order, so `op as usize` is
        /// its place in [`Op::ALL`] and the metrics' series come out sorted.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            $($op,)*
        }

        impl Op {
            /// Every operation, in name order.
            pub const ALL: &'static [Op] = &[$(Op::$op,)*];

            /// The name after the dot of `X-Amz-Target` (and the IAM action's).
            pub fn name(self) -> &'static str {
                match self {
                    $(Op::$op => wire_name!($op $($wire)?),)*
                }
            }

            /// The variant's name: unique across the APIs (metric labels, the order of
            /// [`Op::ALL`]).
            pub fn label(self) -> &'static str {
                match self {
                    $(Op::$op => stringify!($op),)*
                }
            }

            pub fn api(self) -> Api {
                match self {
                    $(Op::$op => Api::$api,)*
                }
            }

            pub fn plane(self) -> Plane {
                match self {
                    $(Op::$op => Plane::$plane,)*
                }
            }

            pub fn access(self) -> Access {
                match self {
                    $(Op::$op => Access::$access,)*
                }
            }
        }
    };
}

operations! {
    BatchExecuteStatement: DynamoDb, Data, Write;
    BatchGetItem: DynamoDb, Data, Read;
    BatchWriteItem: DynamoDb, Data, Write;
    CreateBackup: DynamoDb, Management, Write;
    CreateGlobalTable: DynamoDb, Management, Write;
    CreateTable: DynamoDb, Management, Write;
    DeleteBackup: DynamoDb, Management, Write;
    DeleteItem: DynamoDb, Data, Write;
    DeleteResourcePolicy: DynamoDb, Management, Write;
    DeleteTable: DynamoDb, Management, Write;
    DescribeBackup: DynamoDb, Management, Read;
    DescribeContinuousBackups: DynamoDb, Management, Read;
    DescribeContributorInsights: DynamoDb, Management, Read;
    DescribeEndpoints: DynamoDb, Management, Read;
    DescribeExport: DynamoDb, Management, Read;
    DescribeGlobalTable: DynamoDb, Management, Read;
    DescribeGlobalTableSettings: DynamoDb, Management, Read;
    DescribeImport: DynamoDb, Management, Read;
    DescribeKinesisStreamingDestination: DynamoDb, Management, Read;
    DescribeLimits: DynamoDb, Management, Read;
    DescribeStream: Streams, Management, Read;
    DescribeTable: DynamoDb, Management, Read;
    DescribeTableReplicaAutoScaling: DynamoDb, Management, Read;
    DescribeTimeToLive: DynamoDb, Management, Read;
    DisableKinesisStreamingDestination: DynamoDb, Management, Write;
    EnableKinesisStreamingDestination: DynamoDb, Management, Write;
    ExecuteStatement: DynamoDb, Data, Statement;
    ExecuteTransaction: DynamoDb, Data, Write;
    ExportTableToPointInTime: DynamoDb, Management, Write;
    GetItem: DynamoDb, Data, Read;
    GetRecords: Streams, Data, Read;
    GetResourcePolicy: DynamoDb, Management, Read;
    GetShardIterator: Streams, Data, Read;
    ImportTable: DynamoDb, Management, Write;
    KinesisAddTagsToStream "AddTagsToStream": Kinesis, Management, Write;
    KinesisCreateStream "CreateStream": Kinesis, Management, Write;
    KinesisDecreaseStreamRetentionPeriod "DecreaseStreamRetentionPeriod": Kinesis, Management, Write;
    KinesisDeleteStream "DeleteStream": Kinesis, Management, Write;
    KinesisDescribeStream "DescribeStream": Kinesis, Management, Read;
    KinesisDescribeStreamSummary "DescribeStreamSummary": Kinesis, Management, Read;
    KinesisGetRecords "GetRecords": Kinesis, Data, Read;
    KinesisGetShardIterator "GetShardIterator": Kinesis, Data, Read;
    KinesisIncreaseStreamRetentionPeriod "IncreaseStreamRetentionPeriod": Kinesis, Management, Write;
    KinesisListShards "ListShards": Kinesis, Management, Read;
    KinesisListStreams "ListStreams": Kinesis, Management, Read;
    KinesisListTagsForStream "ListTagsForStream": Kinesis, Management, Read;
    KinesisMergeShards "MergeShards": Kinesis, Management, Write;
    KinesisPutRecord "PutRecord": Kinesis, Data, Write;
    KinesisPutRecords "PutRecords": Kinesis, Data, Write;
    KinesisRemoveTagsFromStream "RemoveTagsFromStream": Kinesis, Management, Write;
    KinesisSplitShard "SplitShard": Kinesis, Management, Write;
    KinesisUpdateShardCount "UpdateShardCount": Kinesis, Management, Write;
    ListBackups: DynamoDb, Management, Read;
    ListContributorInsights: DynamoDb, Management, Read;
    ListExports: DynamoDb, Management, Read;
    ListGlobalTables: DynamoDb, Management, Read;
    ListImports: DynamoDb, Management, Read;
    ListStreams: Streams, Management, Read;
    ListTables: DynamoDb, Management, Read;
    ListTagsOfResource: DynamoDb, Management, Read;
    PutItem: DynamoDb, Data, Write;
    PutResourcePolicy: DynamoDb, Management, Write;
    Query: DynamoDb, Data, Read;
    RestoreTableFromBackup: DynamoDb, Management, Write;
    RestoreTableToPointInTime: DynamoDb, Management, Write;
    Scan: DynamoDb, Data, Read;
    SearchVectors: DynamoDb, Data, Read;
    TagResource: DynamoDb, Management, Write;
    TransactGetItems: DynamoDb, Data, Read;
    TransactWriteItems: DynamoDb, Data, Write;
    UntagResource: DynamoDb, Management, Write;
    UpdateContinuousBackups: DynamoDb, Management, Write;
    UpdateContributorInsights: DynamoDb, Management, Write;
    UpdateGlobalTable: DynamoDb, Management, Write;
    UpdateGlobalTableSettings: DynamoDb, Management, Write;
    UpdateItem: DynamoDb, Data, Write;
    UpdateKinesisStreamingDestination: DynamoDb, Management, Write;
    UpdateTable: DynamoDb, Management, Write;
    UpdateTableReplicaAutoScaling: DynamoDb, Management, Write;
    UpdateTimeToLive: DynamoDb, Management, Write;
}

impl Op {
    /// The operation `name` of `api`, if Kura serves it there (a binary search: the table
    /// is in variant order, and a DynamoDB or Streams operation's variant is its name).
    pub fn parse(api: Api, name: &str) -> Option<Op> {
        let op = match api {
            Api::DynamoDb | Api::Streams => {
                let at = Op::ALL.binary_search_by(|op| op.label().cmp(name)).ok()?;
                Op::ALL[at]
            }
            // Fifteen operations, looked for in the whole table: no second list to keep.
            Api::Kinesis => *Op::ALL
                .iter()
                .find(|op| op.api() == Api::Kinesis && op.name() == name)?,
        };
        (op.api() == api && op.name() == name).then_some(op)
    }

    /// Its place in [`Op::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The service prefix of its IAM action: DynamoDB Streams' operations are
    /// authorized as `dynamodb:` actions ("Using IAM with DynamoDB Streams"), Kinesis's as
    /// `kinesis:` ones.
    pub fn iam_service(self) -> &'static str {
        match self.api() {
            Api::DynamoDb | Api::Streams => "dynamodb",
            Api::Kinesis => "kinesis",
        }
    }

    /// The IAM action that authorizes it, as policies and AccessDenied messages name it
    /// (`dynamodb:GetItem`, `kinesis:PutRecord`).
    pub fn iam_action(self) -> String {
        format!("{}:{}", self.iam_service(), self.name())
    }
}

/// Real DynamoDB operations that a later issue implements: they get a precise
/// ValidationException instead of UnknownOperationException (none at the moment; the list
/// stays so that a planned operation is refused in words).
pub const LATER: &[&str] = &[];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_name_order_and_indexes_itself() {
        assert!(Op::ALL.windows(2).all(|w| w[0].label() < w[1].label()));
        for (i, op) in Op::ALL.iter().enumerate() {
            assert_eq!(op.index(), i);
            assert_eq!(Op::parse(op.api(), op.name()), Some(*op));
            // A wire name differs from its variant only to keep a Kinesis name apart.
            match op.api() {
                Api::Kinesis => assert_eq!(op.label(), format!("Kinesis{}", op.name())),
                _ => assert_eq!(op.label(), op.name()),
            }
        }
        assert_eq!(Op::ALL.len(), 80);
    }

    /// Every operation's IAM action is its service's prefix and its wire name, so a row
    /// added to the table is authorized under the action AWS documents for it.
    #[test]
    fn iam_actions_follow_the_api() {
        for op in Op::ALL {
            let (service, action) = op
                .iam_action()
                .split_once(':')
                .map(|(s, a)| (s.to_owned(), a.to_owned()))
                .expect("service:action");
            assert_eq!(action, op.name());
            assert_eq!(
                service,
                if op.api() == Api::Kinesis {
                    "kinesis"
                } else {
                    "dynamodb"
                }
            );
        }
        assert_eq!(Op::GetRecords.iam_action(), "dynamodb:GetRecords");
        assert_eq!(Op::KinesisGetRecords.iam_action(), "kinesis:GetRecords");
    }

    /// CloudTrail's data events for DynamoDB (its "Logging DynamoDB operations by using
    /// AWS CloudTrail" page), and reads by the IAM read-only actions' rule.
    #[test]
    fn the_data_plane_and_the_reads_are_cloudtrails() {
        let data: Vec<&str> = Op::ALL
            .iter()
            .filter(|op| op.plane() == Plane::Data && op.api() != Api::Kinesis)
            .map(|op| op.name())
            .collect();
        assert_eq!(
            data,
            [
                "BatchExecuteStatement",
                "BatchGetItem",
                "BatchWriteItem",
                "DeleteItem",
                "ExecuteStatement",
                "ExecuteTransaction",
                "GetItem",
                "GetRecords",
                "GetShardIterator",
                "PutItem",
                "Query",
                "Scan",
                "SearchVectors",
                "TransactGetItems",
                "TransactWriteItems",
                "UpdateItem",
            ]
        );
        // Kinesis's data events (CloudTrail's "Kinesis Data Streams data events").
        let kinesis: Vec<&str> = Op::ALL
            .iter()
            .filter(|op| op.plane() == Plane::Data && op.api() == Api::Kinesis)
            .map(|op| op.name())
            .collect();
        assert_eq!(
            kinesis,
            ["GetRecords", "GetShardIterator", "PutRecord", "PutRecords"]
        );
        for op in Op::ALL {
            let reads = [
                "Get", "Describe", "List", "Query", "Scan", "Search", "BatchGet",
            ]
            .iter()
            .any(|p| op.name().starts_with(p))
                || *op == Op::TransactGetItems;
            match op.access() {
                Access::Read => assert!(reads, "{op:?}"),
                Access::Write => assert!(!reads, "{op:?}"),
                Access::Statement => assert_eq!(*op, Op::ExecuteStatement),
            }
        }
    }

    #[test]
    fn an_operation_belongs_to_one_api() {
        assert_eq!(Op::parse(Api::DynamoDb, "GetItem"), Some(Op::GetItem));
        assert_eq!(Op::parse(Api::Streams, "GetRecords"), Some(Op::GetRecords));
        assert_eq!(Op::parse(Api::Streams, "GetItem"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "GetRecords"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "Nope"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "getitem"), None);
        assert_eq!(
            Op::parse(Api::Kinesis, "GetRecords"),
            Some(Op::KinesisGetRecords)
        );
        assert_eq!(Op::parse(Api::Kinesis, "GetItem"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "PutRecord"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "KinesisPutRecord"), None);
    }
}
