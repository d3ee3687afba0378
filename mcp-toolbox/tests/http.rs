//! The HTTP toolbox seen from outside: what its tools claim to be, and which
//! of the caller's headers a redirect carries where, against loopback sites
//! (allowed by name, as a host allows a local service).

#[cfg(feature = "openapi")]
mod openapi;

use mcp_test_support::http_site;

use std::collections::HashMap;

use http_site::{reply, Seen, Site};
use oxmcp_server::ToolBox;
use oxmcp_toolbox::http::{Http, HttpResponse};

#[test]
fn every_tool_reaches_the_open_world_and_none_claims_to_be_read_only() {
    let tools = Http::default().into_tools();
    assert_eq!(tools.len(), 3);
    for entry in tools {
        let def = serde_json::to_value(entry.tool()).unwrap();
        let hints = &def["annotations"];
        // A URL carries data out, and a GET can act on the site: a host that
        // runs read-only tools without asking must ask for these.
        assert_ne!(hints["readOnlyHint"], true, "{}", def["name"]);
        assert_eq!(hints["openWorldHint"], true, "{}", def["name"]);
    }
}

/// Headers a caller sets: credentials by name and by custom name, and plain ones.
fn caller_headers() -> HashMap<String, String> {
    [
        ("X-Api-Key", "key-123"),
        ("Authorization", "Bearer t"),
        ("X-Trace", "trace-1"),
        ("Accept", "text/plain"),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_owned(), v.to_owned()))
    .collect()
}

/// A site that answers `/cross` with a redirect to `elsewhere`, `/same`
/// with one to its own `/landing`, and everything else with its name.
async fn redirecting(elsewhere: String) -> Site {
    Site::start(move |seen: &Seen| match seen.path.as_str() {
        "/cross" => reply("302 Found", &[("location", &elsewhere)], b""),
        "/same" => reply("302 Found", &[("location", "/landing")], b""),
        _ => reply("200 OK", &[], b"first"),
    })
    .await
}

async fn answering(name: &'static str) -> Site {
    Site::start(move |_: &Seen| reply("200 OK", &[], name.as_bytes())).await
}

async fn get(http: &Http, url: String) -> HttpResponse {
    http.get(url, Some(caller_headers())).await.unwrap().0
}

/// The one request `site` saw at `path`.
fn request_at(site: &Site, path: &str) -> Seen {
    let seen: Vec<Seen> = site.seen().into_iter().filter(|s| s.path == path).collect();
    assert_eq!(seen.len(), 1, "{path}: {seen:?}");
    seen.into_iter().next().unwrap()
}

#[tokio::test]
async fn a_redirect_to_another_origin_carries_none_of_the_callers_headers() {
    // Two ports of 127.0.0.1: two origins.
    let other = answering("other").await;
    let first = redirecting(other.url("/landing")).await;
    let http = Http::builder().allow_host("127.0.0.1").build();

    let out = get(&http, first.url("/cross")).await;
    assert_eq!((out.status, out.body.as_str()), (200, "other"));
    let there = request_at(&other, "/landing");
    for name in caller_headers().keys() {
        assert_eq!(there.header(name), None, "{name} went to the other origin");
    }
    // The first origin, asked by the caller, had them all.
    let asked = request_at(&first, "/cross");
    for (name, value) in caller_headers() {
        assert_eq!(asked.header(&name), Some(value.as_str()), "{name}");
    }

    // A redirect within the origin keeps them.
    let out = get(&http, first.url("/same")).await;
    assert_eq!((out.status, out.body.as_str()), (200, "first"));
    let landed = request_at(&first, "/landing");
    for (name, value) in caller_headers() {
        assert_eq!(landed.header(&name), Some(value.as_str()), "{name}");
    }
}

#[tokio::test]
async fn an_origin_named_to_share_headers_receives_them_and_no_other_does() {
    let partner = answering("partner").await;
    let stranger = answering("stranger").await;
    let to_partner = redirecting(partner.url("/landing")).await;
    let to_stranger = redirecting(stranger.url("/landing")).await;
    let http = Http::builder()
        .allow_host("127.0.0.1")
        .share_headers_with(&partner.url(""))
        .unwrap()
        .build();

    get(&http, to_partner.url("/cross")).await;
    let there = request_at(&partner, "/landing");
    for (name, value) in caller_headers() {
        assert_eq!(there.header(&name), Some(value.as_str()), "{name}");
    }
    get(&http, to_stranger.url("/cross")).await;
    let there = request_at(&stranger, "/landing");
    for name in caller_headers().keys() {
        assert_eq!(there.header(name), None, "{name} went to a stranger");
    }
}

#[test]
fn sharing_headers_takes_an_http_or_https_origin_only() {
    for bad in [
        "",
        "example.com",
        "file:///etc",
        "https://",
        "data:text/plain,x",
    ] {
        let built = Http::builder().share_headers_with(bad);
        assert!(built.is_err(), "{bad:?}");
    }
    for good in [
        "https://api.example.com",
        "http://127.0.0.1:8080",
        "https://[::1]",
    ] {
        assert!(Http::builder().share_headers_with(good).is_ok(), "{good}");
    }
}
