//! HTTP errors: every error the server answers is `{"code", "message"}`
//! JSON (docs/protocol.md section 2), whoever produced it: our handlers
//! ([`ApiError`]), axum's extractor rejections and routing (404, 405), the
//! transport limits in [`super::serve`] (408, 413, 414). Handlers build
//! [`ApiError`]s; [`json_errors`] rewrites whatever non-JSON error is left
//! (axum's rejections are plain text) so that no error can slip through.
//! Also the request-body reader, which owns the body limits and the
//! body-read timeout.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::Serialize;

use super::protocol::{ErrorCode, Refusal};

/// Codes only HTTP has (the others are the WebSocket's [`ErrorCode`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HttpCode {
    /// 405: the route exists, not with this method.
    MethodNotAllowed,
    /// 408: the body or the whole request took too long.
    RequestTimeout,
    /// 413: the body is over the route's limit.
    TooLarge,
    /// 414: the request target is over [`MAX_URI_BYTES`].
    UriTooLong,
    /// 415: a body that is not `application/json`.
    UnsupportedMediaType,
    /// 426: a WebSocket route asked without the upgrade headers.
    UpgradeRequired,
    /// 503: every replay slot stayed busy, or every analysis slot is taken (try again).
    Busy,
    /// 409: an analysis asked of a game still open or being played (a cheating aid).
    GameNotOver,
    /// 404: `/api/users/{name}` of a username nobody has.
    UnknownUser,
    /// 500: a bug; nothing the client did.
    Internal,
}

/// The `code` field: one of either set, written as its snake_case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Code {
    Refusal(ErrorCode),
    Http(HttpCode),
    /// The account routes' codes (`bad_credentials`, ...; `account/error.rs`).
    Account(crate::server::account::error::AccountCode),
    /// The challenge routes' codes (`unknown_user`, ...; `challenge/registry.rs`).
    Challenge(super::challenge::registry::ChallengeCode),
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
}

impl ApiError {
    pub fn http(status: StatusCode, code: HttpCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: Code::Http(code),
            message: message.into(),
            retry_after_secs: None,
        }
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::from(Refusal::new(ErrorCode::NotFound, format!("no such {what}")))
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::from(Refusal::new(ErrorCode::BadRequest, message))
    }

    pub fn request_timeout(what: &str) -> ApiError {
        ApiError::http(
            StatusCode::REQUEST_TIMEOUT,
            HttpCode::RequestTimeout,
            format!("the {what} took too long"),
        )
    }

    pub fn too_large(limit: usize) -> ApiError {
        ApiError::http(
            StatusCode::PAYLOAD_TOO_LARGE,
            HttpCode::TooLarge,
            format!("the body is over this route's limit of {limit} bytes"),
        )
    }

    pub fn retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        let status = match refusal.code {
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::SeatTaken => StatusCode::CONFLICT,
            ErrorCode::StoreFailure => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError {
            status,
            code: Code::Refusal(refusal.code),
            message: refusal.message,
            retry_after_secs: None,
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: Code,
    message: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            code: self.code,
            message: &self.message,
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
fn code_of_status(status: StatusCode) -> Code {
    match status {
        StatusCode::NOT_FOUND => Code::Refusal(ErrorCode::NotFound),
        StatusCode::CONFLICT => Code::Refusal(ErrorCode::SeatTaken),
        StatusCode::TOO_MANY_REQUESTS => Code::Refusal(ErrorCode::RateLimited),
        StatusCode::METHOD_NOT_ALLOWED => Code::Http(HttpCode::MethodNotAllowed),
        StatusCode::REQUEST_TIMEOUT => Code::Http(HttpCode::RequestTimeout),
        StatusCode::PAYLOAD_TOO_LARGE => Code::Http(HttpCode::TooLarge),
        StatusCode::URI_TOO_LONG => Code::Http(HttpCode::UriTooLong),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => Code::Http(HttpCode::UnsupportedMediaType),
        StatusCode::UPGRADE_REQUIRED => Code::Http(HttpCode::UpgradeRequired),
        StatusCode::SERVICE_UNAVAILABLE => Code::Http(HttpCode::Busy),
        s if s.is_client_error() => Code::Refusal(ErrorCode::BadRequest),
        _ => Code::Http(HttpCode::Internal),
    }
}

/// How much of a plain-text error body is kept as the JSON `message`.
const MAX_MESSAGE_BYTES: usize = 1024;

fn is_json(headers: &HeaderMap) -> bool {
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
    let mut fresh = ApiError {
        status,
        code: code_of_status(status),
        message,
        retry_after_secs: None,
    }
    .into_response();
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

/// Reads a JSON request's body: at most `limit` bytes (a larger
/// `Content-Length` is refused at once, before reading anything; a larger
/// chunked body as soon as it passes the limit), within `timeout` (a client
/// that stops sending gets 408 instead of holding the connection). A
/// non-empty body must be `application/json` (415 otherwise; also keeps
/// plain HTML forms of other sites from posting here).
pub async fn read_json_body(
    request: Request,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, ApiError> {
    let headers = request.headers();
    let declared = match headers.get(header::CONTENT_LENGTH) {
        None => None,
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                .ok_or_else(|| ApiError::bad_request("a Content-Length that is not a number"))?,
        ),
    };
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(ApiError::too_large(limit));
    }
    let may_have_body = declared.is_some_and(|length| length > 0)
        || headers.contains_key(header::TRANSFER_ENCODING);
    if !may_have_body {
        return Ok(Bytes::new());
    }
    if !is_json(headers) {
        return Err(ApiError::http(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            HttpCode::UnsupportedMediaType,
            "a request body must be Content-Type: application/json",
        ));
    }
    let body = request.into_body();
    tokio::time::timeout(timeout, collect(body, limit))
        .await
        .map_err(|_| ApiError::request_timeout("request body"))?
}

/// The body's bytes, refusing it as soon as it passes `limit`.
async fn collect(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| ApiError::bad_request(format!("cannot read the body: {e}")))?;
        if bytes.len() + chunk.len() > limit {
            return Err(ApiError::too_large(limit));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_codes_have_snake_case_wire_names_next_to_the_websocket_ones() {
        let names: Vec<String> = [
            Code::Http(HttpCode::MethodNotAllowed),
            Code::Http(HttpCode::UnsupportedMediaType),
            Code::Refusal(ErrorCode::RateLimited),
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
