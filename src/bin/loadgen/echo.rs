//! The floor: a minimal WebSocket echo server in the load generator's
//! process (127.0.0.1:0, tokio-tungstenite, the same small buffers as the
//! game server) and clients that measure round trips with messages the
//! size of a `move` event, at the games' pace, during the same window.
//! Client to server to client is the same path as mover to server to
//! opponent, minus everything the game server does.
//!
//! The echo server runs on a thread of its own (a current-thread runtime),
//! so that its CPU time can be read apart from the load generator's: the
//! CPU floor of one WebSocket read and write, beside the game server's CPU
//! per sub-move.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

use crate::game::Window;
use crate::stats::Samples;
use crate::ws;

/// An echo that does not come back within this long is counted as lost.
const ECHO_TIMEOUT: Duration = Duration::from_secs(5);

/// The echo server; stops accepting and closes its connections on `stop`.
pub struct EchoServer {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    thread: std::thread::JoinHandle<()>,
    /// Its thread's id, to read the thread's CPU time (`None` if unknown).
    tid: Option<u32>,
}

impl EchoServer {
    pub fn start() -> std::io::Result<EchoServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stop_rx) = watch::channel(false);
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("echo".into())
            .spawn(move || {
                let _ = tid_tx.send(own_tid());
                runtime.block_on(async move {
                    if let Ok(listener) = TcpListener::from_std(listener) {
                        accept_loop(listener, stop_rx).await;
                    }
                });
                // Connections still open end with the runtime.
                runtime.shutdown_timeout(Duration::from_secs(1));
            })?;
        let tid = tid_rx.recv_timeout(Duration::from_secs(5)).ok().flatten();
        Ok(EchoServer {
            addr,
            stop,
            thread,
            tid,
        })
    }

    /// CPU seconds the echo server's thread has used so far.
    pub fn cpu_secs(&self) -> Option<f64> {
        crate::server::thread_cpu_secs(self.tid?)
    }

    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let thread = self.thread;
        let _ = tokio::task::spawn_blocking(move || thread.join()).await;
    }
}

/// The calling thread's id, from `/proc/thread-self` (`<pid>/task/<tid>`).
fn own_tid() -> Option<u32> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

async fn accept_loop(listener: TcpListener, mut stop: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            accepted = listener.accept() => {
                let Ok((tcp, _)) = accepted else { continue };
                let _ = tcp.set_nodelay(true);
                let stop = stop.clone();
                tokio::spawn(echo_connection(tcp, stop));
            }
        }
    }
}

async fn echo_connection(tcp: tokio::net::TcpStream, mut stop: watch::Receiver<bool>) {
    let Ok(mut socket) =
        tokio_tungstenite::accept_async_with_config(tcp, Some(ws::small_config())).await
    else {
        return;
    };
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            frame = socket.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    if socket.send(Message::Text(text)).await.is_err() {
                        break;
                    }
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                Some(Ok(_)) => {}
            }
        }
    }
}

/// One echo client: a message of `bytes` every `period` during the window,
/// one in flight at a time. Returns the round trips and the losses.
pub async fn client(
    addr: SocketAddr,
    bytes: usize,
    period: Duration,
    window: Window,
    first: Instant,
) -> (Samples, u64) {
    let mut samples = Samples::default();
    let mut lost = 0;
    let Ok(mut socket) = ws::connect(addr, "/").await else {
        return (samples, 1);
    };
    let payload: Arc<str> = {
        let pad = bytes.saturating_sub(20).max(1);
        format!(r#"{{"t":"echo","d":"{}"}}"#, "x".repeat(pad)).into()
    };
    let mut due = first;
    while due < window.end {
        tokio::time::sleep_until(due.into()).await;
        let sent = Instant::now();
        if socket
            .send(Message::Text(payload.as_ref().into()))
            .await
            .is_err()
        {
            lost += 1;
            break;
        }
        let back = tokio::time::timeout(ECHO_TIMEOUT, async {
            // Bounded: the echo server only ever sends our own frames back.
            for _ in 0..16 {
                match socket.next().await {
                    Some(Ok(Message::Text(_))) => return true,
                    Some(Ok(_)) => continue,
                    _ => return false,
                }
            }
            false
        })
        .await;
        if back == Ok(true) {
            if window.contains(sent) {
                samples.record(sent.elapsed());
            }
        } else {
            lost += 1;
            break;
        }
        due = (due + period).max(Instant::now());
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
    (samples, lost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_echo_servers_own_cpu_time_is_readable_apart_from_the_process() {
        let echo = EchoServer::start().expect("binds 127.0.0.1:0");
        let tid = echo.tid.expect("/proc/thread-self is there on Linux");
        assert_ne!(tid, std::process::id(), "a thread of its own");
        assert!(echo.cpu_secs().is_some());
        echo.stop().await;
    }
}
