//! The browser client, embedded in the binary: a table of `client/` files
//! served at `/static/{name}` (the language catalogues one folder down, as
//! `/static/i18n/fr.json`), and `index.html` at `/`, `/game/{id}`, `/games/mine`
//! and `/replay`. To add a file to the client, add one line to [`ASSETS`]; a
//! test checks that the table and the directory agree.

use axum::http::header;
use axum::response::{IntoResponse, Response};

const JS: &str = "text/javascript; charset=utf-8";
const JSON: &str = "application/json; charset=utf-8";

macro_rules! asset {
    ($name:literal, $type:expr) => {
        (
            $name,
            $type,
            include_bytes!(concat!("../../../client/", $name)),
        )
    };
}

/// `(name under /static/, content type, bytes)`.
pub const ASSETS: &[(&str, &str, &[u8])] = &[
    asset!("index.html", "text/html; charset=utf-8"),
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("favicon.svg", "image/svg+xml"),
    asset!("README.md", "text/markdown; charset=utf-8"),
    asset!("profile.html", "text/html; charset=utf-8"),
    asset!("app.js", JS),
    asset!("account.js", JS),
    asset!("account-page.js", JS),
    asset!("live.js", JS),
    asset!("profile.js", JS),
    asset!("api.js", JS),
    asset!("analysis.js", JS),
    asset!("board-page.js", JS),
    asset!("board-page-moves.js", JS),
    asset!("board-page-game.js", JS),
    asset!("board-arrows.js", JS),
    asset!("engine-lines.js", JS),
    asset!("move-tree.js", JS),
    asset!("announce.js", JS),
    asset!("board.js", JS),
    asset!("fen.js", JS),
    asset!("record.js", JS),
    asset!("game.js", JS),
    asset!("game-premoves.js", JS),
    asset!("game-state.js", JS),
    asset!("game-view.js", JS),
    asset!("lobby.js", JS),
    asset!("pools.js", JS),
    asset!("arena.js", JS),
    asset!("puzzles.js", JS),
    asset!("puzzle-line.js", JS),
    asset!("puzzle-themes.js", JS),
    asset!("learn.js", JS),
    asset!("playban.js", JS),
    asset!("explorer.js", JS),
    asset!("report.js", JS),
    asset!("mod.js", JS),
    asset!("pieces.js", JS),
    asset!("premove.js", JS),
    asset!("replay.js", JS),
    asset!("socket.js", JS),
    asset!("sound.js", JS),
    asset!("typed.js", JS),
    asset!("chat.js", JS),
    asset!("chat-controls.js", JS),
    asset!("blocks.js", JS),
    asset!("account-blocks.js", JS),
    asset!("mine.js", JS),
    asset!("notify.js", JS),
    asset!("settings.js", JS),
    asset!("settings-panel.js", JS),
    asset!("i18n.js", JS),
    asset!("i18n/en.json", JSON),
    asset!("i18n/fr.json", JSON),
    asset!("i18n/es.json", JSON),
];

/// The page served at `/`, `/game/{id}`, `/games/mine` and `/replay`.
pub fn index_html() -> &'static [u8] {
    find("index.html").map_or(&[], |(_, bytes)| bytes)
}

/// The page served at `/@/{name}` (a player's profile; the same client, its own title).
pub fn profile_html() -> &'static [u8] {
    find("profile.html").map_or(&[], |(_, bytes)| bytes)
}

/// [`index_html`] as an HTML response: the client's shell, whatever page the address names.
pub fn index_page() -> Response {
    html(index_html())
}

/// An HTML page's response.
pub fn html(bytes: &'static [u8]) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response()
}

/// A static file by name: its content type and bytes.
pub fn find(name: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, content_type, bytes)| (*content_type, *bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_file_is_embedded_with_a_content_type_for_its_extension() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/client");
        // The files of client/ and of its folders (the catalogues in i18n/), as `i18n/fr.json`.
        let mut on_disk = Vec::new();
        let mut folders = vec![String::new()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(format!("{dir}/{folder}")).unwrap() {
                let entry = entry.unwrap();
                let name = format!("{folder}{}", entry.file_name().to_string_lossy());
                if entry.file_type().unwrap().is_dir() {
                    folders.push(format!("{name}/"));
                } else {
                    on_disk.push(name);
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = ASSETS.iter().map(|(n, _, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "client/ and ASSETS differ");
        for (name, content_type, _) in ASSETS {
            let expected = match name.rsplit('.').next() {
                Some("html") => "text/html",
                Some("css") => "text/css",
                Some("js") => "text/javascript",
                Some("svg") => "image/svg+xml",
                Some("md") => "text/markdown",
                Some("json") => "application/json",
                other => panic!("no content type known for {other:?}"),
            };
            assert!(content_type.starts_with(expected), "{name}: {content_type}");
        }
    }
}
