//! The game server through its wire: HTTP and WebSocket against a real server on a loopback
//! port (in process through `support::rig`, or the binary), one module per feature, plus the
//! protocol's documented examples, the golden JSON messages, the client's translations and the
//! load generator's smoke test.

mod account_controls;
mod accounts;
mod agent;
mod analysis;
mod analysis_board;
mod arenas;
mod blocks;
mod challenges;
mod chat;
mod chat_rules;
mod client_address;
mod client_games;
mod client_i18n;
mod client_limits;
mod computer;
mod computer_pace;
mod correspondence;
mod correspondence_schedule;
mod errors;
mod explorer;
mod game;
mod generations;
mod http_limits;
mod lag;
mod learn;
mod lifecycle;
mod lifecycle_limits;
mod loadgen_smoke;
mod moderation;
mod moderation_effects;
mod my_games;
mod playban;
mod pools;
mod profiles;
mod protocol_examples;
mod puzzles;
mod rated;
mod restart;
mod resync;
mod room_limits;
mod seats_accounts;
mod settings;
mod socket_limits;
mod wire_golden;
