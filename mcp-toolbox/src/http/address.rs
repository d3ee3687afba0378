//! Which IP addresses are public: everything else is refused unless allowed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is not a public address, or `None` when it is one.
///
/// IPv6 addresses that embed an IPv4 one (mapped, NAT64, 6to4, Teredo) are
/// judged by what they embed; anything outside global unicast `2000::/3` is
/// refused, so are the special ranges inside it.
pub(crate) fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let reason = match (a, b, c) {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_broadcast() => "broadcast",
        (0, ..) => "\"this network\" (0.0.0.0/8)",
        (10, ..) => "private (10.0.0.0/8)",
        (100, 64..=127, _) => "carrier-grade NAT (100.64.0.0/10)",
        (127, ..) => "loopback",
        (169, 254, _) => "link-local (169.254.0.0/16)",
        (172, 16..=31, _) => "private (172.16.0.0/12)",
        (192, 0, 0) => "IETF protocol assignments (192.0.0.0/24)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (192, 88, 99) => "6to4 relay anycast (192.88.99.0/24)",
        (192, 168, _) => "private (192.168.0.0/16)",
        (198, 18..=19, _) => "benchmarking (198.18.0.0/15)",
        (224..=239, ..) => "multicast",
        (240..=255, ..) => "reserved (240.0.0.0/4)",
        _ => return None,
    };
    Some(reason)
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return non_public_v4(v4).map(|_| "IPv4-mapped, embedding an address that is not public");
    }
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    if s[..6] == [0; 6] {
        return Some("IPv4-compatible (deprecated)");
    }
    // NAT64 well-known prefix: as public as the IPv4 address inside.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return non_public_v4(embedded(s[6], s[7]))
            .map(|_| "NAT64, embedding an address that is not public");
    }
    let reason = match s[0] {
        0xfc00..=0xfdff => "unique local (fc00::/7)",
        0xfe80..=0xfebf => "link-local (fe80::/10)",
        0xfec0..=0xfeff => "site-local (fec0::/10)",
        0xff00..=0xffff => "multicast",
        0x2000..=0x3fff => return non_public_global_v6(s),
        _ => "not global unicast (outside 2000::/3)",
    };
    Some(reason)
}

/// The special ranges inside `2000::/3`.
fn non_public_global_v6(s: [u16; 8]) -> Option<&'static str> {
    match s {
        // Teredo: the server's address in clear, the client's inverted.
        [0x2001, 0, server_hi, server_lo, _, _, client_hi, client_lo] => {
            let server = embedded(server_hi, server_lo);
            let client = embedded(!client_hi, !client_lo);
            (non_public_v4(server).is_some() || non_public_v4(client).is_some())
                .then_some("Teredo, embedding an address that is not public")
        }
        [0x2001, 2, 0, ..] => Some("benchmarking (2001:2::/48)"),
        [0x2001, 0x10..=0x2f, ..] => Some("ORCHID (2001:10::/28, 2001:20::/28)"),
        [0x2001, 0xdb8, ..] => Some("documentation (2001:db8::/32)"),
        [0x2002, hi, lo, ..] => {
            non_public_v4(embedded(hi, lo)).map(|_| "6to4, embedding an address that is not public")
        }
        [0x3fff, 0..=0x0fff, ..] => Some("documentation (3fff::/20)"),
        _ => None,
    }
}

fn embedded(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

/// The address to connect to: an IPv4-mapped IPv6 address as the IPv4
/// address it is.
pub(crate) fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        non_public(text.parse().unwrap()).is_some()
    }

    #[test]
    fn every_special_ipv4_range_is_refused() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(refused(ip), "{ip} should be refused");
        }
    }

    #[test]
    fn public_ipv4_addresses_next_to_the_special_ranges_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "192.167.0.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert!(!refused(ip), "{ip} should pass");
        }
    }

    #[test]
    fn every_special_ipv6_range_is_refused() {
        for ip in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::8.8.8.8",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "100::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001:2::1",
            "2001:10::1",
            "2001:20::1",
            "2002:7f00:1::1",
            "2002:a00:1::1",
            "2002:c0a8:101::1",
            "3fff::1",
            // Teredo whose client is 10.0.0.1 (inverted), and whose server is 127.0.0.1.
            "2001:0:4136:e378:8000:63bf:f5ff:fffe",
            "2001:0:7f00:1:8000:63bf:3fff:fdd2",
            "4000::1",
        ] {
            assert!(refused(ip), "{ip} should be refused");
        }
    }

    #[test]
    fn public_ipv6_addresses_and_embeddings_of_public_ipv4_pass() {
        for ip in [
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            // Teredo: server 65.54.227.120, client 8.8.8.8 (inverted): both public
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        ] {
            assert!(!refused(ip), "{ip} should pass");
        }
    }

    #[test]
    fn mapped_addresses_are_connected_to_as_ipv4() {
        let mapped: IpAddr = "::ffff:8.8.8.8".parse().unwrap();
        assert_eq!(canonical(mapped), "8.8.8.8".parse::<IpAddr>().unwrap());
        let plain: IpAddr = "2606:4700::1".parse().unwrap();
        assert_eq!(canonical(plain), plain);
    }
}
