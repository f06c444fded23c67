//! The accept loop: one hyper HTTP/1 connection per TCP stream, with the
//! limits `axum::serve` does not set.
//!
//! - Connections: at most `max_connections` open at once (by default all that
//!   the process's descriptor limit allows, raised to its hard limit at start),
//!   counting upgraded WebSockets; beyond it a new connection is closed at
//!   accept (logged, counted in `marseillais_connections_refused_total`), so
//!   that descriptors never run out and `/healthz` answers as soon as a slot
//!   frees.
//! - Headers: hyper's header-read timeout (it also ends idle keep-alive
//!   connections), which needs a timer: `axum::serve` runs hyper without one.
//! - Each request: a deadline from its headers to its response (408), a
//!   request-target length limit (414). Bodies have their own timeout and
//!   size limits where they are read ([`crate::server::web::read_json_body`]).
//!
//! Each request carries, as extensions, `ConnectInfo` with its client's address (the TCP peer,
//! or behind a `--trusted-proxies` proxy the address that proxy names: [`super::client_addr`]),
//! the peer itself ([`PeerAddr`]) and the scheme the browser used
//! ([`super::client_addr::Scheme`]).
//!
//! WebSocket upgrades still work (`with_upgrades`); the deadline covers the
//! upgrade request only, and once upgraded a connection is the socket task's
//! business (idle timeout, ping/pong: see [`crate::server::play::socket`]).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;

use crate::server::metrics::Metrics;
use crate::server::web::client_addr::{PeerAddr, TrustedProxies};
use crate::server::web::{ApiError, EdgeCode, MAX_URI_BYTES};

/// How long a graceful shutdown waits for requests in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Descriptors kept for everything but client connections (the database
/// and its journal, the listener, logs, a restart's reload...).
const RESERVED_DESCRIPTORS: usize = 64;

/// What the accept loop enforces (from [`crate::server::config::Config`]).
#[derive(Clone)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub request_timeout: Duration,
    /// `None`: as many as the descriptor limit allows.
    pub max_connections: Option<usize>,
    pub metrics: Arc<Metrics>,
    /// Whose forwarding headers name the client ([`super::client_addr`]).
    pub trusted_proxies: Arc<TrustedProxies>,
}

/// One of the `max_connections` slots, held by the connection's task and,
/// once it is upgraded, by its WebSocket (found in the request extensions).
#[derive(Clone)]
pub struct ConnectionSlot(#[allow(dead_code)] Arc<OwnedSemaphorePermit>);

/// Accepts connections until `stop` turns true, then lets the ones in
/// flight finish (bounded by [`DRAIN_TIMEOUT`]).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let max = max_connections(limits.max_connections, open_files_limit());
    tracing::info!(max_connections = max, "accepting connections");
    if !limits.trusted_proxies.is_empty() {
        tracing::info!(
            trusted_proxies = %limits.trusted_proxies,
            "client addresses from X-Forwarded-For / Forwarded of these proxies"
        );
    }
    let slots = Arc::new(Semaphore::new(max));
    let mut refusals = RefusalLog::default();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match Arc::clone(&slots).try_acquire_owned() {
                    Ok(permit) => {
                        let slot = ConnectionSlot(Arc::new(permit));
                        connections.spawn(serve_connection(
                            stream, peer, slot, app.clone(), limits.clone(), stop.clone(),
                        ));
                    }
                    Err(_) => {
                        // Closed without a word: answering would need the
                        // resources the limit protects.
                        drop(stream);
                        limits.metrics.connections_refused.fetch_add(1, Ordering::Relaxed);
                        refusals.note(max);
                    }
                },
                Err(error) => {
                    // Out of file descriptors and the like: back off
                    // instead of spinning, and keep serving.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            left = connections.len(),
            "connections still open after the drain timeout"
        );
        connections.abort_all();
    }
}

/// Logs refused connections at most once a second (a flood of them must
/// not become a flood of log lines).
#[derive(Default)]
struct RefusalLog {
    last: Option<Instant>,
    unlogged: u64,
}

impl RefusalLog {
    fn note(&mut self, max: usize) {
        self.unlogged += 1;
        let now = Instant::now();
        if self
            .last
            .is_none_or(|last| now.duration_since(last) >= Duration::from_secs(1))
        {
            tracing::warn!(
                refused = self.unlogged,
                max_connections = max,
                "connection limit reached: refusing new connections"
            );
            self.last = Some(now);
            self.unlogged = 0;
        }
    }
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    slot: ConnectionSlot,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    // Moves are small frames sent back to back (ack, then the event):
    // Nagle's algorithm would hold the second for a delayed ACK.
    let _ = stream.set_nodelay(true);
    let deadline = limits.request_timeout;
    let proxies = Arc::clone(&limits.trusted_proxies);
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        // Every per-address limit reads `ConnectInfo`: it holds the client (the peer itself
        // unless the peer is a trusted proxy), so none of them needs to know about proxies.
        let client = proxies.client(peer, request.headers());
        let scheme = proxies.scheme(peer, request.headers());
        let extensions = request.extensions_mut();
        extensions.insert(ConnectInfo(client));
        extensions.insert(PeerAddr(peer));
        extensions.insert(scheme);
        extensions.insert(slot.clone());
        let app = app.clone();
        async move { Ok::<_, Infallible>(answer(app, request, deadline).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        }
        _ = stopped(&mut stop) => {
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// One request through the router, within the request deadline.
async fn answer(app: Router, request: Request<Incoming>, deadline: Duration) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > MAX_URI_BYTES {
        return ApiError::http(
            StatusCode::URI_TOO_LONG,
            EdgeCode::UriTooLong,
            format!("the request target is over {MAX_URI_BYTES} bytes"),
        )
        .into_response();
    }
    let app = TowerToHyperService::new(app);
    match tokio::time::timeout(deadline, hyper::service::Service::call(&app, request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(never)) => match never {},
        Err(_) => ApiError::request_timeout("request").into_response(),
    }
}

/// Connections when the descriptor limit is unlimited (the kernel's `nr_open` still bounds
/// them; 2^20 is its default).
const UNLIMITED_DESCRIPTORS: usize = 1 << 20;

/// Raises this process's soft open-files limit to its hard limit, as an unprivileged process
/// may (Go's runtime does the same at start; systemd gives services a soft 1,024 under a hard
/// 524,288), and returns the soft limit now in force (`None`: unlimited).
fn open_files_limit() -> Option<usize> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let mut current = limit.current;
    if let Some(hard) = limit.maximum
        && current.is_some_and(|soft| soft < hard)
    {
        let raised = Rlimit {
            current: Some(hard),
            maximum: Some(hard),
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => current = Some(hard),
            Err(error) => tracing::warn!(%error, "could not raise the open-files limit"),
        }
    }
    current.map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// The connections the server takes: `wanted` (`--max-connections`) lowered, with a warning,
/// so that they and [`RESERVED_DESCRIPTORS`] fit in the descriptor limit; without `wanted`,
/// all that fit.
fn max_connections(wanted: Option<usize>, limit: Option<usize>) -> usize {
    let fits = limit.map_or(UNLIMITED_DESCRIPTORS, |limit| {
        limit.saturating_sub(RESERVED_DESCRIPTORS).max(1)
    });
    match wanted {
        None => fits,
        Some(wanted) if wanted > fits => {
            tracing::warn!(
                wanted,
                descriptor_limit = limit,
                max_connections = fits,
                "--max-connections lowered to fit the open-files limit (ulimit -n)"
            );
            fits
        }
        Some(wanted) => wanted.max(1),
    }
}

/// Resolves once the shutdown flag is set (or its sender is gone). The
/// watch guard is dropped inside, so the future stays `Send`.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopped| *stopped).await.map(|_| ());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_connections_is_lowered_to_fit_the_descriptor_limit() {
        assert_eq!(
            max_connections(Some(4096), Some(256)),
            256 - RESERVED_DESCRIPTORS
        );
        assert_eq!(max_connections(Some(100), Some(1024)), 100);
        assert_eq!(max_connections(Some(4096), None), 4096);
        assert_eq!(max_connections(Some(10), Some(3)), 1);
    }

    #[test]
    fn without_max_connections_the_server_takes_all_that_the_descriptor_limit_allows() {
        assert_eq!(
            max_connections(None, Some(524_288)),
            524_288 - RESERVED_DESCRIPTORS
        );
        assert_eq!(max_connections(None, None), UNLIMITED_DESCRIPTORS);
    }

    #[test]
    fn the_open_files_limit_is_raised_to_the_hard_limit() {
        let limit = open_files_limit();
        let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile).maximum;
        if let Some(hard) = hard {
            assert_eq!(limit.map(|n| n as u64), Some(hard));
        }
    }
}
