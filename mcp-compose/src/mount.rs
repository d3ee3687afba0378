//! [`Mount`]: what to mount, under which prefix, with which credentials and
//! which of its items.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use globset::{GlobSet, GlobSetBuilder};
use oxmcp_client::ClientBuilder;
use oxmcp_server::Server;

use crate::names::check_prefix;
use crate::MountError;

/// Where a mount's server is.
pub(crate) enum Source {
    /// A child process over stdio, started again on each reconnection.
    Stdio(Command),
    /// A Streamable HTTP endpoint (falling back to HTTP+SSE).
    #[cfg(feature = "http")]
    Http(String),
    /// An HTTP+SSE (2024-11-05) endpoint.
    #[cfg(feature = "http")]
    Sse(String),
    /// A server of this program, served over an in-memory pipe.
    Local(Server),
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdio(c) => write!(f, "stdio `{}`", c.program.to_string_lossy()),
            #[cfg(feature = "http")]
            Source::Http(url) => write!(f, "Streamable HTTP {url}"),
            #[cfg(feature = "http")]
            Source::Sse(url) => write!(f, "HTTP+SSE {url}"),
            Source::Local(_) => f.write_str("a server of this program"),
        }
    }
}

/// A child process's command line, kept so that it can be started again.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) env: Vec<(OsString, OsString)>,
    pub(crate) dir: Option<PathBuf>,
}

impl Command {
    pub(crate) fn to_tokio(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args);
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command
    }
}

/// Which of a mount's items the front server offers: those an allow list
/// names (all, without one) that no block list names. Patterns match the
/// mounted server's own names (tools, prompts) and URIs (resources,
/// templates), with `*` for any run of characters and `?` for one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    allow: Option<Vec<String>>,
    block: Vec<String>,
}

impl Filter {
    fn compile(&self, what: &str) -> Result<Matcher, String> {
        let set = |patterns: &[String]| -> Result<GlobSet, String> {
            let mut set = GlobSetBuilder::new();
            for p in patterns {
                let glob = globset::GlobBuilder::new(p)
                    .literal_separator(false)
                    .build()
                    .map_err(|e| format!("the {what} pattern {p:?} is invalid: {e}"))?;
                set.add(glob);
            }
            set.build().map_err(|e| e.to_string())
        };
        Ok(Matcher {
            allow: self.allow.as_deref().map(set).transpose()?,
            block: set(&self.block)?,
        })
    }
}

/// A compiled [`Filter`].
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    allow: Option<GlobSet>,
    block: GlobSet,
}

impl Matcher {
    pub(crate) fn offers(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.is_match(name)) && !self.block.is_match(name)
    }
}

/// The compiled filters of a mount, one per kind of item.
#[derive(Debug, Clone)]
pub(crate) struct Filters {
    pub(crate) tools: Matcher,
    pub(crate) prompts: Matcher,
    pub(crate) resources: Matcher,
}

pub(crate) type Customize = Box<dyn Fn(ClientBuilder) -> ClientBuilder + Send + Sync>;

/// One server to mount on a front server: where it is, the prefix of its
/// names, the credentials to reach it with, and which of its tools,
/// prompts and resources to offer.
///
/// ```
/// use oxmcp_compose::Mount;
///
/// let calc = Mount::stdio("calc", "calculator", ["--precise"])
///     .allow_tools(["add", "sub*"])
///     .block_tools(["subtract_all"]);
/// assert_eq!(calc.name(), "calc");
/// # #[cfg(feature = "http")]
/// let notes = Mount::http("notes", "http://127.0.0.1:8080/mcp")
///     .header("X-Api-Key", "the notes server's own key");
/// # #[cfg(feature = "http")]
/// assert_eq!(notes.name(), "notes");
/// ```
///
/// Names: a tool or prompt `add` of the mount `calc` is `calc_add` on the
/// front server; a resource `file:///a` is `calc+file:///a` (the prefix joins
/// the URI scheme). [`Mount::without_prefix`] keeps the names as they are:
/// that is a proxy.
///
/// Credentials are the mount's own ([`header`](Self::header), or a
/// [`client`](Self::client) with its own OAuth sign-in): the front server's
/// clients' tokens never reach a mounted server.
pub struct Mount {
    pub(crate) name: String,
    pub(crate) prefix: Option<String>,
    pub(crate) source: Source,
    #[cfg(feature = "http")]
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) filter: [Filter; 3],
    pub(crate) customize: Option<Customize>,
}

impl fmt::Debug for Mount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mount")
            .field("name", &self.name)
            .field("prefix", &self.prefix)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Mount {
    fn new(name: impl Into<String>, source: Source) -> Mount {
        let name = name.into();
        Mount {
            prefix: Some(name.clone()),
            name,
            source,
            #[cfg(feature = "http")]
            headers: Vec::new(),
            filter: Default::default(),
            customize: None,
        }
    }

    /// A server started as a child process (`program` with `args`), spoken
    /// to over its stdin and stdout; started again when it dies. `name` is
    /// the mount's name and its prefix.
    pub fn stdio<P, A, S>(name: impl Into<String>, program: P, args: A) -> Mount
    where
        P: Into<OsString>,
        A: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Mount::new(
            name,
            Source::Stdio(Command {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                dir: None,
            }),
        )
    }

    /// A server at a Streamable HTTP endpoint (falling back to HTTP+SSE when
    /// the endpoint speaks only that), in either protocol era.
    #[cfg(feature = "http")]
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Mount {
        Mount::new(name, Source::Http(url.into()))
    }

    /// A server at an HTTP+SSE (2024-11-05) endpoint: the URL of its event stream.
    #[deprecated(
        since = "0.1.0",
        note = "the HTTP+SSE transport is deprecated since MCP 2025-03-26: use `Mount::http`, which falls back to HTTP+SSE for servers that speak only that"
    )]
    #[cfg(feature = "http")]
    pub fn sse(name: impl Into<String>, url: impl Into<String>) -> Mount {
        Mount::new(name, Source::Sse(url.into()))
    }

    /// A server of this program (its tools, prompts, resources, templates
    /// and completions), spoken to over an in-memory pipe as a client would.
    pub fn server(name: impl Into<String>, server: Server) -> Mount {
        Mount::new(name, Source::Local(server))
    }

    /// A toolbox (a type with `#[tool]`, `#[prompt]` or `#[resource]`
    /// methods), as [`Mount::server`] of a server holding only it.
    pub fn toolbox<T: oxmcp_server::ToolBox>(name: impl Into<String>, toolbox: T) -> Mount {
        let name = name.into();
        let server = Server::builder(name.clone(), env!("CARGO_PKG_VERSION"))
            .toolbox(toolbox)
            .offer_prompts_and_resources()
            .build();
        Mount::server(name, server)
    }

    /// Sets an environment variable of the child process (stdio mounts).
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        if let Source::Stdio(c) = &mut self.source {
            c.env.push((key.into(), value.into()));
        }
        self
    }

    /// Sets the working directory of the child process (stdio mounts).
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Source::Stdio(c) = &mut self.source {
            c.dir = Some(dir.into());
        }
        self
    }

    /// Uses `prefix` instead of the mount's name.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Offers the mounted server's names and URIs as they are: a proxy.
    #[must_use]
    pub fn without_prefix(mut self) -> Self {
        self.prefix = None;
        self
    }

    /// Sends this header with every HTTP request to the mounted server
    /// (its API key, its bearer token): the mount's own credentials.
    #[cfg(feature = "http")]
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Configures the client that reaches the mounted server beyond what
    /// the mount sets: its protocol era, timeouts, TLS, an OAuth sign-in of
    /// its own. Called on every (re)connection. The mount installs its own
    /// sampling, elicitation and roots handlers after it, which pass those
    /// requests to the front server's client.
    #[must_use]
    pub fn client(
        mut self,
        customize: impl Fn(ClientBuilder) -> ClientBuilder + Send + Sync + 'static,
    ) -> Self {
        self.customize = Some(Box::new(customize));
        self
    }

    /// Offers only the tools named by one of `patterns` (`*` and `?` wildcards).
    #[must_use]
    pub fn allow_tools<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        allow(&mut self.filter[0], patterns);
        self
    }

    /// Never offers the tools named by one of `patterns`.
    #[must_use]
    pub fn block_tools<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        block(&mut self.filter[0], patterns);
        self
    }

    /// Offers only the prompts named by one of `patterns`.
    #[must_use]
    pub fn allow_prompts<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        allow(&mut self.filter[1], patterns);
        self
    }

    /// Never offers the prompts named by one of `patterns`.
    #[must_use]
    pub fn block_prompts<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        block(&mut self.filter[1], patterns);
        self
    }

    /// Offers only the resources and templates whose URI (or URI template)
    /// one of `patterns` matches.
    #[must_use]
    pub fn allow_resources<S: Into<String>>(
        mut self,
        patterns: impl IntoIterator<Item = S>,
    ) -> Self {
        allow(&mut self.filter[2], patterns);
        self
    }

    /// Never offers the resources and templates whose URI one of `patterns` matches.
    #[must_use]
    pub fn block_resources<S: Into<String>>(
        mut self,
        patterns: impl IntoIterator<Item = S>,
    ) -> Self {
        block(&mut self.filter[2], patterns);
        self
    }

    /// The mount's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What is wrong with this mount's configuration, found without
    /// reaching the server: its name, prefix, patterns, a program that does
    /// not exist.
    pub(crate) fn check(&self) -> Result<Filters, MountError> {
        let refuse = |reason: String| MountError::Refused {
            mount: self.name.clone(),
            reason,
        };
        if self.name.is_empty() {
            return Err(refuse("a mount needs a name".into()));
        }
        if let Some(prefix) = &self.prefix {
            check_prefix(prefix).map_err(refuse)?;
        }
        if let Source::Stdio(c) = &self.source {
            find_program(&c.program, c.dir.as_deref()).map_err(refuse)?;
        }
        let [tools, prompts, resources] = &self.filter;
        Ok(Filters {
            tools: tools.compile("tool").map_err(refuse)?,
            prompts: prompts.compile("prompt").map_err(refuse)?,
            resources: resources.compile("resource").map_err(refuse)?,
        })
    }
}

fn allow<S: Into<String>>(filter: &mut Filter, patterns: impl IntoIterator<Item = S>) {
    filter
        .allow
        .get_or_insert_with(Vec::new)
        .extend(patterns.into_iter().map(Into::into));
}

fn block<S: Into<String>>(filter: &mut Filter, patterns: impl IntoIterator<Item = S>) {
    filter.block.extend(patterns.into_iter().map(Into::into));
}

/// Whether `program` can be started: a path to an executable file, or a
/// name found on `PATH`, as the operating system would look it up.
fn find_program(program: &std::ffi::OsStr, dir: Option<&std::path::Path>) -> Result<(), String> {
    let path = std::path::Path::new(program);
    let shown = path.display();
    let executable = |p: &std::path::Path| {
        let Ok(meta) = std::fs::metadata(p) else {
            return false;
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            meta.is_file() && meta.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        meta.is_file()
    };
    if path.components().count() > 1 || path.is_absolute() {
        let full = match dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_owned(),
        };
        return if executable(&full) {
            Ok(())
        } else {
            Err(format!(
                "the command `{shown}` does not exist or is not executable"
            ))
        };
    }
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| executable(&d.join(path))));
    if found {
        Ok(())
    } else {
        Err(format!("the command `{shown}` is not found on PATH"))
    }
}
