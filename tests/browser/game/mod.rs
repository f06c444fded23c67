//! The browser client driven in real headless Chromium (through chromedriver
//! and the `fantoccini` WebDriver client) against the real server started
//! in-process on 127.0.0.1:0: the game, from the lobby to the end, one file per
//! part, and here the helpers they share (the rig, a game made from the lobby
//! form, screenshots, the accessibility checker, the move list as shown).
//!
//! | part | module |
//! |---|---|
//! | the game flow: a mate through the UI, every action, the replay page, the README's screenshots | `flow` |
//! | lobby, replay, board and accessibility (issue 8, client side) | `lobby` |
//! | the game page (H6): joining by invite, notices, layout, words, versions, the typed input | `page` |
//! | turns grouped from the server's colours (issue 9) | `turns` |
//!
//! Without Chromium and chromedriver these tests are skipped with a loud
//! message, except when `CI` is set (`.ci/run`), where they fail. The
//! scenarios run one at a time (a static mutex: the machine has two cores)
//! and every wait polls with a deadline; nothing measures wall-clock time.
//!
//! `cargo test --test system browser::game::flow::capture_screenshots -- --ignored` rewrites the
//! PNGs of docs/screenshots/ (lobby, game in progress, finished game, phone).

mod flow;
mod lobby;
mod page;
mod turns;

use crate::support;
use crate::support::browser;

use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use fantoccini::key::Key;
use marseillais::server::config::Config;
use serde_json::{Value, json};

use browser::{
    Driver, SERIAL, Session, WAIT, browser_available, click, click_move, frames_drawn, js, square,
    text, type_into, wait_for, wait_moves, wait_text,
};

/// The server, a chromedriver and the address to browse.
struct Rig {
    server: support::rig::Rig,
    driver: Driver,
    base: String,
}

impl Rig {
    async fn start() -> Rig {
        Rig::start_with(|_| {}).await
    }

    /// [`Rig::start`] with some settings changed first.
    async fn start_with(edit: impl FnOnce(&mut Config) + 'static) -> Rig {
        let server = support::rig::Rig::builder()
            // Short, so that claiming victory over a vanished opponent is quick to test.
            .config(|config| config.disconnect_grace = Duration::from_secs(1))
            .config(edit)
            // Restarts listen on the same port, so that browsers can reconnect.
            .keep_port()
            .start()
            .await;
        let base = format!("http://{}", server.addr());
        Rig {
            server,
            driver: Driver::start(),
            base,
        }
    }

    /// Stops the server (sockets close with 1001); [`Rig::resume`] starts it again.
    async fn pause(&mut self) {
        self.server.pause().await;
    }

    /// Starts the server again on the same port and data directory.
    async fn resume(&mut self) {
        self.server.resume().await;
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn stop(self, sessions: Vec<Session>) {
        for s in sessions {
            let _ = s.client.close().await;
        }
        self.server.stop().await;
    }

    /// `GET path`: (status, body).
    async fn get(&self, path: &str) -> (u16, String) {
        support::http::http(self.server.addr(), "GET", path, None).await
    }
}

fn piece_on(name: &str) -> String {
    format!("document.querySelector(\"{}\").dataset.piece", square(name))
}

/// Creates a game from the lobby form; returns its id once the creator is on the game page.
async fn create_game(
    rig: &Rig,
    s: &Session,
    colour: &str,
    clock: &str,
    fen: Option<&str>,
) -> String {
    s.client.goto(&rig.url("/")).await.expect("lobby");
    click(
        s,
        &format!("label.choice:has(input[name=clock][value='{clock}'])"),
    )
    .await;
    click(
        s,
        &format!("label.choice:has(input[name=color][value='{colour}'])"),
    )
    .await;
    if let Some(fen) = fen {
        click(s, ".fen-start summary").await;
        let input = s
            .client
            .find(Locator::Css("#fen-input"))
            .await
            .expect("fen input");
        input.send_keys(fen).await.expect("type the FEN");
    }
    click(s, "#create-btn").await;
    let path = wait_for(
        s,
        "location.pathname.startsWith('/game/') && document.querySelector('#status').textContent.includes('Waiting') && location.pathname",
        "the game page of the new game",
    )
    .await;
    let id = path
        .as_str()
        .unwrap_or_default()
        .trim_start_matches("/game/")
        .to_string();
    assert_eq!(id.len(), 8, "a game id in {path}");
    id
}

async fn screenshot(s: &Session, path: &Path) {
    // The clocks and the last sub-move's highlight are drawn on animation frames.
    frames_drawn(s).await;
    let png = s.client.screenshot().await.expect("screenshot");
    std::fs::write(path, png).expect("write the screenshot");
}

/// Saves a screenshot as `$MARSEILLAIS_SHOTS/{name}.png` when that variable
/// is set, so that a person can look at what a test saw.
async fn maybe_screenshot(s: &Session, name: &str) {
    if let Some(dir) = std::env::var_os("MARSEILLAIS_SHOTS") {
        screenshot(s, &Path::new(&dir).join(format!("{name}.png"))).await;
    }
}

/// A focused accessibility checker run in the page (test-only: it is not
/// served by the binary). It checks the rules axe reported as critical on
/// these pages, and a few more of the same kind; each failure is a line.
const A11Y_CHECK: &str = r#"
const out = [];
const visible = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length);
const name = (e) => {
  const by = e.getAttribute('aria-labelledby');
  if (by) return by.split(/\s+/).map((id) => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
  if ((e.getAttribute('aria-label') || '').trim()) return e.getAttribute('aria-label').trim();
  if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(' ').trim();
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(e.tagName)) return (e.getAttribute('title') || '').trim();
  return (e.textContent || '').trim() || (e.getAttribute('title') || '').trim();
};
const desc = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '');
const role = (e) => e.getAttribute('role');
// ARIA structure: a grid owns rows, rows own cells, cells sit in rows.
const OWNS = { grid: ['row', 'rowgroup'], rowgroup: ['row'], row: ['gridcell', 'columnheader', 'rowheader'] };
for (const e of document.querySelectorAll('[role]')) {
  const r = role(e);
  if (OWNS[r]) {
    const kids = [...e.children].filter((c) => c.getAttribute('aria-hidden') !== 'true');
    const owned = kids.filter((c) => OWNS[r].includes(role(c)));
    if (!owned.length) out.push(`aria-required-children: ${desc(e)} (${r}) owns no ${OWNS[r].join('/')}`);
    for (const c of kids) if (!OWNS[r].includes(role(c))) out.push(`aria-required-children: ${desc(e)} (${r}) has a ${role(c) || c.tagName.toLowerCase()} child ${desc(c)}`);
  }
  if (['gridcell', 'columnheader', 'rowheader'].includes(r) && role(e.parentElement) !== 'row') out.push(`aria-required-parent: ${desc(e)} (${r}) is not in a row`);
  if (r === 'row' && !['grid', 'rowgroup', 'table', 'treegrid'].includes(role(e.parentElement))) out.push(`aria-required-parent: ${desc(e)} (row) is not in a grid`);
}
// Every form field has a name.
for (const e of document.querySelectorAll('input:not([type=hidden]), textarea, select')) {
  if (!name(e)) out.push(`label: ${desc(e)} has no label`);
}
// Every button and link has a name.
for (const e of document.querySelectorAll('button, a[href], [role=button]')) {
  if (visible(e) && !name(e)) out.push(`button-name: ${desc(e)} has no name`);
}
// Exactly one h1.
const h1 = [...document.querySelectorAll('h1')].filter(visible);
if (h1.length !== 1) out.push(`page-has-heading-one: ${h1.length} h1 elements`);
// aria-label is not allowed on a plain div/span (no role).
for (const e of document.querySelectorAll('div[aria-label], span[aria-label]')) {
  if (!role(e)) out.push(`aria-prohibited-attr: ${desc(e)} has aria-label but no role`);
}
// Clocks have a name.
for (const e of document.querySelectorAll('.clock')) {
  if (visible(e) && !(e.getAttribute('aria-label') || e.getAttribute('aria-labelledby'))) out.push(`clock-name: ${desc(e)} has no label`);
}
// ids are unique.
const ids = new Map();
for (const e of document.querySelectorAll('[id]')) ids.set(e.id, (ids.get(e.id) || 0) + 1);
for (const [id, n] of ids) if (n > 1) out.push(`duplicate-id: ${id} x${n}`);
return out;
"#;

/// Runs [`A11Y_CHECK`] and, when `MARSEILLAIS_AXE` names a copy of axe-core's
/// `axe.min.js` (npm `axe-core`; not vendored), axe itself: every failure of
/// the checker, and every critical axe violation, fails the test.
pub(crate) async fn assert_accessible(s: &Session, page: &str) {
    let found = js(s, A11Y_CHECK).await;
    assert_eq!(found, json!([]), "accessibility problems on the {page}");
    let Some(axe) = std::env::var_os("MARSEILLAIS_AXE") else {
        return;
    };
    let source = std::fs::read_to_string(&axe).expect("axe.min.js readable");
    js(s, &format!("{source}\n;return true;")).await;
    let script = "const done = arguments[arguments.length - 1]; \
        axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => \
        ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)})))) \
        .catch(e => done([{id: 'axe-error', impact: 'critical', nodes: [String(e)]}]));";
    let violations = s
        .client
        .execute_async(script, vec![])
        .await
        .expect("axe runs");
    eprintln!("axe on the {page}: {violations}");
    let critical: Vec<&Value> = violations
        .as_array()
        .map(|v| v.iter().filter(|x| x["impact"] == "critical").collect())
        .unwrap_or_default();
    assert!(
        critical.is_empty(),
        "critical axe violations on the {page}: {critical:?}"
    );
}

/// Runs `script` asynchronously in the page (tests/support/browser.rs).
async fn js_async(s: &Session, script: &str, args: Vec<Value>) -> Value {
    browser::js_async(s, script, args).await
}

/// A game between two browsers (tests/support/browser.rs).
async fn two_player_game(rig: &Rig, white: &Session, black: &Session, body: Value) -> String {
    browser::two_player_game(&rig.base, white, black, body).await
}

/// White at the second sub-move of its turn, with nothing of that turn in the record.
const SECOND_SUBMOVE_FEN: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1 2";

/// The move list as the page shows it: per row, the sub-moves of White's and Black's cells.
const MOVE_ROWS: &str = "return [...document.querySelectorAll('#movelist li')].map((li) =>
     [...li.querySelectorAll('.turn')].map((t) => [...t.querySelectorAll('.mv')].map((b) => b.textContent)))";

/// The classes of the "1" and "2" marks on a square.
async fn marks_on(s: &Session, name: &str) -> Value {
    js(
        s,
        &format!(
            "const c = document.querySelector(\"{}\").classList; return [c.contains('last1-to'), c.contains('last2-to')]",
            square(name)
        ),
    )
    .await
}
