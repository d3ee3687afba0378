//! A child process that does not outlive its test.

use std::process::Child;

/// A child process, killed when dropped (a failed test leaves none behind).
#[derive(Debug)]
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
