//! Reaching a server: a child process over stdio (`-- COMMAND ARGS`) or a
//! URL (Streamable HTTP, falling back to HTTP+SSE), in the era asked for,
//! signing in with OAuth when an HTTP server asks. Every command that talks
//! to a server flattens [`Target`] (or [`Server`], where the URL is the last
//! positional argument) into its arguments, so they all take the same
//! options and fail with the same words.

use std::io::IsTerminal;
use std::time::Duration;

use oxmcp_client::auth::{FileTokenStore, LoopbackAuthorizer, OAuth};
use oxmcp_client::{is_unreachable, Client, Era};

/// How to reach the server, shared by `list`, `call`, `read`, `prompt` and `check`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct Target {
    /// The protocol era: `legacy` (the initialize handshake, 2025-11-25),
    /// `2026-07-28` (stateless), or `auto` (probe, then fall back).
    #[arg(long, value_name = "ERA", default_value = "auto", value_parser = parse_era)]
    era: Era,
    /// An HTTP header sent with every request (repeatable), e.g.
    /// `--header 'Authorization: Bearer TOKEN'`.
    #[arg(long = "header", short = 'H', value_name = "'NAME: VALUE'", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// Seconds to wait for the server: to start, and for each answer.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    timeout: Duration,
    /// The server's MCP endpoint (`http://` or `https://`), instead of a command.
    #[arg(long = "url", id = "server_url", value_name = "URL")]
    url: Option<String>,
    /// The server to start, with its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// The server of a command whose last positional argument is the
/// server's URL (`mcp list URL`), or `-- COMMAND ARGS` after it.
#[derive(Debug, clap::Args)]
pub(crate) struct Server {
    /// The server's MCP endpoint (or give `-- COMMAND ARGS`).
    #[arg(value_name = "URL")]
    url: Option<String>,
    #[command(flatten)]
    target: Target,
}

impl Server {
    /// [`Target::session`] with this server.
    pub(crate) async fn session<T: serde::Serialize>(
        self,
        work: impl AsyncFnOnce(&Client) -> Result<T, String>,
    ) -> Result<serde_json::Value, String> {
        self.target.session(self.url, work).await
    }

    /// The same server, in era `era` (`mcp check` tries both).
    pub(crate) fn with_era(&self, era: Era) -> Self {
        Server {
            url: self.url.clone(),
            target: Target {
                era,
                ..self.target.clone()
            },
        }
    }
}

fn parse_era(s: &str) -> Result<Era, String> {
    match s {
        "auto" => Ok(Era::Auto),
        "legacy" => Ok(Era::Legacy),
        "2026-07-28" | "modern" => Ok(Era::Modern),
        _ => Err("expected `legacy`, `2026-07-28` or `auto`".into()),
    }
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let Some((name, value)) = s.split_once(':') else {
        return Err("expected `Name: value`".into());
    };
    let (name, value) = (name.trim(), value.trim());
    // RFC 9110's token characters for the name; no control characters in the value.
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(format!(
            "`{name}` is not an HTTP header name: expected `Name: value`, the name without spaces"
        ));
    }
    if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
        return Err(format!("the value of `{name}` holds a control character"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() => Ok(Duration::from_secs_f64(secs)),
        _ => Err("expected a positive number of seconds".into()),
    }
}

/// Whether `s` names an HTTP endpoint rather than anything else a command
/// line holds (a tool name, `key=value`).
pub(crate) fn is_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

impl Target {
    /// Sets the URL given as a positional argument (`mcp list URL`);
    /// refused when `--url` or a command is given too.
    fn with_positional_url(mut self, url: Option<String>) -> Result<Self, String> {
        if let Some(url) = url {
            if self.url.is_some() {
                return Err(format!(
                    "two URLs given (`{url}` and --url): give the server's URL once"
                ));
            }
            self.url = Some(url);
        }
        Ok(self)
    }

    /// Connects (the server's URL given as a positional argument, if it
    /// was), runs `work`, closes the connection whatever `work` returned,
    /// and gives its result as JSON: what every command that asks one
    /// thing of a server does.
    pub(crate) async fn session<T: serde::Serialize>(
        self,
        url: Option<String>,
        work: impl AsyncFnOnce(&Client) -> Result<T, String>,
    ) -> Result<serde_json::Value, String> {
        let client = self.with_positional_url(url)?.connect().await?;
        let result = work(&client).await;
        client.close().await;
        serde_json::to_value(result?).map_err(|e| format!("cannot show the result: {e}"))
    }

    /// Connects, with the handshake of the era asked for.
    async fn connect(&self) -> Result<Client, String> {
        let mut builder = Client::builder()
            .client_info("mcp", env!("CARGO_PKG_VERSION"))
            .protocol(self.era)
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            // The era probe waits no longer than the user allowed in all
            // (its own default is 10 s).
            .probe_timeout(self.timeout.min(Duration::from_secs(10)));
        for (name, value) in &self.headers {
            builder = builder.http_header(name, value);
        }
        match (&self.url, self.command.as_slice()) {
            (Some(_), [_, ..]) => Err(
                "both a URL and a command given: give either the server's URL or `-- COMMAND ARGS`"
                    .into(),
            ),
            (None, []) => Err(
                "no server given: add the server's URL, or `-- COMMAND ARGS` to start one".into(),
            ),
            (Some(url), []) => {
                if !is_url(url) {
                    return Err(format!(
                        "`{url}` is not an http:// or https:// URL: give the server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp"
                    ));
                }
                builder
                    .oauth(sign_in())
                    .connect_http(url)
                    .await
                    .map_err(|e| http_failure(url, &e))
            }
            (None, [program, args @ ..]) => {
                if !self.headers.is_empty() {
                    return Err(
                        "--header applies to a URL, not to a server started over stdio: drop it"
                            .into(),
                    );
                }
                let mut command = tokio::process::Command::new(program);
                command.args(args);
                builder
                    .connect_stdio(command)
                    .await
                    .map_err(|e| stdio_failure(program, &e))
            }
        }
    }
}

/// The OAuth client used when a server answers 401: it registers itself,
/// opens the browser (the command in `MCP_OPEN_BROWSER`, else the system's
/// opener when stderr is a terminal) at the authorization URL, waits for
/// the redirect on 127.0.0.1, and keeps the tokens in the user's config
/// directory (`FileTokenStore` writes mode 0600), so the next command signs
/// in no more.
fn sign_in() -> OAuth {
    let mut authorizer = LoopbackAuthorizer::new();
    let opener = std::env::var("MCP_OPEN_BROWSER").ok().or_else(|| {
        std::io::stderr()
            .is_terminal()
            .then(system_opener)
            .flatten()
    });
    if let Some(command) = opener {
        authorizer = authorizer.on_url(move |url| {
            if let Err(e) = std::process::Command::new(&command)
                .arg(url)
                .stdout(std::process::Stdio::null())
                .spawn()
            {
                eprintln!("mcp: cannot open the browser with `{command}`: {e}; open the URL above by hand");
            }
        });
    }
    let oauth = OAuth::new("mcp").authorizer(authorizer);
    match token_file() {
        Some(path) => oauth.token_store(FileTokenStore::new(path)),
        // No config directory (no HOME): tokens last this command only.
        None => oauth,
    }
}

/// The program that opens a URL in the user's browser, where there is one.
fn system_opener() -> Option<String> {
    let name = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        // `explorer.exe URL` opens it in the default browser.
        "explorer.exe"
    } else {
        "xdg-open"
    };
    // `;` separates PATH on Windows, `:` elsewhere.
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
}

/// Where tokens are kept: `<config dir>/mcp/tokens.json` (on Linux
/// `$XDG_CONFIG_HOME/mcp`, else `~/.config/mcp`).
fn token_file() -> Option<std::path::PathBuf> {
    dirs::config_dir().map(|dir| dir.join("mcp").join("tokens.json"))
}

/// One line from an error and its causes.
pub(crate) fn one_line(e: &oxmcp_client::Error) -> String {
    use oxmcp_client::types::error::Chain;
    // A transport failure's own level says only "transport failed"; its
    // cause says what happened.
    let text = match e {
        oxmcp_client::Error::Transport(inner) => Chain(inner.as_ref()).to_string(),
        other => Chain(other).to_string(),
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // An HTML error page can be long; its start says what answered.
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Why an HTTP server could not be used, with what to do about it.
fn http_failure(url: &str, e: &oxmcp_client::Error) -> String {
    let why = one_line(e);
    if is_unreachable(e) {
        format!("cannot reach {url} ({why}): check that the server is running and the URL is right")
    } else if matches!(e, oxmcp_client::Error::Transport(_)) {
        format!("{url} is not an MCP server ({why}): give the server's MCP endpoint (often ending in /mcp)")
    } else {
        refused(url, &why)
    }
}

/// Why a server started as a command could not be used (its stderr is in `e`).
fn stdio_failure(program: &str, e: &oxmcp_client::Error) -> String {
    let why = one_line(e);
    if matches!(e, oxmcp_client::Error::Protocol(_)) {
        refused(&format!("the server `{program}`"), &why)
    } else {
        format!("the server `{program}` did not start as an MCP server ({why}): run it by hand to see why, or check the command after `--`")
    }
}

/// A server that answered the handshake with an error: most often an era
/// it does not speak.
fn refused(who: &str, why: &str) -> String {
    format!(
        "{who} refused the MCP handshake ({why}): try another --era (legacy, 2026-07-28 or auto)"
    )
}
