//! The browser client in headless Chromium through chromedriver, against a real server.
//! One browser at a time (`browser::SERIAL`): two Chromiums on two cores starve each other.

mod account_page;
mod accounts;
mod analysis_board;
mod arena;
mod blocks;
mod chat;
mod explorer;
mod game;
mod i18n;
mod learn;
mod moderation;
mod premove;
mod puzzles;
mod settings;
