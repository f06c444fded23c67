//! Request bodies: read with a size limit and a time limit, and only as JSON.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use futures_util::StreamExt;

use super::error::{ApiError, EdgeCode, is_json};

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
            EdgeCode::UnsupportedMediaType,
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
