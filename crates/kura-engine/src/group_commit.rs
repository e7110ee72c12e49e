//! The write path's sequencer and group commit. It knows the store and nothing of what
//! the jobs it runs write: its owner (the engine's [`crate::writer`]) hands every job an
//! environment of its own type.
//!
//! One thread applies every write. It takes all jobs waiting in its queue as one group,
//! runs each job against the state left by the jobs before it (so conditions and
//! read-modify-write are serializable), gathers their writes into one batch, commits and
//! syncs that batch once, and only then answers every job of the group. While it syncs,
//! new jobs queue up and form the next group, so concurrent writers share syncs.
//!
//! A job that fails leaves no writes. A job marked exclusive (catalog changes) runs in a
//! group of its own, so the catalog never changes in the middle of a group. After a failed
//! commit the writer is poisoned: the durable state is unknown, so it refuses every later
//! write instead of going on.
//!
//! A store that is not durable (`--in-memory`) has no sync to share, so there is no thread:
//! each job runs as a group of one on the caller's thread, under a lock that keeps jobs
//! serial. Handing a write to a thread and waking the caller again cost more than the
//! write itself (ADR 0021).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use parking_lot::Mutex;
use tokio::sync::oneshot;

use crate::clock::Clock;
use crate::counters::{Counters, WriterCounters};
use crate::error::{EngineError, Result};
use kura_store::{Snapshot, Space, Store, WriteBatch};

/// Most jobs in one group: bounds the batch size and the latency of the group's first job.
const MAX_GROUP: usize = 512;

type AfterCommit = Box<dyn FnOnce() + Send>;
type Reply = Box<dyn FnOnce(Result<()>) + Send>;
/// A job's one call: run against the group's context, or be refused without running.
/// Running returns whether its writes stand, and the reply to send after the commit.
type RunJob<E> = Box<dyn FnOnce(Turn<'_, '_, E>) -> Option<(bool, Reply)> + Send>;

enum Turn<'c, 'a, E> {
    Run(&'c mut JobContext<'a, E>),
    Refuse(EngineError),
}

struct Job<E> {
    exclusive: bool,
    run: RunJob<E>,
}

/// What a job sees and does: reads through the writes of earlier jobs in its group, and
/// the writer's environment `E` (what its owner hands every job; the group commit never
/// looks into it).
pub struct JobContext<'a, E> {
    snapshot: &'a dyn Snapshot,
    group: &'a WriteBatch,
    env: &'a E,
    clock: &'a dyn Clock,
    job: WriteBatch,
    after_commit: Vec<AfterCommit>,
    stamps: &'a mut ChangeStamps,
}

/// The writer's change stamps: microseconds since the epoch by the engine's clock, made
/// strictly increasing, so they order every change of every table. Backups and
/// point-in-time restores are positions in this order.
#[derive(Debug, Default)]
pub struct ChangeStamps {
    last: u64,
}

impl ChangeStamps {
    fn next(&mut self, clock: &dyn Clock) -> u64 {
        let now = u64::try_from(clock.now_ms())
            .unwrap_or(0)
            .saturating_mul(1000);
        self.last = now.max(self.last + 1);
        self.last
    }
}

impl<E> JobContext<'_, E> {
    /// The current value of a key, including earlier writes of this job and group.
    pub fn get(&self, space: Space, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(v) = self.job.get(space, key) {
            return Ok(v.map(<[u8]>::to_vec));
        }
        if let Some(v) = self.group.get(space, key) {
            return Ok(v.map(<[u8]>::to_vec));
        }
        Ok(self.snapshot.get(space, key)?)
    }

    /// The environment the writer was started with.
    pub fn env(&self) -> &E {
        self.env
    }

    /// The engine's clock: stream record times, shard ages, item expiry.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    pub fn put(&mut self, space: Space, key: Vec<u8>, value: Vec<u8>) {
        self.job.put(space, key, value);
    }

    pub fn delete(&mut self, space: Space, key: Vec<u8>) {
        self.job.delete(space, key);
    }

    /// A change stamp later than every one handed out before (see [`ChangeStamps`]).
    pub fn next_stamp(&mut self) -> u64 {
        self.stamps.next(self.clock)
    }

    /// Runs `f` once this job's writes are durable, before the next group starts (used to
    /// publish catalog changes): on the writer thread, or in memory under the writer's lock.
    pub fn after_commit(&mut self, f: impl FnOnce() + Send + 'static) {
        self.after_commit.push(Box::new(f));
    }
}

/// The handle through which every write reaches the writer thread (or, in memory, runs
/// under the writer's lock). `E` is what every job sees besides the store.
pub struct GroupCommit<E> {
    mode: Mode<E>,
    poisoned: Arc<AtomicBool>,
}

enum Mode<E> {
    /// A durable store: jobs queue for the writer thread, which groups them per sync.
    Thread {
        queue: Mutex<Option<mpsc::Sender<Job<E>>>>,
        thread: Mutex<Option<JoinHandle<()>>>,
    },
    /// A store that is not durable: jobs run on the caller's thread.
    Inline(Inline<E>),
}

/// The writer of a store without syncs: what the thread would hold, behind one lock.
struct Inline<E> {
    store: Arc<dyn Store>,
    env: E,
    clock: Arc<dyn Clock>,
    counters: Arc<Counters>,
    state: Mutex<InlineState>,
}

struct InlineState {
    stamps: ChangeStamps,
    /// Writes for the next commit to carry (see [`Writer::start`]).
    carried: WriteBatch,
    /// Whether jobs are still taken (false after shutdown).
    open: bool,
}

impl<E> Inline<E> {
    fn run(&self, job: Job<E>, poisoned: &AtomicBool) {
        let mut state = self.state.lock();
        let InlineState {
            stamps,
            carried,
            open,
        } = &mut *state;
        if !*open {
            refuse(job, EngineError::ShuttingDown);
            return;
        }
        // As on the writer thread, a panic is a bug that leaves the state of the job's
        // write unknown: refuse every later write. The job's reply is dropped while
        // unwinding, so its caller gets ShuttingDown, not a panic of its own.
        let run = std::panic::AssertUnwindSafe(|| {
            let env = GroupEnv {
                env: &self.env,
                clock: self.clock.as_ref(),
                counters: &self.counters.writer,
            };
            run_group(
                self.store.as_ref(),
                vec![job],
                poisoned,
                stamps,
                carried,
                &env,
            );
        });
        if std::panic::catch_unwind(run).is_err() {
            poisoned.store(true, Ordering::SeqCst);
            tracing::error!("a write job panicked; refusing all further writes");
        }
    }
}

impl<E: Send + Sync + 'static> GroupCommit<E> {
    /// Starts the writer of `store`. `carried` goes into the first commit that writes
    /// anything (a new store's format marker: written with the first data, a new data
    /// directory does not create a key space before it is used).
    pub fn start(
        store: Arc<dyn Store>,
        env: E,
        clock: Arc<dyn Clock>,
        counters: Arc<Counters>,
        carried: WriteBatch,
    ) -> GroupCommit<E> {
        let poisoned = Arc::new(AtomicBool::new(false));
        if !store.is_durable() {
            return GroupCommit {
                mode: Mode::Inline(Inline {
                    store,
                    env,
                    clock,
                    counters,
                    state: Mutex::new(InlineState {
                        stamps: ChangeStamps::default(),
                        carried,
                        open: true,
                    }),
                }),
                poisoned,
            };
        }
        let (tx, rx) = mpsc::channel::<Job<E>>();
        let flag = poisoned.clone();
        let thread = std::thread::Builder::new()
            .name("kura-writer".into())
            .spawn(move || {
                // A panic here is a bug; the durable state of the group is unknown, so the
                // engine must refuse writes rather than report ShuttingDown forever.
                let run = std::panic::AssertUnwindSafe(|| {
                    let env = GroupEnv {
                        env: &env,
                        clock: clock.as_ref(),
                        counters: &counters.writer,
                    };
                    run(store.as_ref(), &rx, &flag, carried, &env)
                });
                if std::panic::catch_unwind(run).is_err() {
                    flag.store(true, Ordering::SeqCst);
                    tracing::error!("the writer thread panicked; refusing all further writes");
                }
            })
            .ok();
        if thread.is_none() {
            tracing::error!("could not start the writer thread; writes are refused");
            poisoned.store(true, Ordering::SeqCst);
        }
        GroupCommit {
            mode: Mode::Thread {
                queue: Mutex::new(Some(tx)),
                thread: Mutex::new(thread),
            },
            poisoned,
        }
    }

    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    /// Runs `f` as a write job (on the writer thread, or in memory on this thread) and
    /// waits until its writes are durable.
    pub async fn submit<R, F>(&self, exclusive: bool, f: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut JobContext<'_, E>) -> Result<R> + Send + 'static,
    {
        let rx = self.enqueue(exclusive, f)?;
        rx.await.map_err(|_| EngineError::ShuttingDown)?
    }

    /// [`Writer::submit`] for threads outside the async runtime.
    pub fn submit_blocking<R, F>(&self, exclusive: bool, f: F) -> Result<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut JobContext<'_, E>) -> Result<R> + Send + 'static,
    {
        let rx = self.enqueue(exclusive, f)?;
        rx.blocking_recv().map_err(|_| EngineError::ShuttingDown)?
    }

    fn enqueue<R, F>(&self, exclusive: bool, f: F) -> Result<oneshot::Receiver<Result<R>>>
    where
        R: Send + 'static,
        F: FnOnce(&mut JobContext<'_, E>) -> Result<R> + Send + 'static,
    {
        if self.is_poisoned() {
            return Err(EngineError::Poisoned);
        }
        let (tx, rx) = oneshot::channel();
        let run: RunJob<E> = Box::new(move |turn| match turn {
            Turn::Refuse(error) => {
                let _receiver_gone = tx.send(Err(error));
                None
            }
            Turn::Run(ctx) => {
                let outcome = f(ctx);
                let keep = outcome.is_ok();
                let reply: Reply = Box::new(move |committed: Result<()>| {
                    // A job's own failure wins over the group's commit result.
                    let _receiver_gone = tx.send(outcome.and_then(|r| committed.map(|()| r)));
                });
                Some((keep, reply))
            }
        });
        let job = Job { exclusive, run };
        match &self.mode {
            // The reply is in `rx` when this returns.
            Mode::Inline(inline) => inline.run(job, &self.poisoned),
            Mode::Thread { queue, .. } => {
                let queue = queue.lock();
                let sender = queue.as_ref().ok_or(EngineError::ShuttingDown)?;
                sender.send(job).map_err(|_| EngineError::ShuttingDown)?;
            }
        }
        Ok(rx)
    }
}

impl<E> GroupCommit<E> {
    /// Finishes every queued job, then stops the thread. In memory: waits for the job that
    /// runs now and refuses every later one.
    pub fn shutdown(&self) {
        match &self.mode {
            // Waits for the job that runs now; later ones are refused.
            Mode::Inline(inline) => inline.state.lock().open = false,
            Mode::Thread { queue, thread } => {
                drop(queue.lock().take());
                if let Some(handle) = thread.lock().take()
                    && handle.join().is_err()
                {
                    tracing::error!("the writer thread panicked");
                }
            }
        }
    }
}

impl<E> Drop for GroupCommit<E> {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn run<E>(
    store: &dyn Store,
    rx: &mpsc::Receiver<Job<E>>,
    poisoned: &AtomicBool,
    mut carried: WriteBatch,
    env: &GroupEnv<'_, E>,
) {
    let mut pending: Vec<Job<E>> = Vec::new();
    let mut stamps = ChangeStamps::default();
    loop {
        if pending.is_empty() {
            match rx.recv() {
                Ok(job) => pending.push(job),
                Err(_) => return, // every sender is gone: shut down
            }
        }
        while pending.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(job) => pending.push(job),
                Err(_) => break,
            }
        }
        // The next group: one exclusive job alone, or the shared jobs before the next one.
        let take = match pending.iter().position(|j| j.exclusive) {
            Some(0) => 1,
            Some(i) => i,
            None => pending.len(),
        };
        let group: Vec<Job<E>> = pending.drain(..take).collect();
        run_group(store, group, poisoned, &mut stamps, &mut carried, env);
    }
}

/// What every group of the writer runs with.
struct GroupEnv<'a, E> {
    env: &'a E,
    clock: &'a dyn Clock,
    counters: &'a WriterCounters,
}

fn run_group<E>(
    store: &dyn Store,
    group: Vec<Job<E>>,
    poisoned: &AtomicBool,
    stamps: &mut ChangeStamps,
    carried: &mut WriteBatch,
    group_env: &GroupEnv<'_, E>,
) {
    let GroupEnv {
        env,
        clock,
        counters,
    } = *group_env;
    if poisoned.load(Ordering::SeqCst) {
        for job in group {
            refuse(job, EngineError::Poisoned);
        }
        return;
    }
    let snapshot = match store.snapshot() {
        Ok(s) => s,
        Err(e) => {
            for job in group {
                refuse(job, EngineError::Internal(e.to_string()));
            }
            return;
        }
    };
    let mut batch = WriteBatch::default();
    let mut replies: Vec<Reply> = Vec::with_capacity(group.len());
    let mut after: Vec<AfterCommit> = Vec::new();
    for job in group {
        let mut ctx = JobContext {
            snapshot: snapshot.as_ref(),
            group: &batch,
            env,
            clock,
            job: WriteBatch::default(),
            after_commit: Vec::new(),
            stamps,
        };
        let Some((keep, reply)) = (job.run)(Turn::Run(&mut ctx)) else {
            continue;
        };
        let JobContext {
            job: writes,
            after_commit,
            ..
        } = ctx;
        // A failed job leaves no writes and no follow-up actions.
        if keep {
            batch.absorb(writes);
            after.extend(after_commit);
        }
        replies.push(reply);
    }
    drop(snapshot);
    let committed = if batch.is_empty() {
        Ok(())
    } else {
        counters.group_size.observe(replies.len() as f64);
        // A failed commit poisons the writer, so what is carried is never needed again.
        batch.absorb(std::mem::take(carried));
        let started = std::time::Instant::now();
        let committed = store.commit(batch);
        counters
            .commit_seconds
            .observe(started.elapsed().as_secs_f64());
        committed.map_err(|e| {
            poisoned.store(true, Ordering::SeqCst);
            tracing::error!(error = %e, "commit failed; refusing all further writes");
            EngineError::Internal(format!("the write could not be made durable: {e}"))
        })
    };
    if committed.is_ok() {
        for f in after {
            f();
        }
    }
    for reply in replies {
        reply(committed.clone());
    }
}

fn refuse<E>(job: Job<E>, error: EngineError) {
    let _never_runs = (job.run)(Turn::Refuse(error));
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::GroupCommit;
    use crate::clock::SystemClock;
    use crate::counters::Counters;
    use kura_store::fjall_store::FjallStore;
    use kura_store::memory::MemoryStore;
    use kura_store::{Space, Store, WriteBatch};

    type Writer = GroupCommit<()>;

    fn writer(store: Arc<dyn Store>) -> Writer {
        Writer::start(
            store,
            (),
            Arc::new(SystemClock),
            Arc::new(Counters::default()),
            WriteBatch::default(),
        )
    }

    /// Which thread ran a job that wrote `key`, and whether the write is there after it.
    fn run_one(writer: &Writer, store: &dyn Store, key: &[u8]) -> (std::thread::ThreadId, bool) {
        let key_owned = key.to_vec();
        let ran_on = writer
            .submit_blocking(false, move |w| {
                w.put(Space::Meta, key_owned, b"v".to_vec());
                Ok(std::thread::current().id())
            })
            .expect("the job runs");
        let stored = store.snapshot().expect("snapshot").get(Space::Meta, key);
        (ran_on, stored.expect("read").is_some())
    }

    #[test]
    fn in_memory_jobs_run_on_the_callers_thread_and_are_committed_on_return() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let writer = writer(store.clone());
        let (ran_on, stored) = run_one(&writer, store.as_ref(), b"k1");
        assert_eq!(ran_on, std::thread::current().id());
        assert!(stored);
        writer.shutdown();
        let refused = writer.submit_blocking(false, |_| Ok(()));
        assert!(matches!(refused, Err(crate::EngineError::ShuttingDown)));
    }

    #[test]
    fn an_in_memory_job_that_panics_poisons_the_writer_instead_of_the_caller() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let writer = writer(store);
        let panicked = writer.submit_blocking(false, |_| -> crate::Result<()> {
            panic!("a bug in a write job")
        });
        assert!(matches!(panicked, Err(crate::EngineError::ShuttingDown)));
        assert!(writer.is_poisoned());
        let refused = writer.submit_blocking(false, |_| Ok(()));
        assert!(matches!(refused, Err(crate::EngineError::Poisoned)));
    }

    #[test]
    fn durable_jobs_run_on_the_writer_thread() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store: Arc<dyn Store> = Arc::new(FjallStore::open(dir.path()).expect("open"));
        let writer = writer(store.clone());
        let (ran_on, stored) = run_one(&writer, store.as_ref(), b"k1");
        assert_ne!(ran_on, std::thread::current().id());
        assert!(stored);
        writer.shutdown();
    }
}
