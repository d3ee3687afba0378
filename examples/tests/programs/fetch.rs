//! The fetch example, driven over stdio: what is not public is refused before a packet leaves.
#![allow(clippy::needless_pass_by_value)] // JSON built inline at each call reads best by value

use mcp_test_support::{http_site, netns};

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_site::{reply, Reply, Seen, Site};
use oxmcp_client::Client;
use serde_json::{json, Value};
use tokio::net::{TcpListener, TcpStream};

/// The fetch server, started with `args`.
async fn start(args: &[String]) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fetch"));
    command.args(args);
    Client::builder()
        .client_info("fetch-test", "1")
        .connect_stdio(command)
        .await
        .unwrap()
}

/// A call's outcome: whether it is an error, its text, its structured content.
struct Outcome {
    is_error: bool,
    text: String,
    structured: Value,
}

async fn call(client: &Client, tool: &str, args: Value) -> Outcome {
    let result = client.call_tool_raw(tool, args).await.unwrap();
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("");
    Outcome {
        is_error: result.is_error(),
        text,
        structured: result.structured_content.unwrap_or(Value::Null),
    }
}

/// The usual pages: `/ok`, `/page` (HTML), `/missing` (404), `/big`
/// (1 MiB), `/slow` (never answers), `/echo` (the request's header
/// `x-test` and body back, 201), `/go?URL` (302 to URL), `/loop` (302 to itself).
fn pages(request: &Seen) -> Reply {
    let (path, query) = request
        .path
        .split_once('?')
        .unwrap_or((request.path.as_str(), ""));
    match path {
        "/ok" => reply("200 OK", &[("content-type", "text/plain")], b"ok"),
        "/page" => reply(
            "200 OK",
            &[("content-type", "text/html; charset=utf-8")],
            PAGE.as_bytes(),
        ),
        "/big" => reply(
            "200 OK",
            &[("content-type", "text/plain")],
            &vec![b'a'; 1 << 20],
        ),
        "/slow" => Reply::Hang,
        "/echo" => {
            let echo = request.header("x-test").unwrap_or("none").to_owned();
            reply(
                "201 Created",
                &[("x-echo", &echo), ("content-type", "text/plain")],
                &request.body,
            )
        }
        "/go" => reply("302 Found", &[("location", query)], b""),
        "/loop" => reply("302 Found", &[("location", "/loop")], b""),
        _ => reply(
            "404 Not Found",
            &[("content-type", "text/plain")],
            b"missing",
        ),
    }
}

const PAGE: &str = "<!doctype html><html><head><title>T</title><script>evil()</script></head>\
<body><h1>Hello</h1><p>This is <b>the page</b> with a <a href=\"/x\">link</a>.</p></body></html>";

#[tokio::test(flavor = "multi_thread")]
async fn tools_carry_the_open_world_annotation_and_none_claims_to_be_read_only() {
    let client = start(&[]).await;
    let tools = client.list_tools().await.unwrap();
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let a = tool.annotations.clone().unwrap();
        (a.read_only_hint, a.open_world_hint)
    };
    // A URL carries data out, and a GET can act on the site: none of the
    // three is read-only.
    for name in ["get", "post", "fetch"] {
        assert_ne!(hints(name).0, Some(true), "{name}");
        assert_eq!(hints(name).1, Some(true), "{name}");
    }
    let fetch = tools.iter().find(|t| t.name == "fetch").unwrap();
    let schema = serde_json::to_value(&fetch.input_schema).unwrap();
    assert_eq!(schema["properties"]["max_length"]["default"], 5000);
    assert_eq!(schema["properties"]["start_index"]["default"], 0);
    assert_eq!(schema["properties"]["raw"]["default"], false);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_local_page_comes_back_as_markdown_paged_as_the_reference_pages() {
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let url = site.url("/page");

    let whole = call(&client, "fetch", json!({"url": url})).await;
    assert!(!whole.is_error, "{}", whole.text);
    let prefix = format!("Contents of {url}:\n");
    let markdown = whole.text.strip_prefix(&prefix).unwrap();
    assert!(markdown.starts_with("# Hello"), "{markdown}");
    assert!(
        markdown.contains("This is **the page** with a [link](/x)."),
        "{markdown}"
    );
    assert!(!markdown.contains("evil"), "{markdown}");

    let first = call(&client, "fetch", json!({"url": url, "max_length": 7})).await;
    assert_eq!(
        first.text,
        format!("{prefix}# Hello\n\n<error>Content truncated. Call the fetch tool with a start_index of 7 to get more content.</error>")
    );
    let rest = call(&client, "fetch", json!({"url": url, "start_index": 7})).await;
    assert_eq!(rest.text, format!("{prefix}{}", &markdown[7..]));
    let past = call(
        &client,
        "fetch",
        json!({"url": url, "start_index": 100_000}),
    )
    .await;
    assert_eq!(
        past.text,
        format!("{prefix}<error>No more content available.</error>")
    );

    let raw = call(&client, "fetch", json!({"url": url, "raw": true})).await;
    assert_eq!(
        raw.text,
        format!("Content type text/html; charset=utf-8 cannot be simplified to markdown, but here is the raw content:\n{prefix}{PAGE}")
    );
    let text = call(&client, "fetch", json!({"url": site.url("/ok")})).await;
    assert_eq!(
        text.text,
        format!("Content type text/plain cannot be simplified to markdown, but here is the raw content:\nContents of {}:\nok", site.url("/ok"))
    );
    let missing = call(&client, "fetch", json!({"url": site.url("/missing")})).await;
    assert!(missing.is_error);
    assert_eq!(
        missing.text,
        format!("Failed to fetch {} - status code 404", site.url("/missing"))
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_local_site_not_on_the_allow_list_receives_nothing() {
    let site = Site::start(pages).await;
    let client = start(&[]).await;
    for tool in ["get", "post", "fetch"] {
        let out = call(&client, tool, json!({"url": site.url("/ok")})).await;
        assert!(
            out.is_error && out.text.contains("refused"),
            "{tool}: {}",
            out.text
        );
    }
    // Allowed on another port only.
    let other = format!("127.0.0.1:{}", site.addr.port().wrapping_add(1).max(1));
    let client2 = start(&["--allow-host".into(), other]).await;
    let out = call(&client2, "get", json!({"url": site.url("/ok")})).await;
    assert!(out.is_error && out.text.contains("refused"), "{}", out.text);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(site.seen().is_empty(), "{:?}", site.seen());
    client.close().await;
    client2.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn get_and_post_send_headers_and_bodies_and_return_status_headers_and_body() {
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;

    let got = call(
        &client,
        "get",
        json!({"url": site.url("/echo?q=1"), "headers": {"X-Test": "from get"}}),
    )
    .await;
    assert!(!got.is_error, "{}", got.text);
    assert_eq!(got.structured["status"], 201);
    assert_eq!(got.structured["headers"]["x-echo"], "from get");
    assert_eq!(got.structured["body"], "");
    assert_eq!(got.structured["truncated"], false);
    assert_eq!(got.structured["url"], site.url("/echo?q=1"));

    let posted = call(
        &client,
        "post",
        json!({"url": site.url("/echo"), "body": "{\"a\":1}",
               "headers": {"X-Test": "from post", "Content-Type": "application/json"}}),
    )
    .await;
    assert!(!posted.is_error, "{}", posted.text);
    assert_eq!(posted.structured["status"], 201);
    assert_eq!(posted.structured["headers"]["x-echo"], "from post");
    assert_eq!(posted.structured["body"], "{\"a\":1}");

    let seen = site.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("GET", "/echo?q=1")
    );
    assert_eq!(seen[0].header("host"), Some(site.allow().as_str()));
    assert!(seen[0]
        .header("user-agent")
        .unwrap()
        .starts_with("oxmcp-toolbox/"));
    assert_eq!(seen[1].method, "POST");
    assert_eq!(seen[1].header("content-type"), Some("application/json"));
    assert_eq!(seen[1].body, b"{\"a\":1}");

    // A 404 is a result to read, not an error.
    let missing = call(&client, "get", json!({"url": site.url("/missing")})).await;
    assert!(!missing.is_error);
    assert_eq!(missing.structured["status"], 404);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_past_the_size_cap_is_cut_there_and_the_server_keeps_serving() {
    let site = Site::start(pages).await;
    let args = [
        "--allow-host".into(),
        site.allow(),
        "--max-response-bytes".into(),
        "1000".into(),
    ];
    let client = start(&args).await;
    let big = call(&client, "get", json!({"url": site.url("/big")})).await;
    assert!(!big.is_error, "{}", big.text);
    assert_eq!(big.structured["truncated"], true);
    assert_eq!(big.structured["body"].as_str().unwrap().len(), 1000);
    let fetched = call(
        &client,
        "fetch",
        json!({"url": site.url("/big"), "max_length": 999_999}),
    )
    .await;
    assert!(
        fetched
            .text
            .starts_with("The response was cut at 1000 bytes"),
        "{}",
        fetched.text
    );
    assert_eq!(
        fetched.text,
        format!(
            "The response was cut at 1000 bytes (the size limit); this is its beginning.\n\
             Content type text/plain cannot be simplified to markdown, but here is the raw content:\n\
             Contents of {}:\n{}",
            site.url("/big"),
            "a".repeat(1000)
        )
    );
    let ok = call(&client, "get", json!({"url": site.url("/ok")})).await;
    assert_eq!(ok.structured["body"], "ok");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_that_never_comes_times_out_and_the_server_keeps_serving() {
    let site = Site::start(pages).await;
    let args = [
        "--allow-host".into(),
        site.allow(),
        "--timeout-ms".into(),
        "500".into(),
    ];
    let client = start(&args).await;
    for tool in ["get", "fetch"] {
        let started = Instant::now();
        let slow = call(&client, tool, json!({"url": site.url("/slow")})).await;
        assert!(
            slow.is_error && slow.text.contains("timed out after 500 ms"),
            "{}",
            slow.text
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
    let ok = call(&client, "get", json!({"url": site.url("/ok")})).await;
    assert_eq!(ok.structured["body"], "ok");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_gets_an_error_result_and_the_server_keeps_serving() {
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let url = site.url("/ok");
    for (tool, args, says) in [
        ("get", json!({"url": "not a url"}), "invalid URL"),
        ("fetch", json!({"url": ""}), "invalid URL"),
        (
            "get",
            json!({"url": "file:///etc/passwd"}),
            "only http and https",
        ),
        (
            "post",
            json!({"url": "file:///etc/passwd", "body": "x"}),
            "only http and https",
        ),
        (
            "fetch",
            json!({"url": "file:///etc/passwd"}),
            "only http and https",
        ),
        (
            "fetch",
            json!({"url": "ftp://127.0.0.1/"}),
            "only http and https",
        ),
        (
            "get",
            json!({"url": "data:text/plain,hi"}),
            "only http and https",
        ),
        (
            "get",
            json!({"url": url, "headers": {"bad header": "x"}}),
            "invalid header name",
        ),
        (
            "get",
            json!({"url": url, "headers": {"x-a": "line\nbreak"}}),
            "invalid value",
        ),
        (
            "get",
            json!({"url": url, "headers": {"Host": "evil.example"}}),
            "set by the client",
        ),
        ("fetch", json!({"url": url, "max_length": 0}), "max_length"),
        (
            "fetch",
            json!({"url": url, "max_length": 1_000_000}),
            "max_length",
        ),
        (
            "fetch",
            json!({"url": url, "start_index": -1}),
            "start_index",
        ),
        ("get", json!({}), "url"),
    ] {
        let out = call(&client, tool, args.clone()).await;
        assert!(out.is_error, "{tool} {args}: {}", out.text);
        assert!(out.text.contains(says), "{tool} {args}: {}", out.text);
    }
    assert!(site.seen().is_empty());
    let ok = call(&client, "get", json!({"url": url})).await;
    assert_eq!(ok.structured["body"], "ok");
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_within_the_allowed_site_is_followed_and_the_final_url_reported() {
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let out = call(&client, "get", json!({"url": site.url("/go?/ok")})).await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.structured["url"], site.url("/ok"));
    assert_eq!(out.structured["body"], "ok");
    // A POST redirected with 302 continues as a GET without its body.
    let out = call(
        &client,
        "post",
        json!({"url": site.url("/go?/echo"), "body": "x"}),
    )
    .await;
    assert_eq!(out.structured["status"], 201);
    let seen = site.seen();
    assert_eq!(
        seen.last().map(|s| (s.method.as_str(), s.body.len())),
        Some(("GET", 0))
    );
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn https_to_an_allowed_host_insists_on_tls() {
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let url = format!("https://{}/ok", site.addr);
    let out = call(&client, "get", json!({"url": url})).await;
    assert!(out.is_error && out.text.contains("TLS"), "{}", out.text);
    assert!(site.seen().is_empty(), "no plain HTTP request was sent");
    client.close().await;
}

/// The usual pages, `/private/...` pages too, and `/robots.txt` answered
/// with `status` and `body`.
fn with_robots(
    status: &'static str,
    body: &'static str,
) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |request: &Seen| {
        if request.path == "/robots.txt" {
            reply(status, &[("content-type", "text/plain")], body.as_bytes())
        } else if request.path.starts_with("/private") {
            reply("200 OK", &[("content-type", "text/plain")], b"secret")
        } else {
            pages(request)
        }
    }
}

/// Everything forbidden to others; for us only `/private` (but `/private/open`).
const ROBOTS: &str = "# robots for the test site\n\
User-agent: OtherBot\nDisallow: /\n\n\
User-agent: oxmcp-toolbox\nDisallow: /private\nAllow: /private/open\n\n\
User-agent: *\nDisallow: /\n";

fn paths(site: &Site) -> Vec<String> {
    site.seen().into_iter().map(|s| s.path).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn fetch_refuses_a_page_the_sites_robots_txt_forbids_without_requesting_it() {
    let site = Site::start(with_robots("200 OK", ROBOTS)).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let robots_url = site.url("/robots.txt");

    let url = site.url("/private/page?x=1");
    let out = call(&client, "fetch", json!({"url": url})).await;
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text.starts_with(&format!(
            "The sites robots.txt ({robots_url}), specifies that autonomous fetching of this page is not allowed, <useragent>oxmcp-toolbox/"
        )),
        "{}",
        out.text
    );
    assert!(
        out.text.contains(&format!(
            "</useragent>\n<url>{url}</url><robots>\n{ROBOTS}\n</robots>\nThe assistant must let the user know that it failed to view the page."
        )),
        "{}",
        out.text
    );
    // Only robots.txt was asked for, with our user agent; the page never.
    let seen = site.seen();
    assert_eq!(paths(&site), ["/robots.txt"]);
    assert_eq!(seen[0].method, "GET");
    assert!(seen[0]
        .header("user-agent")
        .unwrap()
        .starts_with("oxmcp-toolbox/"));

    // The longer Allow wins inside /private; what our group does not
    // name is allowed (the `*` group does not apply to us).
    let open = call(&client, "fetch", json!({"url": site.url("/private/open")})).await;
    assert!(!open.is_error, "{}", open.text);
    assert!(
        open.text.ends_with(&format!(
            "Contents of {}:\nsecret",
            site.url("/private/open")
        )),
        "{}",
        open.text
    );
    let ok = call(&client, "fetch", json!({"url": site.url("/ok")})).await;
    assert!(!ok.is_error, "{}", ok.text);
    assert!(ok.text.ends_with("\nok"), "{}", ok.text);
    assert_eq!(
        paths(&site),
        [
            "/robots.txt",
            "/robots.txt",
            "/private/open",
            "/robots.txt",
            "/ok"
        ]
    );

    // get and post do not ask robots.txt.
    let got = call(&client, "get", json!({"url": site.url("/private/page")})).await;
    assert_eq!(got.structured["body"], "secret", "{}", got.text);
    assert_eq!(
        paths(&site).last().map(String::as_str),
        Some("/private/page")
    );
    assert_eq!(paths(&site).len(), 6);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn robots_txt_answered_403_refuses_and_404_allows() {
    for status in ["403 Forbidden", "401 Unauthorized"] {
        let site = Site::start(with_robots(status, "no")).await;
        let client = start(&["--allow-host".into(), site.allow()]).await;
        let out = call(&client, "fetch", json!({"url": site.url("/ok")})).await;
        assert!(out.is_error, "{}", out.text);
        assert_eq!(
            out.text,
            format!(
                "When fetching robots.txt ({}), received status {} so assuming that autonomous fetching is not allowed, the user can try fetching the page themselves",
                site.url("/robots.txt"),
                &status[..3]
            )
        );
        assert_eq!(paths(&site), ["/robots.txt"]);
        client.close().await;
    }

    for status in ["404 Not Found", "410 Gone"] {
        let site = Site::start(with_robots(status, "User-agent: *\nDisallow: /\n")).await;
        let client = start(&["--allow-host".into(), site.allow()]).await;
        let out = call(&client, "fetch", json!({"url": site.url("/private/x")})).await;
        assert!(!out.is_error, "{status}: {}", out.text);
        assert!(out.text.ends_with("\nsecret"), "{}", out.text);
        assert_eq!(paths(&site), ["/robots.txt", "/private/x"]);
        client.close().await;
    }

    // An empty robots.txt allows everything.
    let site = Site::start(with_robots("200 OK", "")).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let out = call(&client, "fetch", json!({"url": site.url("/private/x")})).await;
    assert!(!out.is_error, "{}", out.text);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn robots_txt_redirected_elsewhere_on_the_site_is_followed() {
    let site = Site::start(|request: &Seen| match request.path.as_str() {
        "/robots.txt" => reply(
            "301 Moved Permanently",
            &[("location", "/real-robots")],
            b"",
        ),
        "/real-robots" => reply("200 OK", &[], b"User-agent: *\nDisallow: /private\n"),
        _ => with_robots("404 Not Found", "")(request),
    })
    .await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let out = call(&client, "fetch", json!({"url": site.url("/private/x")})).await;
    assert!(
        out.is_error && out.text.starts_with("The sites robots.txt"),
        "{}",
        out.text
    );
    assert_eq!(paths(&site), ["/robots.txt", "/real-robots"]);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ignore_robots_txt_fetches_a_forbidden_page_without_asking() {
    let site = Site::start(with_robots("200 OK", ROBOTS)).await;
    let args = [
        "--allow-host".into(),
        site.allow(),
        "--ignore-robots-txt".into(),
    ];
    let client = start(&args).await;
    let url = site.url("/private/page");
    let out = call(&client, "fetch", json!({"url": url})).await;
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text.ends_with(&format!("Contents of {url}:\nsecret")),
        "{}",
        out.text
    );
    assert_eq!(paths(&site), ["/private/page"]);
    client.close().await;
}

#[test]
fn bad_command_line_arguments_print_the_usage_and_exit_2() {
    for args in [
        &["--allow-host"][..],
        &["--allow-host", "host:port"],
        &["--allow-host", "[::1"],
        &["--timeout-ms", "soon"],
        &["--verbose", "x"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fetch"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("Usage: fetch"),
            "{args:?}"
        );
    }
}

// ---- The hostile table, inside a network namespace of its own ----

/// Addresses given to the namespace's loopback, standing in for hostile ones.
const STAND_INS: &[&str] = &[
    "10.0.0.1/32",
    "172.16.0.1/32",
    "192.168.1.1/32",
    "169.254.169.254/32",
    "100.64.0.1/32",
    "198.18.0.1/32",
    "192.0.2.1/32",
    "fd00::1/128",
    "2001:db8::1/128",
    "2001:2::1/128",
    "64:ff9b::a00:1/128",
    "2002:a00:1::1/128",
    "2001:0:4136:e378:8000:63bf:f5ff:fffe/128",
    "::a00:1/128",
];

/// Hosts that must be refused, each reachable in the namespace: `{port}` is the trap's.
const HOSTILE: &[&str] = &[
    "127.0.0.1",
    "localhost",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.1",
    "0x7f.1",
    "0.0.0.0",
    "[::]",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "198.18.0.1",
    "192.0.2.1",
    "[fd00::1]",
    "[2001:db8::1]",
    "[2001:2::1]",
    "[64:ff9b::a00:1]",
    "[2002:a00:1::1]",
    "[2001:0:4136:e378:8000:63bf:f5ff:fffe]",
    "[::a00:1]",
    "[::ffff:10.0.0.1]",
];

/// A listener on every address of the namespace (IPv4 and IPv6) that
/// records where each connection arrived.
struct Trap {
    port: u16,
    arrived: Arc<Mutex<Vec<SocketAddr>>>,
}

impl Trap {
    async fn start() -> Trap {
        let listener = TcpListener::bind("[::]:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let arrived = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&arrived);
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                record.lock().unwrap().push(tcp.local_addr().unwrap());
            }
        });
        Trap { port, arrived }
    }

    async fn arrived(&self) -> Vec<SocketAddr> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.arrived.lock().unwrap().clone()
    }
}

#[test]
fn hostile_addresses_and_redirects_to_them_are_refused_before_any_connection() {
    netns::in_network_namespace("fetch::hostile_table_in_a_namespace", STAND_INS);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "run by hostile_addresses_and_redirects_to_them_are_refused_before_any_connection, inside a network namespace"]
async fn hostile_table_in_a_namespace() {
    netns::assert_in_network_namespace();
    let trap = Trap::start().await;
    let site = Site::start(pages).await;
    let client = start(&["--allow-host".into(), site.allow()]).await;
    let mut site_requests = 0;
    let mut robots_requests = 0;

    for host in HOSTILE {
        let targets = [
            format!("http://{host}:{}/", trap.port),
            format!("https://{host}:{}/", trap.port),
        ];
        for url in &targets {
            for tool in ["get", "post", "fetch"] {
                let out = call(&client, tool, json!({"url": url})).await;
                assert!(out.is_error, "{tool} {url}: {}", out.text);
                assert!(out.text.contains("refused"), "{tool} {url}: {}", out.text);
                assert_eq!(
                    trap.arrived().await,
                    vec![],
                    "{tool} {url} reached the trap"
                );
            }
            // From an allowed host, redirected there.
            let via = site.url(&format!("/go?{url}"));
            for tool in ["get", "post", "fetch"] {
                let out = call(&client, tool, json!({"url": via})).await;
                assert!(out.is_error, "{tool} {via}: {}", out.text);
                assert!(
                    out.text.contains("redirect to") && out.text.contains("refused"),
                    "{tool} {via}: {}",
                    out.text
                );
                assert_eq!(
                    trap.arrived().await,
                    vec![],
                    "{tool} {via} reached the trap"
                );
                site_requests += 1;
                if tool == "fetch" {
                    robots_requests += 1;
                }
            }
        }
    }
    // fetch asks the allowed site for robots.txt (404) before each page.
    let (robots, pages): (Vec<Seen>, Vec<Seen>) = site
        .seen()
        .into_iter()
        .partition(|s| s.path == "/robots.txt");
    assert_eq!(
        pages.len(),
        site_requests,
        "each redirect came from the allowed site"
    );
    assert_eq!(robots.len(), robots_requests);

    // The allowed site on another port is not allowed; file URLs are not followed.
    for target in [
        format!("http://127.0.0.1:{}/", trap.port),
        "file:///etc/passwd".to_owned(),
    ] {
        let out = call(
            &client,
            "get",
            json!({"url": site.url(&format!("/go?{target}"))}),
        )
        .await;
        assert!(
            out.is_error && out.text.contains("refused"),
            "{target}: {}",
            out.text
        );
    }
    assert_eq!(trap.arrived().await, vec![]);

    // Redirects stop at the limit (5): the first request and five more.
    let before = site.seen().len();
    let out = call(&client, "get", json!({"url": site.url("/loop")})).await;
    assert!(
        out.is_error && out.text.contains("too many redirects"),
        "{}",
        out.text
    );
    assert_eq!(site.seen().len() - before, 6);

    // The server still answers, and the allowed site is reached.
    let ok = call(&client, "get", json!({"url": site.url("/ok")})).await;
    assert_eq!(ok.structured["body"], "ok", "{}", ok.text);
    client.close().await;

    // The trap does answer on every stand-in: anything sent would have been seen.
    let direct: Vec<&str> = STAND_INS
        .iter()
        .map(|a| a.split('/').next().unwrap())
        .collect();
    for ip in direct.iter().chain(&["127.0.0.1", "::1"]) {
        let addr = SocketAddr::new(ip.parse().unwrap(), trap.port);
        drop(TcpStream::connect(addr).await.unwrap());
    }
    assert_eq!(trap.arrived().await.len(), direct.len() + 2);
}
