//! The WebSocket opening handshake (RFC 6455 4.2.2) and the stream a
//! connection is served on.
//!
//! axum's `WebSocketUpgrade` builds the WebSocket on the upgraded connection
//! itself and gives no access to the bytes underneath, but the rate limit
//! must see every frame, including the continuation frames tungstenite
//! consumes internally ([`crate::server::web::frame_meter`]). So the handshake is done
//! here, with the same checks, and the WebSocket runs on a [`FrameMeter`]
//! around the upgraded connection.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use crate::server::config::Config;
use crate::server::web::frame_meter::{FrameMeter, RateLimit};
use crate::server::web::{ApiError, EdgeCode};

/// The WebSocket a connection is served on. Boxed: the connection's task holds it for as long
/// as the connection lives, and an async fn keeps its arguments and their moved-in copies apart,
/// so the 408 bytes of the stream counted twice in every socket's task.
pub type Ws = Box<WebSocketStream<FrameMeter<TokioIo<hyper::upgrade::Upgraded>>>>;

/// A valid upgrade request, not yet answered.
pub struct Upgrade {
    key: HeaderValue,
    on_upgrade: OnUpgrade,
}

fn bad(message: &str) -> ApiError {
    ApiError::bad_request(format!("not a WebSocket upgrade request: {message}"))
}

/// A plain request on a WebSocket route: 426, and the client is told which
/// protocol to upgrade to (RFC 9110 15.5.22).
fn upgrade_required(message: &str) -> ApiError {
    ApiError::http(
        StatusCode::UPGRADE_REQUIRED,
        EdgeCode::UpgradeRequired,
        format!("this is a WebSocket route: {message}"),
    )
}

fn header_has_token(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|value| {
        value.to_str().is_ok_and(|text| {
            text.split(',')
                .any(|part| part.trim().eq_ignore_ascii_case(token))
        })
    })
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Upgrade, ApiError> {
        if parts.method != Method::GET {
            return Err(ApiError::http(
                StatusCode::METHOD_NOT_ALLOWED,
                EdgeCode::MethodNotAllowed,
                "a WebSocket upgrade must be a GET",
            ));
        }
        if !header_has_token(&parts.headers, header::CONNECTION, "upgrade") {
            return Err(upgrade_required(
                "the Connection header must include \"upgrade\"",
            ));
        }
        if !header_has_token(&parts.headers, header::UPGRADE, "websocket") {
            return Err(upgrade_required("the Upgrade header must be \"websocket\""));
        }
        if parts
            .headers
            .get(header::SEC_WEBSOCKET_VERSION)
            .is_none_or(|v| v.as_bytes() != b"13")
        {
            return Err(bad("Sec-WebSocket-Version must be 13"));
        }
        let key = parts
            .headers
            .get(header::SEC_WEBSOCKET_KEY)
            .cloned()
            .ok_or_else(|| bad("Sec-WebSocket-Key is missing"))?;
        let on_upgrade = parts
            .extensions
            .remove::<OnUpgrade>()
            .ok_or_else(|| bad("this connection cannot be upgraded"))?;
        Ok(Upgrade { key, on_upgrade })
    }
}

/// What a socket reads at once, and the read buffer it keeps while idle: a client's messages
/// are small (a move is ~50 bytes, the message limit 4 KiB, and a larger frame grows the buffer
/// for as long as it needs), and every idle socket keeps this much (it was 4,096 bytes: 40 %
/// of an idle connection's memory).
const READ_BUFFER_BYTES: usize = 512;

/// The WebSocket settings for `config`. Frames somewhat above the message
/// limit are read and refused with a clear close code by the socket; far
/// larger ones tungstenite refuses itself (also close 1009).
pub(crate) fn websocket_config(config: &Config) -> WebSocketConfig {
    let hard_limit = (config.max_message_bytes * 2).max(8192);
    WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER_BYTES)
        // tungstenite writes only the control frames (pings, pong answers, close), each at
        // once; text messages go out past it ([`crate::server::web::outgoing`]).
        .write_buffer_size(0)
        .max_write_buffer_size(1 << 20)
        .max_message_size(Some(hard_limit))
        .max_frame_size(Some(hard_limit))
}

impl Upgrade {
    /// Answers `101 Switching Protocols` and, once hyper hands over the
    /// connection, runs `serve` on it (metered with `config`'s rate limit).
    pub fn accept<F, Fut>(self, config: &Config, serve: F) -> Response
    where
        F: FnOnce(Ws) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let websocket = websocket_config(config);
        let (rate, burst) = (config.rate_per_sec, config.rate_burst);
        let on_upgrade = self.on_upgrade;
        tokio::spawn(async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(error) => {
                    tracing::debug!(%error, "websocket upgrade failed");
                    return;
                }
            };
            let limit = RateLimit::new(rate, burst, std::time::Instant::now());
            let stream = FrameMeter::new(TokioIo::new(upgraded), limit);
            let ws = Box::new(
                WebSocketStream::from_raw_socket(stream, Role::Server, Some(websocket)).await,
            );
            serve(ws).await;
        });
        let accept = derive_accept_key(self.key.as_bytes());
        (
            StatusCode::SWITCHING_PROTOCOLS,
            [
                (header::CONNECTION, "upgrade".to_string()),
                (header::UPGRADE, "websocket".to_string()),
                (header::SEC_WEBSOCKET_ACCEPT, accept),
            ],
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_key_is_the_rfc_6455_example() {
        // RFC 6455 section 1.3.
        assert_eq!(
            derive_accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn connection_tokens_are_matched_case_insensitively_in_lists() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, Upgrade"),
        );
        assert!(header_has_token(&headers, header::CONNECTION, "upgrade"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgraded"));
        assert!(!header_has_token(&headers, header::CONNECTION, "upgrade"));
    }
}
