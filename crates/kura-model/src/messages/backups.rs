//! The texts of the backup, restore and point-in-time recovery operations.
//!
//! Sources: probes of real DynamoDB (us-east-1 and us-west-2, 2026-10-09) published as
//! the "ack-api-quirks" DynamoDB lab notes (`backup.md`, `table-restore.md`,
//! `details/DDB-TABLE-100.md`, `-442.md`, `-447.md`, `-457.md`); moto 5.2
//! `dynamodb/exceptions.py`, whose texts agree where both exist; a DynamoDB answer quoted
//! in turbot/steampipe-plugin-aws issue #1913. Where a capture was cut short, the
//! function says how the end was completed.

/// `TableNotFoundException` of CreateBackup, UpdateContinuousBackups,
/// DescribeContinuousBackups and RestoreTableToPointInTime (by name), also while the
/// table is still being created. Source: lab DDB-TABLE-447; moto.
pub fn table_not_found(name: &str) -> String {
    format!("Table not found: {name}")
}

/// RestoreTableToPointInTime by a `SourceTableArn` that names no table. Source: lab
/// DDB-TABLE-447 and -454.
pub const SOURCE_ARN_NOT_FOUND: &str = "Table not found";

/// `BackupNotFoundException`. Source: steampipe-plugin-aws #1913; lab DDB-BACKUP-005; moto.
pub fn backup_not_found(arn: &str) -> String {
    format!("Backup not found: {arn}")
}

/// A `BackupArn` that is not a backup ARN. Source: lab DDB-BACKUP-012, DDB-TABLE-457.
pub const INVALID_BACKUP_ARN: &str = "Invalid Backup ARN";

/// `BackupInUseException` of DeleteBackup while a restore from the backup runs. Source:
/// lab DDB-BACKUP-010.
pub fn backup_restoring(arn: &str) -> String {
    format!("Backup is being used to restore table: {arn}")
}

/// `BackupInUseException` of a second restore from a backup whose first is running.
/// Source: lab DDB-BACKUP-010.
pub fn backup_restoring_another(arn: &str) -> String {
    format!("Backup is being used to restore another table: {arn}")
}

/// `TableAlreadyExistsException` of a restore into an existing table. Source: lab
/// DDB-TABLE-100, -219, -275; moto.
pub fn table_already_exists(name: &str) -> String {
    format!("Table already exists: {name}")
}

/// `TableInUseException` of a restore into a table that a restore is filling. Source:
/// lab DDB-TABLE-219.
pub fn table_being_restored(name: &str, backup_arn: &str) -> String {
    format!("Table: {name} is already being restored from backup: {backup_arn}")
}

/// `PointInTimeRecoveryUnavailableException`. Source: lab DDB-TABLE-100, -272; moto.
pub fn pitr_not_enabled(name: &str) -> String {
    format!("Point in time recovery is not enabled for table '{name}'")
}

/// `InvalidRestoreTimeException`, times as ISO 8601 to the second with `Z`. Source: lab
/// DDB-TABLE-100 (captured up to "LatestRestor"; the end completed in the same form).
pub fn invalid_restore_time(at: &str, earliest: &str, latest: &str) -> String {
    format!(
        "RestoreDateTime '{at}' must be within EarliestRestorableDateTime '{earliest}' and LatestRestorableDateTime '{latest}'"
    )
}

/// Both restore-time members. Source: lab DDB-TABLE-100 (cut short); the whole text as
/// another emulator ("stackd") has it.
pub const BOTH_RESTORE_TIMES: &str = "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify either RestoreDateTime time or UseLatestRestorableTime";

/// Neither restore-time member. Source: lab DDB-TABLE-100, -272, -442.
pub const NO_RESTORE_TIME: &str = "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both";

/// Both `SourceTableName` and `SourceTableArn`. Source: lab DDB-TABLE-272, -442.
pub const BOTH_SOURCES: &str = "Must provide exactly one of: sourceTableArn, sourceTableName";

/// Neither source member. Source: lab DDB-TABLE-442.
pub const NO_SOURCE: &str =
    "The parameter 'TableName' is required but was not present in the request";

/// A `SourceTableArn` that is not a table ARN. Source: lab DDB-TABLE-272, -442.
pub const SOURCE_ARN_INVALID: &str = "sourceTableArn is not a valid ARN";

/// DeleteBackup of a SYSTEM backup. Source: lab DDB-TABLE-167, -442 (the time's format
/// was not captured whole; Kura writes ISO 8601 to the second).
pub fn system_backup_undeletable(arn: &str, expiry: &str) -> String {
    format!(
        "Invalid Request: User is not allowed to delete the system backup with arn {arn}. It will automatically expire on {expiry}"
    )
}

/// Source: lab DDB-TABLE-084, -442.
pub const RECOVERY_PERIOD_WHEN_DISABLING: &str =
    "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.";

/// ListBackups with the lower time bound after the upper. Source: lab DDB-TABLE-442.
pub const TIME_RANGE_INVERTED: &str = "One or more parameter values were invalid: Time range lower bound must be less than or equal to upper bound";

/// An index override that names no index of the source. Source: lab DDB-TABLE-273, -442.
pub fn unknown_index_override(index: &str) -> String {
    format!(
        "Invalid Request: Index {index} does not match a secondary index that existed in the source table and cannot be created during the restore operation"
    )
}

/// Source: lab DDB-TABLE-273, -442.
pub const THROUGHPUT_OVERRIDE_NOT_PROVISIONED: &str =
    "Invalid Request: Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED";
/// Source: lab DDB-TABLE-273, -442.
pub const THROUGHPUT_OVERRIDE_MISSING: &str = "Invalid Request: Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED";
/// Source: lab DDB-TABLE-273, -442.
pub const THROUGHPUT_OVERRIDE_PAY_PER_REQUEST: &str = "Invalid Request: Cannot override ProvisionedThroughput if BillingMode is overridden to PAY_PER_REQUEST";

/// RestoreTableFromBackup with an empty `TargetTableName` (a hand-written check, not the
/// framework's). Source: lab DDB-TABLE-457.
pub const TARGET_NAME_LENGTH: &str =
    "TableName must be at least 3 characters long and at most 255 characters long";

/// DeleteTable or UpdateTable of a table a restore is filling (it is CREATING). Source:
/// DynamoDB's ResourceInUseException for a table that is not ACTIVE ("... Table is being
/// updated: <name>" while UPDATING), with the state a restored table is in.
pub fn table_restoring(name: &str) -> String {
    format!("Attempt to change a resource which is still in use: Table is being created: {name}")
}
