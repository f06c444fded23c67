//! Signed-in clients: an account registered over HTTP, its session cookie, and the HTTP
//! requests and WebSocket connections that carry it (with our own `Origin`, as a browser
//! sends it). Each `Session` is one "device": two sessions of the same account are two
//! cookie jars.

use std::net::SocketAddr;

use serde_json::{Value, json};

use super::WAIT;
use super::http::exchange;
use super::ws::Client;

/// One signed-in browser: the account's name and this device's session cookie
/// (`marseillais_session=...`).
#[derive(Clone, Debug)]
pub struct Session {
    pub name: String,
    pub cookie: String,
}

/// A password every test account uses (8-128 characters).
pub const PASSWORD: &str = "correct horse battery";

/// One JSON request with these extra headers; (status, body as JSON or `Null`,
/// the `Set-Cookie` value if any).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&Value>,
    headers: &[String],
) -> (u16, Value, Option<String>) {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut text = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        text.push_str(header);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text.push_str(&body);
    let reply = exchange(addr, text.as_bytes(), WAIT)
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
    let cookie = reply.header("set-cookie").map(str::to_owned);
    (reply.status, value, cookie)
}

/// The `name=value` pair of a `Set-Cookie` header.
fn cookie_pair(set_cookie: &str) -> String {
    set_cookie
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

impl Session {
    /// Registers `name` and signs in (the first device).
    pub async fn register(addr: SocketAddr, name: &str) -> Session {
        Session::sign(addr, "/api/account/register", name, 201).await
    }

    /// Signs in as `name` again: another device, another cookie.
    pub async fn login(addr: SocketAddr, name: &str) -> Session {
        Session::sign(addr, "/api/account/login", name, 200).await
    }

    async fn sign(addr: SocketAddr, path: &str, name: &str, expect: u16) -> Session {
        let body = json!({"username": name, "password": PASSWORD});
        let origin = format!("Origin: http://{addr}");
        let (status, reply, cookie) = request(addr, "POST", path, Some(&body), &[origin]).await;
        assert_eq!(status, expect, "{path} {name}: {reply}");
        let cookie = cookie_pair(&cookie.unwrap_or_else(|| panic!("{path} sets no cookie")));
        assert_ne!(cookie_pair(&cookie), "", "{path}: an empty cookie");
        Session {
            name: name.to_owned(),
            cookie,
        }
    }

    /// A request with this device's cookie and our own `Origin`.
    pub async fn call(
        &self,
        addr: SocketAddr,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let headers = [
            format!("Cookie: {}", self.cookie),
            format!("Origin: http://{addr}"),
        ];
        let (status, value, _) = request(addr, method, path, body, &headers).await;
        (status, value)
    }

    /// A WebSocket to game `id` with this device's cookie (and `query`: `token=...`, `v=...`).
    pub async fn connect(&self, addr: SocketAddr, id: &str, query: &str) -> Client {
        let origin = format!("http://{addr}");
        let headers = [
            ("Cookie", self.cookie.as_str()),
            ("Origin", origin.as_str()),
        ];
        match Client::try_connect_with(addr, id, query, &headers).await {
            Ok(client) => client,
            Err(why) => panic!("ws connect to {id} as {}: {why}", self.name),
        }
    }
}
