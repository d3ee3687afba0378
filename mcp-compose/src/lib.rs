//! One MCP server from many: mount other servers on a front server, under
//! prefixes, or proxy one server as it is.
//!
//! A mount is a server of this program ([`Mount::server`], [`Mount::toolbox`])
//! or a remote one reached with `oxmcp-client`: a child process over stdio
//! ([`Mount::stdio`]), Streamable HTTP ([`Mount::http`]) or HTTP+SSE
//! ([`Mount::sse`]), in either protocol era. [`mount`] connects each to the
//! front server, whose clients then see the mounted items as its own:
//!
//! ```no_run
//! use oxmcp_compose::{mount, Mount};
//! use oxmcp_server::Server;
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let front = Server::builder("gateway", "1.0")
//!     // Mounted prompts and resources arrive after the server is built.
//!     .offer_prompts_and_resources()
//!     .build();
//! let mounts = mount(
//!     &front.handle(),
//!     [
//!         Mount::stdio("calc", "calculator", Vec::<String>::new()),
//!         Mount::http("notes", "http://127.0.0.1:8080/mcp").header("X-Api-Key", "notes-key"),
//!     ],
//! )
//! .await?;
//! front.serve_stdio().await?;
//! mounts.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! # What passes through a mount
//!
//! - **Names.** The tool `add` of the mount `calc` is `calc_add`; its
//!   resource `file:///a` is `calc+file:///a` and its template
//!   `users://{id}` is `calc+users://{id}` (the prefix joins the URI scheme:
//!   the result is still a URI, and reads find their way back by taking the
//!   prefix off). A prefix is a letter, then letters, digits, `-` or `.`: no
//!   `_` and no `+`, so two mounts never offer one name or one URI.
//!   [`Mount::without_prefix`] keeps the names: a proxy.
//! - **Lists.** The front server offers what the mounted server lists, as
//!   its allow and block lists let through, and lists again when the
//!   mounted server says a list changed (the front server's clients hear of
//!   it as of any change of its own, coalesced).
//! - **Calls.** Results come back as the mounted server gave them
//!   (`isError`, `structuredContent` and `_meta` included); progress comes
//!   back to the caller, and a caller's cancellation cancels the call on the
//!   mounted server.
//! - **Subscriptions.** A front client that subscribes to a mounted
//!   resource (`resources/subscribe`, or a 2026-07-28 `subscriptions/listen`
//!   filter) has the mounted server asked to report its updates (again after
//!   each reconnection), and hears of them under the front URI.
//! - **Requests of the mounted server** (sampling, elicitation, roots) go to
//!   the front server's client of the call in progress, and its answer back:
//!   in the 2026-07-28 era they arrive within the call's own answer (input
//!   rounds), so they reach that very call's client; a legacy mounted server
//!   sends them on its own, naming no call, and they go to the newest call
//!   in progress on that mount. Log messages go the same way.
//! - **A toolbox each.** A mount's items are the front server's toolbox
//!   `mount:NAME`: `ServerHandle::disable_toolbox("mount:calc")` hides them
//!   all, and `enable_toolbox` brings them back.
//! - **Authorization and policy.** Mounted items are the front server's
//!   items: its permissions, middleware, visibility hooks, authorization
//!   (scopes per item with `ServerHandle`) and telemetry apply to them.
//! - **Credentials.** A mount reaches its server with its own credentials
//!   only ([`Mount::header`], or an OAuth sign-in of its own through
//!   [`Mount::client`]); a token the front server's client sends is never
//!   passed on (the MCP security guidance forbids token passthrough).
//!
//! # When a mounted server fails
//!
//! [`mount`] refuses what is wrong in the configuration, leaving nothing
//! started ([`MountError::Refused`]: an invalid prefix or pattern, a command
//! that does not exist, a server that answers but not as an MCP server). A
//! server that is down (nothing answers) is not an error: the front
//! server starts without its items, says so (a `tracing` warning), and the
//! mount keeps trying, with back-off (0.5 s doubling up to 30 s); its items
//! appear when it comes up. A mounted server that dies or hangs later keeps
//! its items listed: their calls return an `isError` result naming the
//! mount, the next call after the back-off connects again, and the other
//! mounts never notice.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

use std::sync::Arc;

use oxmcp_server::ServerHandle;
use tokio::task::AbortHandle;

pub mod config;
mod link;
mod mount;
mod names;
mod offer;

pub use mount::Mount;

use link::Link;

/// Why [`mount`] refused a mount.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MountError {
    /// The mount's configuration is wrong: nothing was started.
    #[error("mount `{mount}`: {reason}")]
    Refused {
        /// The mount's name.
        mount: String,
        /// What is wrong.
        reason: String,
    },
    /// An `mcpServers` document ([`config::mounts`]) cannot be read: where
    /// and why.
    #[error("configuration: {0}")]
    Config(String),
}

/// The mounts of a front server, connected and kept in step by tasks of
/// their own. They run until [`close`](Self::close) (or the runtime ends);
/// dropping this does not stop them.
#[must_use = "the mounts run until `close` is called"]
pub struct Mounted {
    links: Vec<Arc<Link>>,
    tasks: Vec<AbortHandle>,
}

impl std::fmt::Debug for Mounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounted")
            .field("mounts", &self.names())
            .finish()
    }
}

impl Mounted {
    /// The mounts' names, in the order given.
    pub fn names(&self) -> Vec<&str> {
        self.links.iter().map(|l| l.name.as_str()).collect()
    }

    /// Whether the mount `name` is connected now.
    pub async fn is_up(&self, name: &str) -> bool {
        match self.links.iter().find(|l| l.name == name) {
            Some(link) => link.retry_at().await.is_none(),
            None => false,
        }
    }

    /// Stops keeping the mounts in step and closes their connections
    /// (child processes are stopped as `oxmcp-client` stops them). Their items
    /// stay offered; a call then reports the mount closed.
    pub async fn close(self) {
        for task in &self.tasks {
            task.abort();
        }
        for link in &self.links {
            link.close().await;
        }
    }
}

/// Mounts each of `mounts` on the server of `handle`: checks every
/// configuration (refusing all of them if one is wrong), then connects to
/// each at once, waits for those that answer (at most their connect
/// timeout), and offers their items. A mounted server that is down does
/// not stop the others: see the [crate] documentation.
///
/// # Errors
///
/// [`MountError::Refused`] for a configuration that cannot work: an
/// invalid prefix or pattern, a command that does not exist, two mounts of
/// one name, a server that answers but not as an MCP server (an HTTP error
/// status, a page that is not JSON-RPC, a process that exits). Nothing
/// stays started then.
pub async fn mount(
    handle: &ServerHandle,
    mounts: impl IntoIterator<Item = Mount>,
) -> Result<Mounted, MountError> {
    let mut links = Vec::new();
    for mount in mounts {
        let filters = mount.check()?;
        if links.iter().any(|l: &Arc<Link>| l.name == mount.name) {
            return Err(MountError::Refused {
                mount: mount.name,
                reason: "two mounts have this name".into(),
            });
        }
        links.push(Arc::new(Link::new(mount, filters, handle.clone())));
    }
    let first = links.iter().map(|link| async move {
        if let Ok(client) = link.client().await {
            if let Err(why) = offer::refresh(link, &client).await {
                tracing::warn!(mount = %link.name, error = %why, "the mounted server's items are not offered");
            }
        }
    });
    futures_util::future::join_all(first).await;
    // A server that answered, but not as an MCP server, is a configuration
    // to refuse: nothing stays started.
    for link in &links {
        if let Some(why) = link.refusal().await {
            for link in &links {
                link.close().await;
                handle.remove_toolbox(&link.group());
            }
            return Err(MountError::Refused {
                mount: link.name.clone(),
                reason: format!("it does not answer as an MCP server: {why}"),
            });
        }
    }
    let tasks = links
        .iter()
        .map(|link| tokio::spawn(supervise(Arc::clone(link))).abort_handle())
        .collect();
    Ok(Mounted { links, tasks })
}

/// Keeps one mount in step: while it is connected, follows what its
/// server says (list changes, resource updates, log messages); when it is
/// not, connects again once its back-off has passed.
async fn supervise(link: Arc<Link>) {
    loop {
        if let Some(at) = link.retry_at().await {
            tokio::time::sleep_until(at).await;
        }
        let Ok(client) = link.client().await else {
            continue;
        };
        follow(&link, &client).await;
        link.lost(&client, "the connection ended".into()).await;
    }
}

/// Follows the notifications of one connection until it ends.
async fn follow(link: &Arc<Link>, client: &Arc<oxmcp_client::Client>) {
    use oxmcp_types::method;
    let mut notifications = client.notifications();
    // A 2026-07-28 server tells of changes on a subscription stream only.
    let _subscription = if client.is_modern() {
        let filter = oxmcp_types::modern::SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            ..Default::default()
        };
        client.listen(filter).await.ok()
    } else {
        None
    };
    // What may have changed while the connection was being made.
    if let Err(why) = offer::refresh(link, client).await {
        tracing::warn!(mount = %link.name, error = %why, "the mounted server's items are not offered");
    }
    link.follow_again(client).await;
    while let Some(note) = notifications.recv().await {
        match &*note.method {
            method::TOOLS_LIST_CHANGED
            | method::PROMPTS_LIST_CHANGED
            | method::RESOURCES_LIST_CHANGED => {
                if let Err(why) = offer::refresh(link, client).await {
                    tracing::warn!(mount = %link.name, error = %why, "the mounted server's items are not offered");
                }
            }
            method::RESOURCES_UPDATED => {
                if let Some(uri) = note
                    .params
                    .as_ref()
                    .and_then(|p| p.get("uri"))
                    .and_then(|u| u.as_str())
                {
                    link.handle.resource_updated(&link.names.uri(uri));
                }
            }
            method::MESSAGE => link.log(note.params.as_ref()),
            _ => {}
        }
    }
}
