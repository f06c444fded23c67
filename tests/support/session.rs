//! A signed-in player's devices for the game tests: an account registered (or signed in
//! again) through [`super::account::Browser`], the kit's one cookie-keeping HTTP client, and the
//! WebSockets that carry the same session cookie with our own `Origin`, as a browser's page
//! opens them. Each `Session` is one device: two sessions of the same account are two cookie
//! jars.

use std::net::SocketAddr;

use serde_json::{Value, json};

use super::account::{Browser, COOKIE};
use super::rig::Rig;
use super::s;
use super::ws::Client;

/// One signed-in browser: the account's name and this device's session cookie
/// (`marseillais_session=...`).
#[derive(Clone, Debug)]
pub struct Session {
    pub name: String,
    pub cookie: String,
    /// The cookie's value alone, as [`Browser`] keeps it.
    session: String,
}

/// A password every test account uses (8-128 characters).
pub const PASSWORD: &str = "correct horse battery";

impl Session {
    /// Registers `name` and signs in (the first device).
    pub async fn register(addr: SocketAddr, name: &str) -> Session {
        let mut browser = Browser::new(addr);
        let reply = browser.register(name, PASSWORD).await;
        assert_eq!(reply.status, 201, "register {name}: {}", reply.body);
        Session::of(browser, name)
    }

    /// Signs in as `name` again: another device, another cookie.
    pub async fn login(addr: SocketAddr, name: &str) -> Session {
        let mut browser = Browser::new(addr);
        let reply = browser.login(name, PASSWORD).await;
        assert_eq!(reply.status, 200, "login {name}: {}", reply.body);
        Session::of(browser, name)
    }

    fn of(browser: Browser, name: &str) -> Session {
        let session = browser
            .session
            .unwrap_or_else(|| panic!("{name}: no session cookie"));
        Session {
            name: name.to_owned(),
            cookie: format!("{COOKIE}={session}"),
            session,
        }
    }

    /// A request with this device's cookie and our own `Origin`: (status, body as JSON, or
    /// `Null` when it is not JSON).
    pub async fn call(
        &self,
        addr: SocketAddr,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut browser = Browser::new(addr);
        browser.session = Some(self.session.clone());
        let reply = browser.send(method, path, body).await;
        let value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        (reply.status, value)
    }

    /// A WebSocket to game `id` with this device's cookie (and `query`: `token=...`, `v=...`).
    /// `addr` may be another port of the same server (after a restart): the session is in its
    /// store.
    /// A game this account creates as White, joined by an anonymous player through `rig`:
    /// (id, this account's token, the anonymous player's token).
    pub async fn against_anonymous(&self, rig: &Rig) -> (String, String, String) {
        let body = json!({"color": "white"});
        let (status, created) = self
            .call(rig.addr(), "POST", "/api/games", Some(&body))
            .await;
        assert_eq!(status, 201, "{created}");
        let id = s(&created["id"]);
        let (black, color) = rig.join(&id).await;
        assert_eq!(color, "black");
        (id, s(&created["token"]), black)
    }

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
