//! Fuzz target `client_message`: the server's WebSocket message parser
//! (`src/server/protocol/client.rs` and the modules it uses, compiled here
//! from their own source like the
//! rules engine) on arbitrary text never panics; an accepted move has a
//! sub-move that round-trips through UCI and an ack id within the limit; a
//! refusal becomes an `error` payload that is valid JSON and stays within a
//! constant factor of the input (serde's messages may quote the input with
//! escapes: a control character becomes `\u{7f}`, 6 bytes for 1).
#![no_main]

use libfuzzer_sys::fuzz_target;
/// `crate::rules` for the included server module.
pub use marseillais_fuzz::rules;

// At the crate root, so that client.rs's `super::error` etc. resolve.
#[allow(dead_code)]
#[path = "../../src/server/play/protocol/client.rs"]
mod client;
#[allow(dead_code)]
#[path = "../../src/server/play/protocol/error.rs"]
mod error;
#[allow(dead_code, unused_imports)]
#[path = "../../src/server/play/protocol/names.rs"]
mod names;
#[allow(dead_code)]
#[path = "../../src/server/play/protocol/uci.rs"]
mod uci;
// The chat values a `chat` message is parsed into (room and text), at the path client.rs names
// them by.
#[allow(dead_code)]
#[path = "../../src/server/domain/chat.rs"]
mod chat_values;
// What of a text a reader sees, at the path chat.rs names it by (`super::visible`).
#[allow(dead_code)]
#[path = "../../src/server/domain/visible.rs"]
mod visible;
// The wire name of a colour, at the path names.rs re-exports it from.
#[allow(dead_code)]
#[path = "../../src/server/domain/side.rs"]
mod side;
pub mod server {
    pub mod chat {
        pub use crate::chat_values::*;
    }
    pub mod domain {
        pub mod side {
            pub use crate::side::Side;
        }
    }
}

use client::{ClientMsg, MAX_ACK_ID_LEN, parse_client};

fuzz_target!(|data: &[u8]| {
    // The server only ever sees valid UTF-8 (tungstenite refuses the rest).
    let text = String::from_utf8_lossy(data);
    match parse_client(&text) {
        Ok(ClientMsg::Move { mv, id, .. }) => {
            assert!(
                id.as_ref().is_none_or(|id| id.len() <= MAX_ACK_ID_LEN),
                "{id:?}"
            );
            let again: rules::SubMove = match mv.to_string().parse() {
                Ok(again) => again,
                Err(err) => panic!("{mv} does not read back: {err}"),
            };
            assert_eq!(again, mv);
        }
        Ok(msg) => {
            let _ = msg.needs_seat();
            // What test clients send reads back as the same message.
            let text = msg.to_text();
            assert_eq!(parse_client(&text).as_ref(), Ok(&msg), "{text}");
        }
        Err(refused) => {
            let refusal = &refused.refusal;
            assert!(
                refused.id.as_ref().is_none_or(|id| id.len() <= MAX_ACK_ID_LEN),
                "{refused:?}"
            );
            assert!(
                refusal.message.len() <= 10 * text.len() + 1024,
                "{} bytes of error for {} bytes of input",
                refusal.message.len(),
                text.len()
            );
            let out = match serde_json::to_string(&refused.error_msg()) {
                Ok(out) => out,
                Err(err) => panic!("error payload does not serialize ({err}): {refusal:?}"),
            };
            let value: serde_json::Value = match serde_json::from_str(&out) {
                Ok(value) => value,
                Err(err) => panic!("error payload is not JSON ({err}): {out}"),
            };
            assert!(value["code"].is_string(), "{out}");
        }
    }
});
