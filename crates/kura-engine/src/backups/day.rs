//! A day in milliseconds, the unit of backup and PITR retention.

pub const DAY_MS: i64 = 86_400_000;
