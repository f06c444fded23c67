//! The HTTP and WebSocket edge, which knows no feature: the accept loop and its limits
//! ([`serve`]) and the client address and scheme it gives each request behind trusted proxies
//! ([`client_addr`]), error bodies ([`error`]), request bodies ([`body`]), the WebSocket handshake
//! ([`upgrade`]), the frames a connection writes ([`outgoing`]) and a connection's frame meter
//! and round trip ([`frame_meter`], [`rtt`]), the token bucket behind every rate limit
//! ([`bucket`], [`ratelimit`]), what a client holds at once ([`holdings`]) and the embedded client's files ([`assets`]). Features build on it; it imports none of them.

pub mod assets;
pub mod body;
pub mod bucket;
pub mod client_addr;
pub mod error;
pub mod frame_meter;
pub mod holdings;
pub mod outgoing;
pub mod ratelimit;
pub mod rtt;
pub mod serve;
pub mod upgrade;

pub use body::read_json_body;
pub use error::{ApiError, Code, EdgeCode, MAX_URI_BYTES, json_errors, unknown_route};
