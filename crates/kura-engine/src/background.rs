//! The skeleton every background job thread shares (index backfill, table and index
//! purge): a named thread that takes jobs from a queue one at a time, a stop flag the job
//! checks between chunks, and a shutdown that lets the current chunk finish. A job cut
//! short is resumed on the next start from its durable marker, so stopping loses nothing.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::error::Result;

pub struct Worker<J> {
    queue: Mutex<Option<mpsc::Sender<J>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
}

impl<J: Debug + Send + 'static> Worker<J> {
    /// Starts thread `name` running `run` on each queued job. `run` returns early, with
    /// `Ok`, once the flag it is given is set. `unavailable` says what users lose if the
    /// thread cannot start.
    pub fn start(
        name: &str,
        unavailable: &'static str,
        run: impl Fn(&J, &AtomicBool) -> Result<()> + Send + 'static,
    ) -> Worker<J> {
        let (tx, rx) = mpsc::channel::<J>();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread_name = name.to_owned();
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    if let Err(e) = run(&job, &flag) {
                        tracing::warn!(worker = %thread_name, ?job, error = %e, "job interrupted; resumes on restart");
                    }
                }
            })
            .inspect_err(|e| tracing::error!(worker = name, error = %e, "cannot start the thread; {unavailable}"))
            .ok();
        Worker {
            queue: Mutex::new(Some(tx)),
            thread: Mutex::new(thread),
            stop,
        }
    }

    /// Queues a job (called once the write that made it necessary has committed).
    pub fn submit(&self, job: J) {
        if let Some(tx) = self.queue.lock().as_ref() {
            let _stopped = tx.send(job);
        }
    }

    /// Stops after the current chunk; unfinished jobs resume on the next start.
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        drop(self.queue.lock().take());
        if let Some(handle) = self.thread.lock().take() {
            let _panicked = handle.join();
        }
    }
}

/// Whether a job was told to stop.
pub fn stopping(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}
