//! The browser client, embedded in the binary: a table of `client/` files
//! served at `/static/{name}` (and `index.html` at `/` and `/game/{id}`).
//! To add a file to the client, add one line to [`ASSETS`].

/// `(name under /static/, content type, bytes)`.
pub const ASSETS: &[(&str, &str, &[u8])] = &[(
    "index.html",
    "text/html; charset=utf-8",
    include_bytes!("../../client/index.html"),
)];

/// The page served at `/` and `/game/{id}`.
pub fn index_html() -> &'static [u8] {
    find("index.html").map_or(&[], |(_, bytes)| bytes)
}

/// A static file by name: its content type and bytes.
pub fn find(name: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, content_type, bytes)| (*content_type, *bytes))
}
