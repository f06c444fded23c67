//! A loopback latency proxy: a TCP relay on 127.0.0.1 that holds every chunk of bytes for a
//! fixed time in each direction before passing it on, so that any client connecting through
//! it (a test's WebSocket client, a browser) has a link with that one-way delay, and a round
//! trip of twice it. Order is kept; nothing is dropped. Bounded: at most [`MAX_CONNECTIONS`]
//! connections are relayed, each relay ends when either side closes, and everything stops
//! when the proxy is dropped.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The most connections one proxy relays.
pub const MAX_CONNECTIONS: usize = 16;

pub struct LatencyProxy {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl LatencyProxy {
    /// Relays 127.0.0.1:(a free port) to `upstream`, delaying each direction by `one_way`.
    pub async fn start(upstream: SocketAddr, one_way: Duration) -> LatencyProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let task = tokio::spawn(async move {
            let mut relays = tokio::task::JoinSet::new();
            for _ in 0..MAX_CONNECTIONS {
                let Ok((client, _)) = listener.accept().await else {
                    break;
                };
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                relays.spawn(pipe(client_read, server_write, one_way));
                relays.spawn(pipe(server_read, client_write, one_way));
            }
            // Dropping the set (when this task is aborted) aborts the relays.
            while relays.join_next().await.is_some() {}
        });
        LatencyProxy { addr, task }
    }

    /// Where clients connect instead of the server.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for LatencyProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies `from` to `to`, each chunk `delay` after it was read. Ends when `from` ends or `to`
/// fails.
async fn pipe(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, delay: Duration) {
    let (held, mut due) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let writer = async move {
        while let Some((at, bytes)) = due.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    let reader = async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if held
                        .send((Instant::now() + delay, buf[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
        // Dropping `held` lets the writer finish what is in flight, then shut down.
    };
    tokio::join!(reader, writer);
}
