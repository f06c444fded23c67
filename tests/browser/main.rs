//! The browser client in headless Chromium through chromedriver, against a real server.
//! One browser at a time (`browser::SERIAL`): two Chromiums on two cores starve each other.
//!
//! One test binary per area (issue 26): each binary links the whole crate, so a handful of
//! them instead of one per file is most of what a clean build of the tests costs.

#[path = "../support/browser.rs"]
mod browser;
#[path = "../support/mod.rs"]
mod support;

mod accounts;
mod arena;
mod chat;
mod game;
mod i18n;
mod premove;
mod settings;
