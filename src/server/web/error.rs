//! HTTP errors: every error the server answers is `{"code", "message"}` JSON
//! (docs/protocol.md section 2), whoever produced it: the handlers ([`ApiError`]), axum's
//! extractor rejections and routing (404, 405), the transport limits in [`super::serve`] (408,
//! 413, 414). [`json_errors`] rewrites whatever non-JSON error is left (axum's rejections are
//! plain text) so that no error can slip through.
//!
//! The edge knows no feature's codes: each feature keeps its own typed (an enum whose serde names
//! are its wire names) and hands it to [`ApiError::new`], which writes it as text; the edge has
//! codes only for what it answers itself ([`EdgeCode`]).

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

/// The codes the edge answers by itself: routing, transport limits, request bodies, and the
/// generic ones a status means when nothing more precise is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeCode {
    /// 400: a request the route cannot read.
    BadRequest,
    /// 404: no such route, file or resource.
    NotFound,
    /// 405: the route exists, not with this method.
    MethodNotAllowed,
    /// 408: the body or the whole request took too long.
    RequestTimeout,
    /// 409 with nothing more precise (the name the game routes gave it first).
    SeatTaken,
    /// 413: the body is over the route's limit.
    TooLarge,
    /// 414: the request target is over [`MAX_URI_BYTES`].
    UriTooLong,
    /// 415: a body that is not `application/json`.
    UnsupportedMediaType,
    /// 426: a WebSocket route asked without the upgrade headers.
    UpgradeRequired,
    /// 429: too many requests from this address or account.
    RateLimited,
    /// 503: every slot of a bounded resource stayed busy (try again).
    Busy,
    /// 500: a bug; nothing the client did.
    Internal,
}

/// The `code` field, as text: the serde name of whichever typed code made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Code(Cow<'static, str>);

impl Code {
    /// The wire name of a typed code (its serde name); `internal` for a value that does not
    /// serialize as a name, which is a bug of its enum.
    pub fn of(code: impl Serialize) -> Code {
        match serde_json::to_value(code) {
            Ok(Value::String(name)) => Code(Cow::Owned(name)),
            _ => Code(Cow::Borrowed("internal")),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Longest request target (path and query) served; longer is 414. (hyper
/// itself refuses request heads it cannot buffer, see docs/protocol.md.)
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// An HTTP error: status, `{code, message}`, and for 429/503 how many
/// seconds to wait (`Retry-After`).
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: Code,
    pub message: String,
    pub retry_after_secs: Option<u64>,
    /// Fields a feature adds beside `code` and `message` in the body (a playban's
    /// `until_ms` and `reason`); `None` for nearly every error.
    pub extra: Option<Box<serde_json::Map<String, Value>>>,
}

impl ApiError {
    /// An error with a feature's typed code (any enum whose serde names are wire names).
    pub fn new(status: StatusCode, code: impl Serialize, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: Code::of(code),
            message: message.into(),
            retry_after_secs: None,
            extra: None,
        }
    }

    /// An error the edge answers by itself.
    pub fn http(status: StatusCode, code: EdgeCode, message: impl Into<String>) -> ApiError {
        ApiError::new(status, code, message)
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::http(
            StatusCode::NOT_FOUND,
            EdgeCode::NotFound,
            format!("no such {what}"),
        )
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::http(StatusCode::BAD_REQUEST, EdgeCode::BadRequest, message)
    }

    pub fn request_timeout(what: &str) -> ApiError {
        ApiError::http(
            StatusCode::REQUEST_TIMEOUT,
            EdgeCode::RequestTimeout,
            format!("the {what} took too long"),
        )
    }

    pub fn too_large(limit: usize) -> ApiError {
        ApiError::http(
            StatusCode::PAYLOAD_TOO_LARGE,
            EdgeCode::TooLarge,
            format!("the body is over this route's limit of {limit} bytes"),
        )
    }

    pub fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }

    /// The same error with one more field in its body (never `code` or `message`, which it
    /// would shadow).
    pub fn with_field(mut self, key: &str, value: impl Into<Value>) -> ApiError {
        self.extra
            .get_or_insert_with(Default::default)
            .insert(key.to_owned(), value.into());
        self
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: Code,
    message: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    extra: Option<&'a serde_json::Map<String, Value>>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            code: self.code,
            message: &self.message,
            extra: self.extra.as_deref(),
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.status == StatusCode::UPGRADE_REQUIRED {
            // RFC 9110 15.5.22: a 426 names the protocol to upgrade to.
            response
                .headers_mut()
                .insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        }
        response
    }
}

/// The code an error status means when nothing more precise is known.
fn code_of_status(status: StatusCode) -> EdgeCode {
    match status {
        StatusCode::NOT_FOUND => EdgeCode::NotFound,
        StatusCode::CONFLICT => EdgeCode::SeatTaken,
        StatusCode::TOO_MANY_REQUESTS => EdgeCode::RateLimited,
        StatusCode::METHOD_NOT_ALLOWED => EdgeCode::MethodNotAllowed,
        StatusCode::REQUEST_TIMEOUT => EdgeCode::RequestTimeout,
        StatusCode::PAYLOAD_TOO_LARGE => EdgeCode::TooLarge,
        StatusCode::URI_TOO_LONG => EdgeCode::UriTooLong,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => EdgeCode::UnsupportedMediaType,
        StatusCode::UPGRADE_REQUIRED => EdgeCode::UpgradeRequired,
        StatusCode::SERVICE_UNAVAILABLE => EdgeCode::Busy,
        s if s.is_client_error() => EdgeCode::BadRequest,
        _ => EdgeCode::Internal,
    }
}

/// How much of a plain-text error body is kept as the JSON `message`.
const MAX_MESSAGE_BYTES: usize = 1024;

pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| mime_is(value, "application/json"))
}

/// Whether a `Content-Type` value is `essence` (parameters ignored).
fn mime_is(value: &str, essence: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|type_| type_.trim().eq_ignore_ascii_case(essence))
}

/// Response-mapping layer: an error response that is not JSON (axum's
/// plain-text rejections, an empty 405) becomes `{"code", "message"}` with
/// the same status and headers; the old text, if any, is the message.
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(response.headers()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_string(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_TYPE);
    let mut fresh = ApiError::http(status, code_of_status(status), message).into_response();
    // Keep what the original said besides its body (`Allow` on a 405...).
    for (name, value) in parts.headers.iter() {
        fresh.headers_mut().insert(name.clone(), value.clone());
    }
    fresh
}

/// The router's fallback: unknown routes are a JSON 404.
pub async fn unknown_route() -> ApiError {
    ApiError::not_found("route")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_codes_have_snake_case_wire_names() {
        let names: Vec<String> = [
            Code::of(EdgeCode::MethodNotAllowed),
            Code::of(EdgeCode::UnsupportedMediaType),
            Code::of(EdgeCode::RateLimited),
        ]
        .iter()
        .map(|code| serde_json::to_value(code).unwrap().to_string())
        .collect();
        assert_eq!(
            names,
            [
                "\"method_not_allowed\"",
                "\"unsupported_media_type\"",
                "\"rate_limited\""
            ]
        );
    }

    #[test]
    fn a_features_code_is_its_serde_name_and_a_code_that_is_no_name_is_internal() {
        #[derive(Serialize)]
        #[serde(rename_all = "snake_case")]
        enum FeatureCode {
            GameNotOver,
        }
        let error = ApiError::new(StatusCode::CONFLICT, FeatureCode::GameNotOver, "not yet");
        assert_eq!(error.code.as_str(), "game_not_over");
        // A code must serialize as a name; anything else is a bug of its enum, answered
        // `internal` rather than a body with a number or an object for its code.
        assert_eq!(Code::of(42).as_str(), "internal");
        assert_eq!(Code::of(("a", 1)).as_str(), "internal");
    }

    #[test]
    fn content_types_are_compared_without_parameters_or_case() {
        assert!(mime_is("application/json", "application/json"));
        assert!(mime_is(
            "Application/JSON; charset=utf-8",
            "application/json"
        ));
        assert!(!mime_is("text/plain", "application/json"));
        assert!(!mime_is("application/jsonx", "application/json"));
    }
}
