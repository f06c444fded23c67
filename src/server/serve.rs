//! The accept loop: one hyper HTTP/1 connection per TCP stream, with the
//! timeouts `axum::serve` does not set.
//!
//! `axum::serve` runs hyper without a timer, so a client that never finishes
//! its request headers (slowloris) or never sends anything holds a socket and
//! a task forever. Serving each connection through hyper's builder with a
//! Tokio timer gives it a header-read timeout; WebSocket upgrades still work
//! (`with_upgrades`), and once upgraded a connection is the socket task's
//! business (idle timeout, ping/pong: see [`super::socket`]).

use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long a client may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a graceful shutdown waits for requests in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Accepts connections until `stop` turns true, then lets the ones in
/// flight finish (bounded by [`DRAIN_TIMEOUT`]).
pub async fn serve(listener: TcpListener, app: Router, mut stop: watch::Receiver<bool>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = stopped(&mut stop) => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, app.clone(), stop.clone()));
                }
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

async fn serve_connection(stream: TcpStream, app: Router, mut stop: watch::Receiver<bool>) {
    // Moves are small frames sent back to back (ack, then the event):
    // Nagle's algorithm would hold the second for a delayed ACK.
    let _ = stream.set_nodelay(true);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder
        .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app))
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

/// Resolves once the shutdown flag is set (or its sender is gone). The
/// watch guard is dropped inside, so the future stays `Send`.
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopped| *stopped).await.map(|_| ());
}
