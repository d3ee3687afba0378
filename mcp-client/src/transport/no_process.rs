//! Builds without the `stdio` feature start no child process: this type has
//! no values, so the lines transport's child-process paths are never taken.

use std::io;

/// No child process can exist in this build.
#[derive(Debug)]
pub(crate) enum Process {}

// The same signatures as the real `Process` (async where it awaits).
#[allow(clippy::unused_async)]
impl Process {
    pub(crate) fn pid(&self) -> Option<u32> {
        match *self {}
    }

    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        match *self {}
    }

    pub(crate) async fn ended_reason(&self, _read_error: Option<&io::Error>) -> String {
        match *self {}
    }

    pub(crate) async fn shutdown(&self) {
        match *self {}
    }
}
