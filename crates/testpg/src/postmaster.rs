//! The running server: a child process whose PID we hold, and how it is stopped.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long a fast shutdown may take before the server is killed.
const STOP_WITHIN: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(20);

/// The postmaster we started. Dropping it stops it.
#[derive(Debug)]
pub(crate) struct Postmaster {
    child: Child,
    /// How it exited, once it has been waited for.
    exited: Option<ExitStatus>,
    /// Set once stopped, so it is neither signalled nor waited for again (its PID may
    /// belong to another process by then).
    stopped: bool,
}

impl Postmaster {
    pub(crate) fn new(child: Child) -> Postmaster {
        Postmaster {
            child,
            exited: None,
            stopped: false,
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The exit status if the server has exited (reaping it).
    pub(crate) fn exited(&mut self) -> Option<ExitStatus> {
        if self.exited.is_none() {
            self.exited = self.child.try_wait().ok().flatten();
        }
        self.exited
    }

    /// A fast shutdown (SIGINT: postgres rolls back open transactions, disconnects
    /// clients and writes a checkpoint), up to `STOP_WITHIN`; then SIGKILL. Returns once
    /// the process is reaped, so its PID is gone.
    pub(crate) fn stop(&mut self) {
        if self.stopped || self.exited().is_some() {
            self.stopped = true;
            return;
        }
        self.stopped = true;
        // std can only send SIGKILL, and signalling by hand needs unsafe code, which
        // the workspace forbids: the `kill` program sends the SIGINT.
        let asked = Command::new("kill")
            .args(["-INT", &self.pid().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if asked {
            let deadline = Instant::now() + STOP_WITHIN;
            while Instant::now() < deadline {
                if self.exited().is_some() {
                    return;
                }
                thread::sleep(POLL);
            }
        }
        // Already gone is fine; any other failure leaves nothing better to do.
        let _ = self.child.kill();
        self.exited = self.child.wait().ok();
    }
}

impl Drop for Postmaster {
    fn drop(&mut self) {
        self.stop();
    }
}
