//! The one table of the operations Kura serves. Everything that lists operations derives
//! from it: parsing `X-Amz-Target`, the dispatch (an exhaustive `match` on [`Op`], so an
//! operation added here does not compile until it has a handler), the metric label set,
//! and the control-plane operations authorized on the table they name (ADR 0019).

/// Which API of the shared port an operation belongs to (the `X-Amz-Target` prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `DynamoDB_20120810.<Op>`
    DynamoDb,
    /// `DynamoDBStreams_20120810.<Op>`
    Streams,
}

/// How the pipeline authorizes an operation before its handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Control plane: authorized on the table it names (or `*`) from its raw body.
    Control,
    /// Items, PartiQL, backups, streams: the handler authorizes from its parsed input
    /// (condition keys need the keys and attributes it names).
    Input,
}

macro_rules! operations {
    ($($op:ident: $api:ident, $guard:ident;)*) => {
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
                    $(Op::$op => stringify!($op),)*
                }
            }

            pub fn api(self) -> Api {
                match self {
                    $(Op::$op => Api::$api,)*
                }
            }

            pub fn guard(self) -> Guard {
                match self {
                    $(Op::$op => Guard::$guard,)*
                }
            }
        }
    };
}

operations! {
    BatchExecuteStatement: DynamoDb, Input;
    BatchGetItem: DynamoDb, Input;
    BatchWriteItem: DynamoDb, Input;
    CreateBackup: DynamoDb, Input;
    CreateTable: DynamoDb, Control;
    DeleteBackup: DynamoDb, Input;
    DeleteItem: DynamoDb, Input;
    DeleteResourcePolicy: DynamoDb, Control;
    DeleteTable: DynamoDb, Control;
    DescribeBackup: DynamoDb, Input;
    DescribeContinuousBackups: DynamoDb, Control;
    DescribeContributorInsights: DynamoDb, Control;
    DescribeEndpoints: DynamoDb, Control;
    DescribeExport: DynamoDb, Input;
    DescribeImport: DynamoDb, Input;
    DescribeLimits: DynamoDb, Control;
    DescribeStream: Streams, Input;
    DescribeTable: DynamoDb, Control;
    DescribeTimeToLive: DynamoDb, Control;
    ExecuteStatement: DynamoDb, Input;
    ExecuteTransaction: DynamoDb, Input;
    ExportTableToPointInTime: DynamoDb, Input;
    GetItem: DynamoDb, Input;
    GetRecords: Streams, Input;
    GetResourcePolicy: DynamoDb, Control;
    GetShardIterator: Streams, Input;
    ImportTable: DynamoDb, Input;
    ListBackups: DynamoDb, Input;
    ListContributorInsights: DynamoDb, Control;
    ListExports: DynamoDb, Input;
    ListImports: DynamoDb, Input;
    ListStreams: Streams, Input;
    ListTables: DynamoDb, Control;
    ListTagsOfResource: DynamoDb, Control;
    PutItem: DynamoDb, Input;
    PutResourcePolicy: DynamoDb, Control;
    Query: DynamoDb, Input;
    RestoreTableFromBackup: DynamoDb, Input;
    RestoreTableToPointInTime: DynamoDb, Input;
    Scan: DynamoDb, Input;
    SearchVectors: DynamoDb, Input;
    TagResource: DynamoDb, Control;
    TransactGetItems: DynamoDb, Input;
    TransactWriteItems: DynamoDb, Input;
    UntagResource: DynamoDb, Control;
    UpdateContinuousBackups: DynamoDb, Control;
    UpdateContributorInsights: DynamoDb, Control;
    UpdateItem: DynamoDb, Input;
    UpdateTable: DynamoDb, Control;
    UpdateTimeToLive: DynamoDb, Control;
}

impl Op {
    /// The operation `name` of `api`, if Kura serves it there (a binary search: the table
    /// is in name order).
    pub fn parse(api: Api, name: &str) -> Option<Op> {
        let at = Op::ALL.binary_search_by(|op| op.name().cmp(name)).ok()?;
        let op = Op::ALL[at];
        (op.api() == api).then_some(op)
    }

    /// Its place in [`Op::ALL`].
    pub fn index(self) -> usize {
        self as usize
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
        assert!(Op::ALL.windows(2).all(|w| w[0].name() < w[1].name()));
        for (i, op) in Op::ALL.iter().enumerate() {
            assert_eq!(op.index(), i);
            assert_eq!(Op::parse(op.api(), op.name()), Some(*op));
        }
        assert_eq!(Op::ALL.len(), 50);
    }

    #[test]
    fn an_operation_belongs_to_one_api() {
        assert_eq!(Op::parse(Api::DynamoDb, "GetItem"), Some(Op::GetItem));
        assert_eq!(Op::parse(Api::Streams, "GetRecords"), Some(Op::GetRecords));
        assert_eq!(Op::parse(Api::Streams, "GetItem"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "GetRecords"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "Nope"), None);
        assert_eq!(Op::parse(Api::DynamoDb, "getitem"), None);
    }

    #[test]
    fn control_operations_are_the_table_and_account_ones() {
        let control: Vec<&str> = Op::ALL
            .iter()
            .filter(|op| op.guard() == Guard::Control)
            .map(|op| op.name())
            .collect();
        assert_eq!(control.len(), 20);
        assert!(control.contains(&"CreateTable"));
        assert!(!control.contains(&"PutItem"));
    }
}
