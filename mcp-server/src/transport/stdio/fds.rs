//! The protocol's ends of stdin and stdout: private duplicates of the file
//! descriptors, and with the guard, fd 1 pointed at stderr so a stray
//! `println!` cannot corrupt the protocol stream.

use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

type BoxRead = Box<dyn AsyncRead + Unpin + Send>;
type BoxWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// The protocol's ends of stdin and stdout, not yet tied to a runtime.
pub(super) struct StdioFds {
    #[cfg(unix)]
    pub(super) input: std::os::fd::OwnedFd,
    #[cfg(unix)]
    pub(super) output: std::os::fd::OwnedFd,
}

/// Takes private duplicates of stdin and stdout for the protocol.
///
/// With `guard`, file descriptor 1 is then pointed at stderr, so a stray
/// `println!` anywhere in the process lands in the log instead of corrupting
/// the protocol stream.
pub(super) fn stdio_fds(guard: bool) -> io::Result<StdioFds> {
    #[cfg(unix)]
    {
        use std::io::Write as _;
        use std::os::fd::AsFd;
        let input = std::io::stdin().as_fd().try_clone_to_owned()?;
        let output = std::io::stdout().as_fd().try_clone_to_owned()?;
        if guard {
            std::io::stdout().flush()?;
            rustix::stdio::dup2_stdout(std::io::stderr())?;
        }
        Ok(StdioFds { input, output })
    }
    #[cfg(not(unix))]
    {
        let _ = guard;
        Ok(StdioFds {})
    }
}

impl StdioFds {
    /// The two ends as async streams of the current runtime. Pipes (as when
    /// a host spawns the server) are driven by the reactor directly; anything
    /// else (a file, a terminal) through tokio's blocking-pool wrappers.
    pub(super) fn into_streams(self) -> (BoxRead, BoxWrite) {
        #[cfg(unix)]
        {
            use tokio::net::unix::pipe;
            let reader: BoxRead = match self
                .input
                .try_clone()
                .and_then(pipe::Receiver::from_owned_fd)
            {
                Ok(rx) => Box::new(rx),
                Err(_) => Box::new(tokio::fs::File::from_std(std::fs::File::from(self.input))),
            };
            let writer: BoxWrite = match self
                .output
                .try_clone()
                .and_then(pipe::Sender::from_owned_fd)
            {
                Ok(tx) => Box::new(tx),
                Err(_) => Box::new(tokio::fs::File::from_std(std::fs::File::from(self.output))),
            };
            (reader, writer)
        }
        #[cfg(not(unix))]
        {
            (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
        }
    }
}
