//! A reverse proxy on 127.0.0.1 in front of a test server, as nginx is in front of a real one
//! (docs/deploy.md): for each connection it reads the request head, appends its client's address
//! to `X-Forwarded-For` as nginx's `$proxy_add_x_forwarded_for` does (the client's own values
//! first, joined into one header), or to `Forwarded` (`for=`), may set `X-Forwarded-Proto` (as
//! `proxy_set_header X-Forwarded-Proto $scheme` does when it terminates TLS), then pipes the
//! bytes both ways. One request per connection: the kit's clients send `Connection: close`.
//! Its connections to the server come from 127.0.0.1.

use std::net::{IpAddr, SocketAddr};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// Largest request head the proxy reads (nginx's default buffers are smaller).
const MAX_HEAD: usize = 64 * 1024;

/// Which header the proxy appends its client to.
#[derive(Clone, Copy, Debug)]
pub enum Appends {
    XForwardedFor,
    Forwarded,
}

/// The running proxy; stopped (with its connections) when dropped.
pub struct ForwardingProxy {
    pub addr: SocketAddr,
    accept: tokio::task::JoinHandle<()>,
}

impl ForwardingProxy {
    /// A proxy to `upstream` appending to `appends`, and setting `X-Forwarded-Proto: proto` when
    /// given (the client's own `X-Forwarded-Proto` is then replaced).
    pub async fn start(
        upstream: SocketAddr,
        appends: Appends,
        proto: Option<&'static str>,
    ) -> ForwardingProxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the proxy");
        let addr = listener.local_addr().expect("the proxy's address");
        let accept = tokio::spawn(async move {
            // Dropped with this task: every connection ends with the proxy.
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((client, from)) = accepted else { continue };
                        connections.spawn(forward(client, from.ip(), upstream, appends, proto));
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });
        ForwardingProxy { addr, accept }
    }
}

impl Drop for ForwardingProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// One connection: the head rewritten, then both directions piped until either side closes.
async fn forward(
    mut client: TcpStream,
    from: IpAddr,
    upstream: SocketAddr,
    appends: Appends,
    proto: Option<&'static str>,
) {
    let mut buffer = Vec::new();
    let end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        if buffer.len() > MAX_HEAD {
            return;
        }
        let mut chunk = [0u8; 4096];
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..end]);
    let mut rewritten = rewrite(&head, from, appends, proto).into_bytes();
    rewritten.extend_from_slice(&buffer[end..]);
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    if server.write_all(&rewritten).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
}

/// The head with the client's forwarding header values joined into one header and `from`
/// appended to it, and `X-Forwarded-Proto` set when `proto` is given.
fn rewrite(head: &str, from: IpAddr, appends: Appends, proto: Option<&str>) -> String {
    let (name, hop) = match (appends, from) {
        (Appends::XForwardedFor, ip) => ("x-forwarded-for", ip.to_string()),
        (Appends::Forwarded, IpAddr::V4(ip)) => ("forwarded", format!("for={ip}")),
        (Appends::Forwarded, IpAddr::V6(ip)) => ("forwarded", format!("for=\"[{ip}]\"")),
    };
    let mut lines = head.trim_end().split("\r\n");
    let mut out = String::new();
    out.push_str(lines.next().unwrap_or_default());
    out.push_str("\r\n");
    let mut values = Vec::new();
    for line in lines {
        let key = line.split_once(':').map_or("", |(key, _)| key.trim());
        if key.eq_ignore_ascii_case(name) {
            values.push(
                line.split_once(':')
                    .map_or("", |(_, v)| v.trim())
                    .to_owned(),
            );
        } else if !(proto.is_some() && key.eq_ignore_ascii_case("x-forwarded-proto")) {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    values.push(hop);
    out.push_str(&format!("{name}: {}\r\n", values.join(", ")));
    if let Some(proto) = proto {
        out.push_str(&format!("X-Forwarded-Proto: {proto}\r\n"));
    }
    out.push_str("\r\n");
    out
}
