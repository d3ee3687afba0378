//! Re-running a test inside a private network namespace (`unshare -rn`),
//! whose loopback also carries stand-in addresses: what a test sends to a
//! refused address stays on this machine, where a listener can show that
//! nothing arrived.

/// Runs the ignored test `inner` of the calling test binary again (its full
/// name, module path included: `auth_review::plain_http_in_a_namespace`),
/// in a new user and network namespace whose loopback is up and also
/// carries `addresses` (CIDR, as `ip addr add` takes them); the inner test
/// sees `MCP_TEST_IN_NETNS=1`. Panics with its output unless exactly it
/// passed.
pub fn in_network_namespace(inner: &str, addresses: &[&str]) {
    let mut setup = String::from("ip link set lo up");
    for a in addresses {
        setup.push_str(" && ip addr add ");
        setup.push_str(a);
        setup.push_str(" dev lo");
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("unshare")
        .args(["-rn", "sh", "-c"])
        .arg(format!(r#"{setup} && exec "$0" "$@""#))
        .arg(exe)
        .args(["--exact", inner, "--ignored", "--nocapture"])
        .env("MCP_TEST_IN_NETNS", "1")
        .output()
        .expect("unshare (util-linux) and ip (iproute2) are needed for this test");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{inner} in a network namespace:\n{text}"
    );
}

/// Panics unless the test runs inside [`in_network_namespace`].
pub fn assert_in_network_namespace() {
    assert_eq!(
        std::env::var("MCP_TEST_IN_NETNS").as_deref(),
        Ok("1"),
        "only inside the network namespace its outer test makes"
    );
}
