//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
//!
//! stdout carries protocol messages only, one per line; logs go to stderr
//! through `tracing`. Bad input never ends the session: an unparsable line is
//! answered with -32700, an invalid message with -32600, a line over the size
//! limit with -32600, and the next line is served.
//!
//! Inside: this file (the connection loop), `output` (what waits to be
//! written, in order), `fds` (the file descriptors the protocol uses).

mod fds;
mod output;

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use oxmcp_types::jsonrpc::{split_batch, DecodeError, RawMessage};
use oxmcp_types::ErrorObject;
use oxmcp_wire::lines::{LineFrame, LineReader};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, Notify};

use crate::common::{BoxFuture, Outbound};
use crate::dispatch::{error_reply, Outcome, RequestInfo, Session};
use crate::error::Error;
use crate::server::Server;

use fds::stdio_fds;
use output::{write_or_flush, LineSink, Output, HIGH_WATER, SINK_CAPACITY};

/// Aborts a task when dropped, on every path out of the connection loop.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Where a connection's calls run when they do not finish at once, and the
/// runtime that tools see while they are first polled.
///
/// `serve_stdio` on a multi-threaded runtime runs its connection loop on a
/// thread of its own (a current-thread runtime: reading, dispatching the
/// calls that finish at once, and writing without waking other threads);
/// calls that wait, and anything tools spawn, still run on the runtime
/// `serve_stdio` was called on.
struct Calls {
    running: Running,
    runtime: Option<tokio::runtime::Handle>,
}

impl Calls {
    /// Runs a call on its own, counted in `running` until its future is
    /// dropped (it ended, or its task was cancelled).
    fn spawn<F>(&self, fut: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let counted = self.running.count();
        // Boxed: one task type for every kind of call.
        let fut: BoxFuture<'static, ()> = Box::pin(async move {
            fut.await;
            drop(counted);
        });
        match &self.runtime {
            Some(runtime) => drop(runtime.spawn(fut)),
            None => drop(tokio::spawn(fut)),
        }
    }

    /// Makes the serving runtime current while a message is dispatched.
    fn enter(&self) -> Option<tokio::runtime::EnterGuard<'_>> {
        self.runtime.as_ref().map(tokio::runtime::Handle::enter)
    }
}

/// How many of a connection's calls are running, and a wake-up when none is.
#[derive(Default)]
struct Running(Arc<RunningCount>);

#[derive(Default)]
struct RunningCount {
    count: AtomicUsize,
    none: Notify,
}

/// One running call, counted until it is dropped.
struct Counted(Arc<RunningCount>);

impl Drop for Counted {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.none.notify_waiters();
        }
    }
}

impl Running {
    fn count(&self) -> Counted {
        self.0.count.fetch_add(1, Ordering::AcqRel);
        Counted(Arc::clone(&self.0))
    }

    fn is_empty(&self) -> bool {
        self.0.count.load(Ordering::Acquire) == 0
    }

    /// Ready once no call is running.
    async fn none(&self) {
        loop {
            let none = self.0.none.notified();
            tokio::pin!(none);
            // Registered before the count is read: a call that ends in
            // between still wakes this.
            none.as_mut().enable();
            if self.is_empty() {
                return;
            }
            none.await;
        }
    }
}

/// What serving one connection's messages takes, besides its output.
struct Conn {
    session: Arc<Session>,
    sink: Arc<LineSink>,
    /// `sink`, as dispatch takes it.
    out: Arc<dyn Outbound>,
    calls: Calls,
}

impl Conn {
    /// A new connection, and its output; calls that wait run on `runtime`
    /// (default: the current one).
    fn new(runtime: Option<tokio::runtime::Handle>) -> (Conn, Output) {
        let (tx, rx) = mpsc::channel(SINK_CAPACITY);
        let sink = Arc::new(LineSink { tx });
        let conn = Conn {
            session: Session::new(crate::policy::TransportKind::Stdio, None),
            out: Arc::clone(&sink) as Arc<dyn Outbound>,
            sink,
            calls: Calls {
                running: Running::default(),
                runtime,
            },
        };
        let output = Output {
            rx,
            buf: Vec::with_capacity(16 * 1024),
            written: 0,
        };
        (conn, output)
    }
}

impl Server {
    /// Serves MCP over this process's stdin and stdout until stdin closes,
    /// or Ctrl-C or (on unix) SIGTERM comes: either way, no more input is
    /// read, the calls in flight may finish (up to the builder's
    /// `shutdown_grace`) and their results are written. A second signal
    /// while they run cancels them and ends at once.
    ///
    /// Must run inside a tokio runtime. stdout carries protocol messages only:
    /// unless turned off with
    /// [`ServerBuilder::guard_stdout`](crate::ServerBuilder::guard_stdout),
    /// the protocol writes to a private duplicate of stdout and the process's
    /// stdout is redirected to stderr, so a stray `println!` cannot corrupt
    /// the stream. Logs belong on stderr (e.g. a `tracing_subscriber` writing
    /// to `std::io::stderr`).
    ///
    /// ```no_run
    /// # use oxmcp_server::Server;
    /// # async fn run(server: Server) -> Result<(), oxmcp_server::Error> {
    /// server.serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let fds = stdio_fds(self.stdio.guard_stdout)?;
        let signals = Some(super::StopSignals::new());
        let runtime = tokio::runtime::Handle::current();
        if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            let (reader, writer) = fds.into_streams();
            return self.serve_lines(reader, writer, None, signals).await;
        }
        // On a multi-threaded runtime, the connection loop gets a thread of
        // its own (see `Calls`): otherwise each message wakes an idle worker.
        // Dropping this future drops `_stop_on_drop`, which ends the loop.
        let (_stop_on_drop, stop) = oneshot::channel::<()>();
        let served = super::on_own_thread("mcp-stdio".to_owned(), move || async move {
            let (reader, writer) = fds.into_streams();
            tokio::select! {
                r = self.serve_lines(reader, writer, Some(runtime), signals) => r,
                _ = stop => Ok(()),
            }
        })?;
        served.await
    }

    /// Serves MCP as newline-delimited JSON over any byte streams (a pipe, a
    /// socket, `tokio::io::duplex` in tests) until `reader` ends.
    ///
    /// When the input ends, calls in flight may finish (up to the builder's
    /// `shutdown_grace`); their results are written, then the output is
    /// flushed and this returns.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_lines(reader, writer, None, None).await
    }

    /// The connection loop; calls that wait run on `runtime` (default: the
    /// current one). A stop signal (`signals`) ends the input as its end
    /// would; one during the grace period ends it.
    async fn serve_lines<R, W>(
        self,
        mut reader: R,
        mut writer: W,
        runtime: Option<tokio::runtime::Handle>,
        signals: Option<super::StopSignals>,
    ) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (conn, mut output) = Conn::new(runtime);
        let session = &conn.session;
        let mut lines = LineReader::new(self.stdio.max_message);
        let running = &conn.calls.running;
        let _stop_watching = self.watch_list_changes(&conn);
        let mut input_open = true;
        let mut needs_flush = false;
        let mut read_error = None;
        let mut stopping = Stopping::new(signals, self.stdio.shutdown_grace);
        // One task reads, dispatches and writes: a call that completes at once
        // is answered without any hand-off between tasks. Reading and writing
        // progress independently, so a client that writes without reading
        // cannot deadlock the server; input pauses only above HIGH_WATER.
        loop {
            output.drain();
            // Every line read so far is served in place, up to HIGH_WATER,
            // with the serving runtime current.
            if input_open {
                needs_flush |= self.serve_frames(&mut lines, &conn, &mut output, &mut writer);
            }
            if input_open && lines.is_done() {
                tracing::debug!("input closed; finishing calls in flight");
                // Listen streams never finish on their own: end them now.
                session.end_listens();
                input_open = false;
                stopping.input_closed();
            }
            // All input at hand is served: what it produced goes out now,
            // before waiting for more (one wake-up per request when a
            // client sends one at a time).
            if let Some(owed) = output.write_now(&mut writer) {
                needs_flush = owed;
            }
            // Done once the input has closed, every call has ended and
            // everything is written (the final flush follows the loop). A
            // call that ended since the drain above sent its reply before
            // ending: take it now, or it would be lost.
            if !input_open && running.is_empty() {
                output.drain();
                if output.is_empty() {
                    break;
                }
            }
            tokio::select! {
                biased;
                // First: input that never pauses must not hold off a stop.
                step = stopping.next(input_open), if !stopping.over => match step {
                    Step::EndInput => {
                        tracing::info!("no more input is read; finishing calls in flight");
                        lines.end();
                    }
                    Step::Cancel(why) => {
                        tracing::warn!("{why}: calls in flight cancelled");
                        // Cancelled calls and listen streams end at once: dispatch drops their futures.
                        session.cancel_all();
                    }
                },
                read = lines.fill(&mut reader), if input_open && !lines.at_eof() && output.pending() < HIGH_WATER => {
                    if let Err(e) = read {
                        read_error = Some(e);
                        lines.end();
                    }
                },
                Some(message) = output.rx.recv(), if output.pending() < HIGH_WATER => output.push(&message),
                n = write_or_flush(&mut writer, &output.buf[output.written..]), if needs_flush || !output.is_empty() => {
                    if !wrote(&mut output, n, &mut needs_flush)? {
                        tracing::debug!("the client closed its end of the output");
                        session.cancel_all();
                        return read_error.map_or(Ok(()), |e| Err(Error::Io(e)));
                    }
                }
                // Only while calls remain: once none do, `none` is always
                // ready, and polling it would spin this loop without ever
                // yielding to the reactor that reports the output writable.
                () = running.none(), if !input_open && !running.is_empty() => {}
            }
        }
        writer.flush().await?;
        read_error.map_or(Ok(()), |e| Err(Error::Io(e)))
    }

    /// Serves the lines read so far, up to [`HIGH_WATER`] of output, with the
    /// serving runtime current; whether an early write left a flush owed.
    fn serve_frames<W: AsyncWrite + Unpin>(
        &self,
        lines: &mut LineReader,
        conn: &Conn,
        output: &mut Output,
        writer: &mut W,
    ) -> bool {
        let _runtime = conn.calls.enter();
        let mut wrote = false;
        while output.pending() < HIGH_WATER {
            let Some(frame) = lines.next_frame() else {
                break;
            };
            self.on_frame(frame, conn, output);
            wrote |= output.write_early(writer);
        }
        wrote
    }

    /// Serves one frame of input.
    fn on_frame(&self, frame: LineFrame<'_>, conn: &Conn, output: &mut Output) {
        match frame {
            LineFrame::Line(line) => self.on_line(line, conn, output),
            LineFrame::TooLong => output.reply(&self.too_long()),
            LineFrame::NotUtf8 => output.reply(&error_reply(
                None,
                ErrorObject::parse_error("parse error: the line is not valid UTF-8"),
            )),
        }
    }

    /// List changes reach this connection once it has a legacy session
    /// (modern clients hear of them on a `subscriptions/listen` stream).
    fn watch_list_changes(&self, conn: &Conn) -> AbortOnDrop {
        let _runtime = conn.calls.enter();
        let mut changes = self.core.changes(&conn.session);
        let session = Arc::clone(&conn.session);
        let out = Arc::clone(&conn.out);
        AbortOnDrop(crate::common::spawn(async move {
            while let Some(notices) = changes.next_notices().await {
                if session.legacy_version().is_some() {
                    for notice in notices {
                        out.send(notice);
                    }
                }
            }
        }))
    }

    /// The answer to a line over the size limit.
    fn too_long(&self) -> Vec<u8> {
        error_reply(
            None,
            ErrorObject::invalid_request(format!(
                "message exceeds the {} byte limit",
                self.stdio.max_message
            )),
        )
    }

    fn on_line(&self, line: &str, conn: &Conn, output: &mut Output) {
        let text = line.trim();
        if text.is_empty() {
            return;
        }
        if let Some(batch) = split_batch(text) {
            self.on_batch(batch, conn, output);
            return;
        }
        match RawMessage::parse(text) {
            Ok(msg) => self.run(msg, conn, output),
            Err(e) => output.reply(&crate::common::encode(&e.to_response())),
        }
    }

    fn on_batch(
        &self,
        batch: Result<Vec<&serde_json::value::RawValue>, DecodeError>,
        conn: &Conn,
        output: &mut Output,
    ) {
        let batch = crate::dispatch::batch_items(batch).and_then(|items| {
            crate::dispatch::start_batch(
                &self.core,
                &conn.session,
                &items,
                &conn.out,
                &RequestInfo::default(),
            )
        });
        let batch = match batch {
            Ok(batch) => batch,
            Err(reply) => return output.reply(&reply),
        };
        if batch.is_silent() {
            return;
        }
        let sink = Arc::clone(&conn.sink);
        conn.calls.spawn(async move {
            if let Some(joined) = batch.finish().await {
                sink.reply(joined).await;
            }
        });
    }

    /// Dispatches one message: a reply ready now goes to the output, a call
    /// that waits runs on its own and replies through the sink.
    fn run(&self, msg: RawMessage<'_>, conn: &Conn, output: &mut Output) {
        match self
            .core
            .handle(&conn.session, msg, &conn.out, &RequestInfo::default())
        {
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => output.reply(&bytes),
            Outcome::Spawn(fut) => {
                let sink = Arc::clone(&conn.sink);
                conn.calls.spawn(async move {
                    if let Some(bytes) = fut.await {
                        sink.reply(bytes).await;
                    }
                });
            }
            Outcome::Nothing => {}
        }
    }
}

/// Takes in what a write (or a flush, when nothing is left to write) did:
/// whether serving goes on (false: the client closed its end).
fn wrote(output: &mut Output, n: io::Result<usize>, needs_flush: &mut bool) -> io::Result<bool> {
    match n {
        Ok(0) if output.is_empty() => *needs_flush = false,
        Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
        Ok(n) => {
            output.advance(n);
            *needs_flush = true;
        }
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(false),
        Err(e) => return Err(e),
    }
    Ok(true)
}

/// How serving stops. The first signal, or the end of the input, stops the
/// reading and starts the grace period; a second signal, or the end of the
/// grace period, cancels the calls still in flight.
struct Stopping {
    /// None for `serve_io`: the caller's streams, not the process's.
    signals: Option<super::StopSignals>,
    grace: std::pin::Pin<Box<tokio::time::Sleep>>,
    period: std::time::Duration,
    /// Calls in flight were cancelled: nothing more to wait for.
    over: bool,
}

/// A step of [`Stopping`].
enum Step {
    /// Read no more input; finish the calls in flight.
    EndInput,
    /// Cancel the calls in flight, for the reason given.
    Cancel(&'static str),
}

impl Stopping {
    fn new(signals: Option<super::StopSignals>, period: std::time::Duration) -> Self {
        Stopping {
            signals,
            grace: Box::pin(tokio::time::sleep(period)),
            period,
            over: false,
        }
    }

    /// The input has closed: the grace period starts now.
    fn input_closed(&mut self) {
        self.grace
            .as_mut()
            .reset(tokio::time::Instant::now() + self.period);
    }

    /// The next step: a signal, or the grace period's end once the input
    /// has closed.
    async fn next(&mut self, input_open: bool) -> Step {
        let signal = async {
            match &mut self.signals {
                Some(signals) => signals.recv().await,
                None => std::future::pending().await,
            }
        };
        let step = tokio::select! {
            biased;
            () = signal => if input_open {
                Step::EndInput
            } else {
                Step::Cancel("stopped again")
            },
            () = &mut self.grace, if !input_open => Step::Cancel("the shutdown grace period is over"),
        };
        if matches!(step, Step::Cancel(_)) {
            self.over = true;
        }
        step
    }
}
