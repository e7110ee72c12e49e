//! The skeleton every background job thread shares (index backfill, table and index
//! purge, restores, exports, imports): a named thread, started with the first job, that
//! takes jobs from a queue one at a time, a stop flag the job checks between chunks, and a
//! shutdown that lets the current chunk finish. A job cut short is resumed on the next
//! start from its durable marker, so stopping loses nothing.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

use crate::error::Result;

type Run<J> = Box<dyn Fn(&J, &AtomicBool) -> Result<()> + Send>;

/// A worker's thread exists only once it has had a job: most servers never back up,
/// export, import, restore or purge, and five idle threads cost memory and start time
/// (and every test-controls reset opens a new engine).
enum State<J> {
    /// No job yet: what the thread will run.
    Idle(Run<J>),
    Running {
        queue: mpsc::Sender<J>,
        thread: JoinHandle<()>,
    },
    Stopped,
}

pub struct Worker<J> {
    name: String,
    /// What users lose if the thread cannot start.
    unavailable: &'static str,
    state: Mutex<State<J>>,
    stop: Arc<AtomicBool>,
}

impl<J: Debug + Send + 'static> Worker<J> {
    /// A worker named `name` that runs `run` on each job submitted, on its own thread
    /// (started with the first job). `run` returns early, with `Ok`, once the flag it is
    /// given is set. `unavailable` says what users lose if the thread cannot start.
    pub fn start(
        name: &str,
        unavailable: &'static str,
        run: impl Fn(&J, &AtomicBool) -> Result<()> + Send + 'static,
    ) -> Worker<J> {
        Worker {
            name: name.to_owned(),
            unavailable,
            state: Mutex::new(State::Idle(Box::new(run))),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Queues a job (called once the write that made it necessary has committed).
    pub fn submit(&self, job: J) {
        let mut state = self.state.lock();
        if let State::Idle(_) = &*state
            && let State::Idle(run) = std::mem::replace(&mut *state, State::Stopped)
        {
            // A thread that cannot start leaves the worker stopped: its jobs are dropped
            // and resume on the next start from their durable markers.
            match self.spawn(run) {
                Ok(running) => *state = running,
                Err(e) => {
                    tracing::error!(worker = %self.name, error = %e, "cannot start the thread; {}", self.unavailable);
                }
            }
        }
        if let State::Running { queue, .. } = &*state {
            let _stopped = queue.send(job);
        }
    }

    fn spawn(&self, run: Run<J>) -> std::io::Result<State<J>> {
        let (tx, rx) = mpsc::channel::<J>();
        let flag = self.stop.clone();
        let thread_name = self.name.clone();
        let thread = std::thread::Builder::new()
            .name(self.name.clone())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    if let Err(e) = run(&job, &flag) {
                        tracing::warn!(worker = %thread_name, ?job, error = %e, "job interrupted; resumes on restart");
                    }
                }
            })?;
        Ok(State::Running { queue: tx, thread })
    }

    /// Stops after the current chunk; unfinished jobs resume on the next start.
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let state = std::mem::replace(&mut *self.state.lock(), State::Stopped);
        if let State::Running { queue, thread } = state {
            drop(queue);
            let _panicked = thread.join();
        }
    }
}

/// Whether a job was told to stop.
pub fn stopping(flag: &AtomicBool) -> bool {
    flag.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;

    use parking_lot::Mutex;

    use super::{State, Worker};

    #[test]
    fn the_thread_starts_with_the_first_job_and_runs_every_job() {
        let (tx, rx) = mpsc::channel::<u32>();
        let tx = Arc::new(Mutex::new(tx));
        let worker = Worker::start("kura-test-worker", "nothing", move |job: &u32, _stop| {
            let _receiver_gone = tx.lock().send(*job);
            Ok(())
        });
        assert!(matches!(*worker.state.lock(), State::Idle(_)));
        worker.submit(1);
        worker.submit(2);
        assert!(matches!(*worker.state.lock(), State::Running { .. }));
        let timeout = std::time::Duration::from_secs(10);
        assert_eq!(rx.recv_timeout(timeout), Ok(1));
        assert_eq!(rx.recv_timeout(timeout), Ok(2));
        worker.shutdown();
        assert!(matches!(*worker.state.lock(), State::Stopped));
        // After shutdown a job is dropped, not run and not a panic.
        worker.submit(3);
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(50))
                .is_err()
        );
    }

    #[test]
    fn a_worker_that_never_had_a_job_shuts_down_without_a_thread() {
        let worker = Worker::start("kura-test-idle", "nothing", |_: &u32, _stop| Ok(()));
        worker.shutdown();
        assert!(matches!(*worker.state.lock(), State::Stopped));
    }
}
