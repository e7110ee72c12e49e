//! The background workers as the engine holds them: their job types and handles, apart from
//! what each does (restore, export, import, backfill), so holding one reaches none of that.

use crate::background::Worker;

/// One index to fill.
#[derive(Debug, Clone)]
pub struct BackfillJob {
    pub table: String,
    pub table_id: u64,
    pub index_number: u32,
}

/// The backfill thread.
pub type Backfiller = Worker<BackfillJob>;

/// The restore thread; jobs are target table ids.
pub type Restorer = Worker<u64>;

/// The export thread; jobs are export ids.
pub type Exporter = Worker<String>;

pub type Importer = Worker<String>;
