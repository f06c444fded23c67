//! A browser's side of the account routes: an HTTP client that keeps the
//! `marseillais_session` cookie it is given (as a browser does) and sends an
//! `Origin` (this server's own by default, or any the test chooses), over the
//! one HTTP client of the kit ([`super::http::exchange`]).

use std::net::SocketAddr;

use serde_json::{Value, json};

use super::WAIT;
use super::http::{Reply, exchange};

pub const COOKIE: &str = "marseillais_session";

/// One browser: its cookie jar (the session cookie only) and the Origin its
/// pages send.
pub struct Browser {
    pub addr: SocketAddr,
    /// The session cookie's value, as last set by the server.
    pub session: Option<String>,
    /// `Origin` sent with every request; `None` sends none.
    pub origin: Option<String>,
}

impl Browser {
    /// A browser on a page of this server (Origin `http://{addr}`).
    pub fn new(addr: SocketAddr) -> Browser {
        Browser {
            addr,
            session: None,
            origin: Some(format!("http://{addr}")),
        }
    }

    /// The same browser on another site's page.
    pub fn with_origin(mut self, origin: Option<&str>) -> Browser {
        self.origin = origin.map(str::to_owned);
        self
    }

    /// One request with the cookie and Origin; keeps a `Set-Cookie` of the
    /// session (an empty value or `Max-Age=0` clears it).
    pub async fn send(&mut self, method: &str, path: &str, body: Option<&Value>) -> Reply {
        let reply = self
            .send_raw(method, path, body.map(Value::to_string).as_deref(), &[])
            .await;
        if let Some(set) = reply.header("set-cookie") {
            let (pair, attributes) = set.split_once(';').unwrap_or((set, ""));
            if let Some(value) = pair.trim().strip_prefix(&format!("{COOKIE}=")) {
                self.session = (!value.is_empty() && !attributes.contains("Max-Age=0"))
                    .then(|| value.to_owned());
            }
        }
        reply
    }

    /// One request as [`Browser::send`] but with a raw body and extra header
    /// lines, keeping no cookie.
    pub async fn send_raw(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        extra: &[&str],
    ) -> Reply {
        let body = body.unwrap_or("");
        let addr = self.addr;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(session) = &self.session {
            head.push_str(&format!("Cookie: {COOKIE}={session}\r\n"));
        }
        if let Some(origin) = &self.origin {
            head.push_str(&format!("Origin: {origin}\r\n"));
        }
        for line in extra {
            head.push_str(line);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(body.as_bytes());
        exchange(addr, &request, WAIT)
            .await
            .unwrap_or_else(|why| panic!("{method} {path}: {why}"))
    }

    /// `POST /api/account/register`.
    pub async fn register(&mut self, username: &str, password: &str) -> Reply {
        let body = json!({"username": username, "password": password});
        self.send("POST", "/api/account/register", Some(&body))
            .await
    }

    /// `POST /api/account/login`.
    pub async fn login(&mut self, username: &str, password: &str) -> Reply {
        let body = json!({"username": username, "password": password});
        self.send("POST", "/api/account/login", Some(&body)).await
    }

    pub async fn logout(&mut self) -> Reply {
        self.send("POST", "/api/account/logout", None).await
    }

    /// `GET /api/account`.
    pub async fn account(&mut self) -> Reply {
        self.send("GET", "/api/account", None).await
    }
}

/// A reply's body as JSON (panics if it is not).
pub fn body_json(reply: &Reply) -> Value {
    serde_json::from_str(&reply.body)
        .unwrap_or_else(|e| panic!("{}: not JSON {:?}: {e}", reply.status, reply.body))
}

/// Whether a `GET /api/account` reply is a signed-in account (`200 {"username", ...}`), not a
/// visitor's `200 {"account": null}` (issue 32) nor an error.
pub fn signed_in(reply: &Reply) -> bool {
    reply.status == 200 && body_json(reply)["username"].is_string()
}

/// A reply's `code` field.
pub fn code(reply: &Reply) -> String {
    body_json(reply)["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The head without its `Date` line (the one part two identical answers
/// sent a second apart differ in).
pub fn head_without_date(reply: &Reply) -> String {
    reply
        .head
        .lines()
        .filter(|line| !line.to_ascii_lowercase().starts_with("date:"))
        .collect::<Vec<_>>()
        .join("\r\n")
}
