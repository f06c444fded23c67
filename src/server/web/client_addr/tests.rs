use axum::http::HeaderValue;

use super::*;

fn trusted(list: &str) -> TrustedProxies {
    list.parse().expect("a valid list")
}

fn peer(ip: &str) -> SocketAddr {
    SocketAddr::new(ip.parse().expect("an address"), 40_000)
}

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an address")
}

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let name = HeaderName::from_bytes(name.as_bytes()).expect("a header name");
        map.append(name, HeaderValue::from_str(value).expect("a header value"));
    }
    map
}

/// The client address of a request from `from` (port dropped: the tests compare addresses).
fn client(proxies: &TrustedProxies, from: &str, pairs: &[(&str, &str)]) -> IpAddr {
    proxies.client(peer(from), &headers(pairs)).ip()
}

#[test]
fn networks_parse_in_both_families_and_a_bare_address_is_one_host() {
    let proxies = trusted("127.0.0.1/32, 10.0.0.0/8,::1/128,2001:db8::/32,192.168.1.7");
    assert_eq!(
        proxies.to_string(),
        "127.0.0.1/32,10.0.0.0/8,::1/128,2001:db8::/32,192.168.1.7/32"
    );
    for inside in [
        "127.0.0.1",
        "10.255.3.4",
        "::1",
        "2001:db8:ffff::9",
        "192.168.1.7",
    ] {
        assert!(proxies.contains(ip(inside)), "{inside}");
    }
    for outside in ["127.0.0.2", "11.0.0.1", "::2", "2001:db9::1", "192.168.1.8"] {
        assert!(!proxies.contains(ip(outside)), "{outside}");
    }
    assert!(trusted("0.0.0.0/0").contains(ip("203.0.113.9")));
    assert!(!trusted("0.0.0.0/0").contains(ip("2001:db8::1")), "v4 only");
    assert!(trusted("::/0").contains(ip("2001:db8::1")));
}

#[test]
fn an_ipv4_mapped_ipv6_peer_is_its_ipv4_address() {
    assert!(trusted("127.0.0.1/32").contains(ip("::ffff:127.0.0.1")));
}

#[test]
fn an_empty_list_trusts_nobody_and_is_the_default() {
    assert_eq!(trusted(""), TrustedProxies::default());
    assert_eq!(trusted(" , "), TrustedProxies::default());
    assert!(TrustedProxies::default().is_empty());
    assert!(!TrustedProxies::default().contains(ip("127.0.0.1")));
}

#[test]
fn a_bad_entry_is_refused_with_a_typed_error_naming_it() {
    for (bad, expected) in [
        (
            "127.0.0.1/33",
            BadCidr::Prefix {
                value: "127.0.0.1/33".into(),
                max: 32,
            },
        ),
        (
            "::1/129",
            BadCidr::Prefix {
                value: "::1/129".into(),
                max: 128,
            },
        ),
        (
            "10.0.0.0/+8",
            BadCidr::Prefix {
                value: "10.0.0.0/+8".into(),
                max: 32,
            },
        ),
        (
            "10.0.0.0/",
            BadCidr::Prefix {
                value: "10.0.0.0/".into(),
                max: 32,
            },
        ),
        (
            "localhost",
            BadCidr::Address {
                value: "localhost".into(),
            },
        ),
        (
            "10.0.0/8",
            BadCidr::Address {
                value: "10.0.0/8".into(),
            },
        ),
        (
            "10.0.0.1/8",
            BadCidr::HostBits {
                value: "10.0.0.1/8".into(),
                prefix: 8,
                network: "10.0.0.0/8".into(),
            },
        ),
        (
            "2001:db8::1/32",
            BadCidr::HostBits {
                value: "2001:db8::1/32".into(),
                prefix: 32,
                network: "2001:db8::/32".into(),
            },
        ),
    ] {
        assert_eq!(bad.parse::<Cidr>(), Err(expected.clone()), "{bad}");
        let list = format!("127.0.0.1/32,{bad}");
        assert_eq!(list.parse::<TrustedProxies>(), Err(expected), "{list}");
    }
    let message = "10.0.0.1/8".parse::<Cidr>().err().map(|e| e.to_string());
    assert_eq!(
        message.as_deref(),
        Some("\"10.0.0.1/8\" has bits set after its /8: the network is 10.0.0.0/8")
    );
}

#[test]
fn an_untrusted_peer_is_the_client_whatever_the_headers_say() {
    let forged = [
        ("x-forwarded-for", "198.51.100.1"),
        ("forwarded", "for=198.51.100.2"),
        ("x-forwarded-proto", "https"),
    ];
    for proxies in [TrustedProxies::default(), trusted("10.0.0.0/8")] {
        let from = peer("203.0.113.5");
        assert_eq!(proxies.client(from, &headers(&forged)), from, "{proxies}");
        assert_eq!(proxies.scheme(from, &headers(&forged)), Scheme::Http);
    }
}

#[test]
fn a_trusted_peer_names_the_last_untrusted_hop_of_x_forwarded_for() {
    let proxies = trusted("127.0.0.1/32,10.0.0.0/8");
    // One proxy: the address it appended.
    assert_eq!(
        client(&proxies, "127.0.0.1", &[("x-forwarded-for", "203.0.113.7")]),
        ip("203.0.113.7")
    );
    // The client forged a leftmost hop; the proxy appended the real one.
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[("x-forwarded-for", "198.51.100.9, 203.0.113.7")]
        ),
        ip("203.0.113.7")
    );
    // Two proxies: the inner one's hop is skipped.
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[("x-forwarded-for", "198.51.100.9,203.0.113.7 , 10.1.2.3")]
        ),
        ip("203.0.113.7")
    );
    // Several headers are one list, in order.
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[
                ("x-forwarded-for", "198.51.100.9"),
                ("x-forwarded-for", "203.0.113.7, 10.1.2.3"),
                ("x-forwarded-for", "10.4.5.6")
            ]
        ),
        ip("203.0.113.7")
    );
}

#[test]
fn the_client_address_keeps_the_peers_port_only_when_it_is_the_peer() {
    let proxies = trusted("127.0.0.1/32");
    let proxied = proxies.client(
        peer("127.0.0.1"),
        &headers(&[("x-forwarded-for", "203.0.113.7")]),
    );
    assert_eq!(proxied, SocketAddr::new(ip("203.0.113.7"), 0));
    let direct = proxies.client(peer("127.0.0.1"), &HeaderMap::new());
    assert_eq!(direct, peer("127.0.0.1"));
}

#[test]
fn when_every_hop_is_trusted_the_leftmost_is_the_client() {
    let proxies = trusted("10.0.0.0/8");
    assert_eq!(
        client(
            &proxies,
            "10.0.0.1",
            &[("x-forwarded-for", "10.9.9.9, 10.0.0.2")]
        ),
        ip("10.9.9.9")
    );
}

#[test]
fn garbage_or_missing_headers_leave_the_peer() {
    let proxies = trusted("127.0.0.1/32");
    for pairs in [
        &[][..],
        &[("x-forwarded-for", "")],
        &[("x-forwarded-for", "not an address")],
        &[("x-forwarded-for", "unknown")],
        &[("x-forwarded-for", "203.0.113.7, ")],
        &[("x-forwarded-for", "203.0.113.7,localhost")],
        &[("forwarded", "for=unknown")],
        &[("forwarded", "for=_hidden")],
        &[("forwarded", "proto=https")],
        &[("forwarded", "garbage")],
    ] {
        assert_eq!(
            client(&proxies, "127.0.0.1", pairs),
            ip("127.0.0.1"),
            "{pairs:?}"
        );
    }
    // Not text: the same.
    let mut binary = HeaderMap::new();
    binary.insert(
        X_FORWARDED_FOR,
        HeaderValue::from_bytes(b"203.0.113.7\xff").expect("a header value"),
    );
    assert_eq!(
        proxies.client(peer("127.0.0.1"), &binary),
        peer("127.0.0.1")
    );
}

#[test]
fn a_hop_that_is_not_an_address_ends_the_walk_at_the_last_trusted_hop() {
    let proxies = trusted("127.0.0.1/32,10.0.0.0/8");
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[("x-forwarded-for", "203.0.113.7, garbage, 10.0.0.3")]
        ),
        ip("10.0.0.3")
    );
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[("forwarded", "for=203.0.113.7, for=unknown, for=10.0.0.3")]
        ),
        ip("10.0.0.3")
    );
}

#[test]
fn forwarded_for_is_read_the_same_way_with_quotes_brackets_and_ports() {
    let proxies = trusted("127.0.0.1/32,::1/128");
    for (value, expected) in [
        ("for=203.0.113.7", "203.0.113.7"),
        ("For=\"203.0.113.7:4711\"", "203.0.113.7"),
        ("for=\"[2001:db8:cafe::17]\"", "2001:db8:cafe::17"),
        ("for=\"[2001:db8:cafe::17]:4711\"", "2001:db8:cafe::17"),
        ("for=\"[2001:db8:cafe::17]:_port\"", "2001:db8:cafe::17"),
        (
            "for=198.51.100.9;proto=http, for=203.0.113.7;proto=https;by=127.0.0.1",
            "203.0.113.7",
        ),
        (
            "for=198.51.100.9, for=203.0.113.7, for=\"[::1]\"",
            "203.0.113.7",
        ),
        ("proto=https; for=203.0.113.7", "203.0.113.7"),
    ] {
        assert_eq!(
            client(&proxies, "127.0.0.1", &[("forwarded", value)]),
            ip(expected),
            "{value}"
        );
    }
    assert_eq!(
        client(
            &proxies,
            "::1",
            &[
                ("forwarded", "for=198.51.100.9"),
                ("forwarded", "for=203.0.113.7")
            ]
        ),
        ip("203.0.113.7"),
        "several headers are one list"
    );
}

#[test]
fn a_clients_unbalanced_quote_cannot_swallow_the_hop_a_proxy_appended() {
    let proxies = trusted("127.0.0.1/32");
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[("forwarded", "for=\"198.51.100.9, for=203.0.113.7")]
        ),
        ip("203.0.113.7")
    );
}

#[test]
fn x_forwarded_for_wins_over_forwarded() {
    let proxies = trusted("127.0.0.1/32");
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[
                ("forwarded", "for=198.51.100.9"),
                ("x-forwarded-for", "203.0.113.7")
            ]
        ),
        ip("203.0.113.7")
    );
    // Present, it decides even when it names nobody.
    assert_eq!(
        client(
            &proxies,
            "127.0.0.1",
            &[
                ("forwarded", "for=198.51.100.9"),
                ("x-forwarded-for", "junk")
            ]
        ),
        ip("127.0.0.1")
    );
}

#[test]
fn ipv6_and_ported_hops_in_x_forwarded_for_are_addresses() {
    let proxies = trusted("127.0.0.1/32");
    for (value, expected) in [
        ("2001:db8::5", "2001:db8::5"),
        ("[2001:db8::5]:443", "2001:db8::5"),
        ("203.0.113.7:51234", "203.0.113.7"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
    ] {
        assert_eq!(
            client(&proxies, "127.0.0.1", &[("x-forwarded-for", value)]),
            ip(expected),
            "{value}"
        );
    }
}

#[test]
fn ten_thousand_hops_are_read_no_further_than_the_first_untrusted_one_or_max_hops() {
    let proxies = trusted("10.0.0.0/8");
    // 10,000 forged hops left of the real one: only the rightmost is read.
    let mut forged = "198.51.100.1,".repeat(10_000);
    forged.push_str("203.0.113.7");
    assert_eq!(
        client(&proxies, "10.0.0.1", &[("x-forwarded-for", &forged)]),
        ip("203.0.113.7")
    );
    // 10,000 trusted hops: the walk stops after MAX_HOPS of them, at a trusted one.
    let hop = |i: usize| format!("10.0.{}.{}", (i >> 8) & 0xff, i & 0xff);
    let mut trusted_hops = String::from("203.0.113.7");
    for i in 0..10_000 {
        trusted_hops.push(',');
        trusted_hops.push_str(&hop(i));
    }
    let found = client(&proxies, "10.0.0.1", &[("x-forwarded-for", &trusted_hops)]);
    assert_eq!(
        found,
        ip(&hop(10_000 - MAX_HOPS)),
        "the last of the MAX_HOPS read from the right"
    );
}

#[test]
fn the_scheme_comes_from_a_trusted_proxy_only_and_is_http_otherwise() {
    let proxies = trusted("127.0.0.1/32");
    let scheme = |from: &str, pairs: &[(&str, &str)]| proxies.scheme(peer(from), &headers(pairs));
    assert_eq!(scheme("127.0.0.1", &[]), Scheme::Http);
    assert_eq!(
        scheme("127.0.0.1", &[("x-forwarded-proto", "https")]),
        Scheme::Https
    );
    assert_eq!(
        scheme("127.0.0.1", &[("x-forwarded-proto", "HTTPS, http")]),
        Scheme::Https,
        "the first value: what the proxy nearest the browser saw"
    );
    assert_eq!(
        scheme("127.0.0.1", &[("x-forwarded-proto", "gopher")]),
        Scheme::Http
    );
    assert_eq!(
        scheme("127.0.0.1", &[("forwarded", "for=203.0.113.7;proto=https")]),
        Scheme::Https
    );
    assert_eq!(
        scheme(
            "127.0.0.1",
            &[
                ("forwarded", "for=203.0.113.7;proto=https"),
                ("x-forwarded-proto", "http")
            ]
        ),
        Scheme::Http,
        "X-Forwarded-Proto wins, as X-Forwarded-For does"
    );
    assert_eq!(
        scheme("203.0.113.5", &[("x-forwarded-proto", "https")]),
        Scheme::Http
    );
}
