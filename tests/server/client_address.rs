//! Limits that hold per address, not per socket (issue 34): behind a reverse proxy on loopback
//! (`support::forwarding`, appending `X-Forwarded-For` as nginx does, or `Forwarded`) the server
//! started with `--trusted-proxies 127.0.0.1/32` counts each client by its own address; a client
//! that is not a trusted proxy is counted by its own address whatever headers it forges; and the
//! Origin check compares the scheme (plain HTTP unless a trusted proxy says https).
//!
//! The per-address limit used is the seat grants' (`POST /api/games`), with a burst of
//! [`BURST`] and a refill of one per 1,000 s, so no budget refills during a test. The clients
//! connect from distinct loopback addresses (127.0.0.2 ...); the proxy reaches the server from
//! 127.0.0.1. Every loop is bounded by the budget and every wait by [`WAIT`].

use crate::support;

use std::net::{IpAddr, SocketAddr};

use marseillais::server::config::Config;
use marseillais::server::web::client_addr::TrustedProxies;
use support::WAIT;
use support::account::{Browser, COOKIE, code};
use support::forwarding::{Appends, ForwardingProxy};
use support::http::{Reply, exchange_from, head};
use support::process::{Scratch, Spawn, run};
use support::rig::Rig;
use support::session::PASSWORD;

/// Games each address may create before it is refused.
const BURST: usize = 3;

fn ip(text: &str) -> IpAddr {
    text.parse().expect("an address")
}

fn proxies(list: &str) -> TrustedProxies {
    list.parse().expect("valid networks")
}

/// A low seat budget per address, and which proxies are trusted.
fn limits(trusted: &'static str) -> impl FnOnce(&mut Config) {
    move |c: &mut Config| {
        c.create_rate_per_sec = 0.001;
        c.create_burst = BURST as f64;
        c.trusted_proxies = proxies(trusted);
    }
}

/// `POST /api/games` (`{}`) sent to `to` from source address `from`, with extra header lines.
async fn create(to: SocketAddr, from: &str, extra: &[String]) -> Reply {
    let mut lines = vec![
        "Content-Type: application/json".to_owned(),
        "Content-Length: 2".to_owned(),
    ];
    lines.extend_from_slice(extra);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let mut request = head("POST", "/api/games", &lines);
    request.extend_from_slice(b"{}");
    exchange_from(Some(ip(from)), to, &request, WAIT)
        .await
        .unwrap_or_else(|why| panic!("POST /api/games from {from} to {to}: {why}"))
}

/// Creates games from `from` (request `i` with the header lines `extra(i)`) until one is
/// refused, at most `BURST + 3` times; returns how many were granted, having checked the
/// refusal: `429 rate_limited` with a `Retry-After`.
async fn grants_until_refused(
    to: SocketAddr,
    from: &str,
    extra: impl Fn(usize) -> Vec<String>,
) -> usize {
    for i in 0..BURST + 3 {
        let reply = create(to, from, &extra(i)).await;
        match reply.status {
            201 => {}
            429 => {
                assert_eq!(code(&reply), "rate_limited", "{}", reply.body);
                assert!(
                    reply
                        .header("retry-after")
                        .is_some_and(|secs| secs.parse::<u64>().is_ok_and(|n| n > 0)),
                    "no Retry-After: {}",
                    reply.head
                );
                return i;
            }
            other => panic!("{from}: unexpected {other}: {}", reply.body),
        }
    }
    panic!("{from}: never refused after {} games", BURST + 3);
}

fn none(_: usize) -> Vec<String> {
    Vec::new()
}

#[tokio::test]
async fn behind_a_trusted_proxy_two_clients_have_separate_seat_budgets() {
    let server = Rig::start_with(limits("127.0.0.1/32")).await;
    let proxy = ForwardingProxy::start(server.addr(), Appends::XForwardedFor, None).await;
    assert_eq!(
        grants_until_refused(proxy.addr, "127.0.0.2", none).await,
        BURST
    );
    let other = create(proxy.addr, "127.0.0.3", &[]).await;
    assert_eq!(other.status, 201, "another client: {}", other.body);
    server.stop().await;
}

#[tokio::test]
async fn behind_a_proxy_appending_forwarded_two_clients_have_separate_seat_budgets() {
    let server = Rig::start_with(limits("127.0.0.1/32")).await;
    let proxy = ForwardingProxy::start(server.addr(), Appends::Forwarded, None).await;
    assert_eq!(
        grants_until_refused(proxy.addr, "127.0.0.2", none).await,
        BURST
    );
    let other = create(proxy.addr, "127.0.0.3", &[]).await;
    assert_eq!(other.status, 201, "another client: {}", other.body);
    server.stop().await;
}

#[tokio::test]
async fn without_trusted_proxies_every_client_of_the_proxy_shares_its_budget() {
    let server = Rig::start_with(limits("")).await;
    let proxy = ForwardingProxy::start(server.addr(), Appends::XForwardedFor, None).await;
    assert_eq!(
        grants_until_refused(proxy.addr, "127.0.0.2", none).await,
        BURST
    );
    let other = create(proxy.addr, "127.0.0.3", &[]).await;
    assert_eq!(
        other.status, 429,
        "the proxy's budget is spent: {}",
        other.body
    );
    server.stop().await;
}

#[tokio::test]
async fn a_direct_client_forging_forwarding_headers_is_limited_by_its_own_address() {
    let server = Rig::start_with(limits("127.0.0.1/32")).await;
    // A fresh forged address on every request: were any believed, no budget would run out.
    let forged = |i: usize| {
        let fake = format!("127.0.0.{}", 9 + i);
        vec![
            format!("X-Forwarded-For: {fake}"),
            format!("Forwarded: for={fake}"),
        ]
    };
    assert_eq!(
        grants_until_refused(server.addr(), "127.0.0.5", forged).await,
        BURST
    );
    // The address it claimed first was never charged.
    let proxy = ForwardingProxy::start(server.addr(), Appends::XForwardedFor, None).await;
    let claimed = create(proxy.addr, "127.0.0.9", &[]).await;
    assert_eq!(claimed.status, 201, "127.0.0.9: {}", claimed.body);
    server.stop().await;
}

#[tokio::test]
async fn a_trusted_proxy_appending_to_a_forged_x_forwarded_for_names_the_real_client() {
    let server = Rig::start_with(limits("127.0.0.1/32")).await;
    let proxy = ForwardingProxy::start(server.addr(), Appends::XForwardedFor, None).await;
    // The proxy turns each into `X-Forwarded-For: 127.0.0.<20+i>, 127.0.0.6`.
    let forged = |i: usize| vec![format!("X-Forwarded-For: 127.0.0.{}", 20 + i)];
    assert_eq!(
        grants_until_refused(proxy.addr, "127.0.0.6", forged).await,
        BURST
    );
    let claimed = create(proxy.addr, "127.0.0.20", &[]).await;
    assert_eq!(claimed.status, 201, "127.0.0.20: {}", claimed.body);
    server.stop().await;
}

/// `POST /api/games` with a session cookie, `Host: host` and `Origin: origin` (and extra lines),
/// sent to `to` from `from`.
async fn cookied_create(
    to: SocketAddr,
    from: &str,
    (host, origin): (SocketAddr, &str),
    session: &str,
    extra: &[&str],
) -> Reply {
    let mut request = format!(
        "POST /api/games HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: 2\r\n\
         Cookie: {COOKIE}={session}\r\nOrigin: {origin}\r\n"
    );
    for line in extra {
        request.push_str(line);
        request.push_str("\r\n");
    }
    request.push_str("\r\n{}");
    exchange_from(Some(ip(from)), to, request.as_bytes(), WAIT)
        .await
        .unwrap_or_else(|why| panic!("POST /api/games from {from}: {why}"))
}

/// A registered account's session id on `server`.
async fn session(server: &Rig, name: &str) -> String {
    let mut browser = Browser::new(server.addr());
    let reply = browser.register(name, PASSWORD).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    browser.session.expect("a session cookie")
}

#[tokio::test]
async fn a_plain_http_server_refuses_a_cookied_change_from_its_https_origin_and_takes_its_http_one()
{
    let server = Rig::start_with(|c| c.create_rate_per_sec = 0.0).await;
    let addr = server.addr();
    let session = session(&server, "gwen").await;
    let https = format!("https://{addr}");
    let refused = cookied_create(addr, "127.0.0.1", (addr, &https), &session, &[]).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(code(&refused), "bad_origin");
    let http = format!("http://{addr}");
    let created = cookied_create(addr, "127.0.0.1", (addr, &http), &session, &[]).await;
    assert_eq!(created.status, 201, "{}", created.body);
    server.stop().await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_terminating_tls_the_https_origin_passes_and_a_forged_proto_does_not()
 {
    let server = Rig::start_with(|c| {
        c.create_rate_per_sec = 0.0;
        c.trusted_proxies = proxies("127.0.0.1/32");
    })
    .await;
    let addr = server.addr();
    let session = session(&server, "hugo").await;
    let proxy = ForwardingProxy::start(addr, Appends::XForwardedFor, Some("https")).await;
    let site = proxy.addr;
    let https = format!("https://{site}");
    let created = cookied_create(site, "127.0.0.2", (site, &https), &session, &[]).await;
    assert_eq!(created.status, 201, "through the proxy: {}", created.body);
    let http = format!("http://{site}");
    let refused = cookied_create(site, "127.0.0.2", (site, &http), &session, &[]).await;
    assert_eq!(refused.status, 403, "http behind https: {}", refused.body);
    // A client that is no trusted proxy cannot claim https for itself.
    let https_direct = format!("https://{addr}");
    let forged = cookied_create(
        addr,
        "127.0.0.5",
        (addr, &https_direct),
        &session,
        &["X-Forwarded-Proto: https", "Forwarded: proto=https"],
    )
    .await;
    assert_eq!(forged.status, 403, "forged proto: {}", forged.body);
    assert_eq!(code(&forged), "bad_origin");
    server.stop().await;
}

#[tokio::test]
async fn the_binary_takes_trusted_proxies_from_its_environment_and_refuses_a_bad_network() {
    let exe = env!("CARGO_BIN_EXE_marseillais");
    let scratch = Scratch::new();
    let data = scratch.data();
    let data = data.to_str().expect("a UTF-8 path");
    let refused = run(
        exe,
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            data,
            "--trusted-proxies",
            "127.0.0.1/32,10.0.0.1/8",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("the network is 10.0.0.0/8"),
        "the message names the fix: {stderr}"
    );
    let burst = BURST.to_string();
    let server = Spawn::new(&scratch.data())
        .env("MARSEILLAIS_TRUSTED_PROXIES", "127.0.0.1/32,::1/128")
        .flags(&["--create-rate-per-sec", "0.001", "--create-burst", &burst])
        .spawn()
        .await;
    let proxy = ForwardingProxy::start(server.addr, Appends::XForwardedFor, None).await;
    assert_eq!(
        grants_until_refused(proxy.addr, "127.0.0.2", none).await,
        BURST
    );
    let other = create(proxy.addr, "127.0.0.3", &[]).await;
    assert_eq!(other.status, 201, "another client: {}", other.body);
    let (status, games) =
        support::http::json(server.addr, "GET", "/api/games?status=open", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        games["games"].as_array().map(Vec::len),
        Some(BURST + 1),
        "{games}"
    );
    assert!(server.terminate().await, "a clean shutdown");
}
