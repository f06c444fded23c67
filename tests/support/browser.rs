//! Driving headless Chromium through chromedriver (the `fantoccini`
//! WebDriver client) against a server of `support::rig`, for
//! tests/browser/game/ and tests/browser/accounts.rs: a chromedriver on a free loopback port, one
//! browser per [`Session`] (its own profile directory, so its own cookie
//! jar and localStorage), and waits that poll a JavaScript expression with a
//! deadline.
//!
//! Without Chromium and chromedriver a test is skipped with a loud message,
//! except when `CI` is set (`.ci/run`), where it fails.
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// Every wait of a browser test is bounded by this.
pub const WAIT: Duration = Duration::from_secs(20);

/// One browser scenario at a time (the machine has two cores).
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn chromium() -> PathBuf {
    std::env::var_os("MARSEILLAIS_CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), Into::into)
}

fn chromedriver() -> PathBuf {
    std::env::var_os("MARSEILLAIS_CHROMEDRIVER")
        .map_or_else(|| "/usr/bin/chromedriver".into(), Into::into)
}

/// Whether the browser tests can run; panics under CI when they cannot.
pub fn browser_available(test: &str) -> bool {
    let (browser, driver) = (chromium(), chromedriver());
    if browser.exists() && driver.exists() {
        return true;
    }
    let message = format!(
        "browser test `{test}` needs {} and {} (Debian: apt-get install -y chromium chromium-driver)",
        browser.display(),
        driver.display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("CI is set: {message}");
    }
    eprintln!("\n!!! SKIPPED: {message}\n");
    false
}

/// A server of `support::rig` (default settings) and a chromedriver: what a browser test file
/// starts with. tests/browser/game/mod.rs keeps its own, which restarts the server on the same port.
pub struct BrowserRig {
    pub server: crate::support::rig::Rig,
    pub driver: Driver,
    /// `http://127.0.0.1:PORT`, what pages are opened under.
    pub base: String,
}

impl BrowserRig {
    pub async fn start() -> BrowserRig {
        BrowserRig::start_with(|_| {}).await
    }

    /// [`BrowserRig::start`] with some settings changed first.
    pub async fn start_with(
        edit: impl FnOnce(&mut marseillais::server::config::Config) + 'static,
    ) -> BrowserRig {
        let server = crate::support::rig::Rig::builder()
            .config(edit)
            .start()
            .await;
        let base = format!("http://{}", server.addr());
        BrowserRig {
            server,
            driver: Driver::start(),
            base,
        }
    }

    /// The page at `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Registers `name` from inside a page of this server: the session cookie lands in `s`.
    pub async fn register(&self, s: &Session, name: &str) {
        s.goto(&self.url("/healthz")).await;
        let status = js_async(
            s,
            "const [name, password, done] = arguments;
             fetch('/api/account/register', {method: 'POST', headers: {'Content-Type': 'application/json'},
               body: JSON.stringify({username: name, password})})
               .then((r) => done(r.status), (e) => done(String(e)));",
            vec![json!(name), json!(crate::support::session::PASSWORD)],
        )
        .await;
        assert!(
            status.as_u64().is_some_and(|s| (200..300).contains(&s)),
            "register {name}: {status}"
        );
    }

    /// Closes the browsers, then stops the server.
    pub async fn stop(self, sessions: Vec<Session>) {
        for s in sessions {
            s.close().await;
        }
        self.server.stop().await;
    }
}

/// How many ports chromedriver is tried on before giving up.
const DRIVER_PORT_TRIES: usize = 5;

/// A port free on every address: chromedriver listens on the wildcard (`*:port`, IPv4 and
/// IPv6), which fails if any address holds the port. A port free on 127.0.0.1 alone was not
/// enough: the tests that connect from other addresses of 127.0.0.0/8 (client_limits.rs,
/// client_address.rs, the pools' load generator) hold ephemeral ports on those, and every
/// browser test after them failed with chromedriver's "bind() failed: Address already in use".
fn free_port() -> u16 {
    TcpListener::bind("[::]:0")
        .or_else(|_| TcpListener::bind("0.0.0.0:0"))
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A chromedriver process on a free loopback port, killed on drop.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Driver {
    /// Starts chromedriver on a free port. The port is found by binding port 0 and letting it
    /// go, so it comes from the ephemeral range, where any process's outgoing connection may
    /// take it before chromedriver binds it (the suite opens thousands of loopback connections
    /// at once): chromedriver then exits at once, and it is started again on another port.
    pub fn start() -> Driver {
        let mut said = String::new();
        for _ in 0..DRIVER_PORT_TRIES {
            match Driver::start_on(free_port()) {
                Ok(driver) => return driver,
                Err(output) => said = output,
            }
        }
        panic!(
            "chromedriver exited {DRIVER_PORT_TRIES} times without listening (ports taken?); \
             the last one said: {said}"
        );
    }

    /// chromedriver listening on `port`, or what it wrote if it exited first (the port was
    /// taken, or anything else: the failure names it).
    fn start_on(port: u16) -> Result<Driver, String> {
        let output = tempfile::NamedTempFile::new().expect("a file for chromedriver's output");
        let sink = || {
            output
                .reopen()
                .map(Stdio::from)
                .unwrap_or_else(|_| Stdio::null())
        };
        let child = Command::new(chromedriver())
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(sink())
            .stderr(sink())
            .spawn()
            .expect("chromedriver starts");
        let mut driver = Driver { child, port };
        let deadline = Instant::now() + WAIT;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = driver.child.try_wait() {
                let said = std::fs::read_to_string(output.path()).unwrap_or_default();
                return Err(format!("{status}: {said}"));
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(driver)
    }

    /// A fresh browser with its own profile directory (cookies, localStorage).
    pub async fn session(&self) -> Session {
        self.open(Vec::new(), None).await
    }

    /// A fresh browser (as [`Driver::session`]) whose language is `accept`
    /// (an Accept-Language list such as `"fr-FR,fr"`): the `--lang` of its
    /// interface and its `intl.accept_languages`, which is what
    /// `navigator.languages` and the requests' `Accept-Language` say.
    pub async fn session_in(&self, accept: &str) -> Session {
        let first = accept.split(',').next().unwrap_or(accept);
        let args = vec![format!("--lang={first}"), format!("--accept-lang={accept}")];
        self.open(args, Some(json!({ "intl.accept_languages": accept })))
            .await
    }

    /// A browser with the flags every session gets, then `extra` flags and Chromium `prefs`.
    async fn open(&self, extra: Vec<String>, prefs: Option<Value>) -> Session {
        let profile = tempfile::tempdir().expect("profile dir");
        let mut args: Vec<String> = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            "--window-size=1280,900",
        ]
        .map(String::from)
        .into();
        args.extend(extra);
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut options = json!({ "binary": chromium(), "args": args });
        if let Some(prefs) = prefs {
            options["prefs"] = prefs;
        }
        let caps = json!({ "browserName": "chrome", "goog:chromeOptions": options });
        let Value::Object(caps) = caps else {
            unreachable!("a JSON object")
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("a Chromium session");
        Session {
            client,
            _profile: profile,
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser.
pub struct Session {
    pub client: Client,
    _profile: tempfile::TempDir,
}

impl Session {
    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}

/// Runs a script and returns its value.
pub async fn js(s: &Session, script: &str) -> Value {
    s.client
        .execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(t) => !t.is_empty(),
        _ => true,
    }
}

/// How long one in-page wait lasts before it answers (the test then asks again until
/// [`WAIT`]): well under WebDriver's 30 s script timeout, and long enough that most waits are
/// one round trip.
const WAIT_SLICE_MS: u64 = 1_000;

/// Waits until a JavaScript expression is truthy (deadline [`WAIT`]) and returns its value.
///
/// The page itself watches: the expression is evaluated again on every change of the
/// document (a `MutationObserver`) and every 10 ms besides (for what is not in the DOM:
/// storage, focus, the page's own variables), so a wait ends as soon as the page shows what it
/// waits for. The browser tests run one at a time and are CI's longest chain: asked from the
/// test every 100 ms instead, they took 311 s alone and 225 s of CPU; watched by the page,
/// 272 s and 196 s (2026-12-07, a quiet machine).
pub async fn wait_for(s: &Session, expr: &str, what: &str) -> Value {
    let deadline = Instant::now() + WAIT;
    let script = format!(
        "const done = arguments[arguments.length - 1];
         const until = Date.now() + {WAIT_SLICE_MS};
         let finished = false, observer = null, timer = null, failure = null;
         const check = () => {{
           if (finished) return;
           let value = null;
           try {{ value = ({expr}); failure = null; }} catch (e) {{ value = null; failure = String(e); }}
           if (value || Date.now() >= until) {{
             finished = true;
             if (observer) observer.disconnect();
             clearTimeout(timer);
             done(value ? value : failure === null ? null : {{waitFailed: failure}});
             return;
           }}
           clearTimeout(timer);
           timer = setTimeout(check, 10);
         }};
         observer = new MutationObserver(check);
         observer.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
         check();"
    );
    loop {
        let value = s.client.execute_async(&script, vec![]).await;
        // An expression that threw comes back as `{waitFailed: message}`: not what was awaited,
        // and the message is in the timeout's panic.
        let threw = matches!(&value, Ok(Value::Object(o)) if o.contains_key("waitFailed"));
        if let Ok(v) = &value
            && !threw
            && truthy(v)
        {
            return v.clone();
        }
        if Instant::now() > deadline {
            let page = text(s, "main").await;
            let page: String = page.chars().take(600).collect();
            panic!("timed out waiting for {what} ({expr}); last {value:?}; page {page:?}");
        }
        if value.is_err() {
            // The script could not run (the page was between documents): ask again shortly.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The text of the first element matching `css` ("" when there is none).
pub async fn text(s: &Session, css: &str) -> String {
    let script = format!(
        "const e = document.querySelector({}); return e ? e.textContent : '';",
        json!(css)
    );
    s.client
        .execute(&script, vec![])
        .await
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Waits until the first element matching `css` contains `needle`.
pub async fn wait_text(s: &Session, css: &str, needle: &str) {
    let expr = format!(
        "(document.querySelector({css}) || {{textContent: ''}}).textContent.includes({needle})",
        css = json!(css),
        needle = json!(needle)
    );
    wait_for(s, &expr, &format!("{css} to contain {needle:?}")).await;
}

/// Confirms the sub-move the page shows with Confirm / Cancel (move confirmation, issue 14: on
/// by default in correspondence games), once the bar is up.
pub async fn confirm_move(s: &Session) {
    wait_for(
        s,
        "!document.querySelector('#confirm-move').hidden",
        "the Confirm / Cancel bar",
    )
    .await;
    click(s, "#btn-confirm-move").await;
}

/// Clicks an element once it exists, is shown and is enabled (a real
/// WebDriver click); finds it again if a re-render replaced it meanwhile.
pub async fn click(s: &Session, css: &str) {
    let expr = format!(
        "(() => {{ const e = document.querySelector({}); return !!e && !e.disabled && e.getClientRects().length > 0; }})()",
        json!(css)
    );
    for attempt in 1..=5 {
        wait_for(s, &expr, &format!("{css} to be clickable")).await;
        let clicked = match s.client.find(Locator::Css(css)).await {
            Ok(element) => element.click().await.map(|_| ()),
            Err(e) => Err(e),
        };
        match clicked {
            Ok(()) => return,
            Err(e) if attempt < 5 && e.to_string().contains("stale element") => continue,
            Err(e) => panic!("click on {css}: {e}"),
        }
    }
}

/// Replaces an input's value by typing (real key events), once the input
/// is shown: pages build their forms in script after `load`, so a plain
/// `find` straight after `goto` can miss it (seen in CI on `/replay`).
pub async fn type_into(s: &Session, css: &str, value: &str) {
    click(s, css).await;
    let element = s
        .client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("find {css}: {e}"));
    element
        .clear()
        .await
        .unwrap_or_else(|e| panic!("clear {css}: {e}"));
    element
        .send_keys(value)
        .await
        .unwrap_or_else(|e| panic!("type into {css}: {e}"));
}

pub fn square(name: &str) -> String {
    format!(".board .sq[data-sq='{name}']")
}

/// Plays a sub-move by clicking the piece, then its destination.
pub async fn click_move(s: &Session, from: &str, to: &str) {
    let movable = format!(
        "document.querySelector(\"{}\").classList.contains('movable')",
        square(from)
    );
    wait_for(s, &movable, &format!("{from} to be movable")).await;
    click(s, &square(from)).await;
    wait_for(
        s,
        &format!(
            "document.querySelector(\"{}\").matches('.dest, .dest-capture')",
            square(to)
        ),
        &format!("{to} shown as a legal destination"),
    )
    .await;
    click(s, &square(to)).await;
}

/// Waits until every session shows `n` sub-moves in its move list.
pub async fn wait_moves(sessions: &[&Session], n: usize) {
    for s in sessions {
        wait_for(
            s,
            &format!("document.querySelectorAll('#movelist .mv').length === {n}"),
            &format!("{n} sub-moves in the move list"),
        )
        .await;
    }
}

/// Runs `script` asynchronously in the page (its last argument is the callback).
pub async fn js_async(s: &Session, script: &str, args: Vec<Value>) -> Value {
    s.client
        .execute_async(script, args)
        .await
        .unwrap_or_else(|e| panic!("async script failed: {e}\n{script}"))
}

/// Returns once the page has drawn two more animation frames: the first runs the layout, the
/// resize observers and the animation callbacks that were pending, the second starts after
/// they painted. What a test waits for before it measures or photographs what it laid out.
pub async fn frames_drawn(s: &Session) {
    js_async(
        s,
        "const done = arguments[arguments.length - 1];
         requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        vec![],
    )
    .await;
}

/// Sends `POST path` from inside a page of `base` (so that the seat token it
/// returns lands in this browser's localStorage, as the lobby would keep it),
/// then opens the game page as that player. Returns the game id.
pub async fn api_seat(s: &Session, base: &str, path: &str, body: Value) -> String {
    s.goto(&format!("{base}/healthz")).await;
    let id = js_async(
        s,
        "const [path, body, done] = arguments;
         fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})
           .then((r) => r.json())
           .then((g) => { localStorage.setItem('marseillais.seat.' + g.id, g.token); done(g.id); }, (e) => done(String(e)));",
        vec![json!(path), body],
    )
    .await;
    let id = id.as_str().unwrap_or_default().to_string();
    assert_eq!(id.len(), 8, "a game id from {path}: {id:?}");
    s.goto(&format!("{base}/game/{id}")).await;
    id
}

/// A game created by `white` (as White) with `body`'s options and joined by
/// `black` over HTTP; returns its id once White's page says it is its turn.
pub async fn two_player_game(
    base: &str,
    white: &Session,
    black: &Session,
    mut body: Value,
) -> String {
    body["color"] = json!("white");
    let id = api_seat(white, base, "/api/games", body).await;
    wait_text(white, "#status", "Waiting").await;
    api_seat(black, base, &format!("/api/games/{id}/join"), json!({})).await;
    wait_text(black, "#seat-black", "(you)").await;
    wait_text(white, "#status", "Your turn").await;
    id
}
