//! The steps every operation takes before the engine, written once ([`begin`]): parse,
//! prepare, label the metrics, offer the request to the interceptor (fault injection),
//! authorize, admit. What differs between operations is what [`Input`] reads off its
//! typed input, implemented beside each family's handlers; a handler is then its engine
//! call (and, for item writes, its MRSC hold).

use kura_engine::EngineError;
use kura_engine::expr::partiql::lower::Lowered;
use kura_model::wire::ItemJson;
use serde::de::DeserializeOwned;

use super::Call;
use crate::authz::{self, Check, Scope};
use crate::error::ApiError;
use crate::intercept::Named;
use crate::operation::{Op, Plane};

/// An operation's typed input, as the steps before the engine read it: one answer per
/// input to "which tables does this request name", for the metrics, fault injection,
/// admission and authorization alike.
pub(crate) trait Input: DeserializeOwned {
    /// Reads once what several steps read (PartiQL: parses and binds each statement).
    fn prepare(&mut self) {}

    /// The tables the request names, each once, in the order it names them.
    fn tables(&self) -> Vec<&str> {
        Vec::new()
    }

    /// The one item a single-item request addresses: its key, or a Put's whole item.
    fn item(&self) -> Option<&ItemJson> {
        None
    }

    /// The IAM checks of every action the request performs (`op` is the operation it
    /// was sent as: some inputs serve two).
    fn checks(&self, scope: &Scope<'_>, op: Op) -> Vec<Check>;

    /// Capacity emulation at the door (`--enforce-capacity`); data-plane requests only.
    /// A batch admits nothing here: it admits table by table as it runs, leaving a
    /// throttled table's requests unprocessed instead of failing.
    fn admit(&self, _call: &Call<'_>) -> Result<(), ApiError> {
        Ok(())
    }
}

/// The steps before the engine, for every operation: parse the body (shape errors are
/// SerializationException), prepare, label a data-plane request's metrics with the
/// tables it names, let the interceptor delay or answer it, authorize, admit.
pub(crate) async fn begin<I: Input>(call: &Call<'_>) -> Result<I, ApiError> {
    let mut input: I = call.input()?;
    input.prepare();
    let tables = input.tables();
    // CloudWatch's per-table request metrics are the data plane's.
    let labelled = call.op.plane() == Plane::Data;
    if labelled {
        label(call, &tables);
    }
    if let Some(interceptor) = call.interceptor {
        let named = Named {
            tables: &tables,
            partition: partition_of(call, &tables, input.item()),
        };
        if let Some(interception) = interceptor.intercept(call.op.name(), &named) {
            if !interception.latency.is_zero() {
                tokio::time::sleep(interception.latency).await;
            }
            if let Some(error) = interception.error {
                // An injected error is charged to the tables it was injected on.
                if !labelled {
                    label(call, &tables);
                }
                return Err(error);
            }
        }
    }
    authz::authorize(call, |scope| input.checks(scope, call.op))?;
    input.admit(call)?;
    Ok(input)
}

fn label(call: &Call<'_>, tables: &[&str]) {
    for table in tables {
        call.observation.table(table);
    }
}

/// The partition key value of the item a request addresses, as sent (for fault rules
/// that match a key).
fn partition_of<'a>(
    call: &Call<'_>,
    tables: &[&str],
    item: Option<&'a ItemJson>,
) -> Option<&'a str> {
    let item = item?;
    let attribute = call.schemas.partition_keys(tables.first()?, None)?;
    item.get(attribute.first()?)?.key_text()
}

/// Each of `tables` once, in order. In time linear in their number: this runs before the
/// engine's limits (100 actions a transaction), on whatever a 16 MB body lists.
pub(super) fn once<'a>(tables: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = std::collections::HashSet::new();
    tables
        .into_iter()
        .filter(|table| seen.insert(*table))
        .collect()
}

/// The table a PartiQL statement reads or writes, once it parsed and bound.
pub(super) fn statement_table(prepared: Option<&Result<Lowered, EngineError>>) -> Option<&str> {
    match prepared {
        Some(Ok(lowered)) => Some(lowered.source().table.as_str()),
        _ => None,
    }
}

/// The control plane's inputs: authorized as the operation itself on the table they name
/// (by `TableName`, or by `ResourceArn`), or on `*` (`-`: they name none), and offered to
/// fault rules with that table.
macro_rules! control_inputs {
    (@table $self:ident table_name) => { $self.table_name.as_deref() };
    (@table $self:ident resource_arn) => { None };
    (@table $self:ident -) => { None };
    (@arn $self:ident resource_arn) => { $self.resource_arn.as_deref() };
    (@arn $self:ident $other:tt) => { None };
    ($($input:ty => $field:tt;)*) => {$(
        impl $crate::ops::input::Input for $input {
            fn tables(&self) -> Vec<&str> {
                control_inputs!(@table self $field).into_iter().collect()
            }

            fn checks(
                &self,
                scope: &$crate::authz::Scope<'_>,
                op: $crate::operation::Op,
            ) -> Vec<$crate::authz::Check> {
                let table = control_inputs!(@table self $field);
                $crate::authz::control(scope, op, table, control_inputs!(@arn self $field))
            }
        }
    )*};
}
pub(super) use control_inputs;

/// An operation that reads nothing from its body (DescribeLimits, DescribeEndpoints).
#[derive(serde::Deserialize)]
pub(super) struct NoMembers {}

control_inputs! {
    NoMembers => -;
}

/// Inputs whose checks are one function of their family's authorization module, and
/// that name no table for the metrics or fault rules beyond what the checks say.
macro_rules! checked_inputs {
    ($($input:ty => |$scope:ident, $op:tt, $this:ident| $checks:expr;)*) => {$(
        impl $crate::ops::input::Input for $input {
            fn checks(
                &self,
                $scope: &$crate::authz::Scope<'_>,
                $op: $crate::operation::Op,
            ) -> Vec<$crate::authz::Check> {
                let $this = self;
                $checks
            }
        }
    )*};
}
pub(super) use checked_inputs;

#[cfg(test)]
mod tests {
    use super::once;

    #[test]
    fn each_table_is_named_once_in_the_order_first_named() {
        assert_eq!(once(["b", "a", "b", "c", "a"]), ["b", "a", "c"]);
        assert!(once([]).is_empty());
        let many: Vec<String> = (0..200_000).map(|i| format!("t{i}")).collect();
        let named = once(many.iter().map(String::as_str).chain(["t0", "t1"]));
        assert_eq!(named.len(), 200_000);
        assert_eq!(named[..2], ["t0", "t1"]);
    }
}
