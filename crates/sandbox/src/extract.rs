//! Reading request bodies within a limit, and the simulation API's extractors, whose
//! rejections all answer `{"error": "..."}` (axum's own answer plain text).
//!
//! A body over its limit is still read to its end, up to [`MAX_DRAIN_BYTES`], and
//! dropped: a client that is still sending then gets the answer instead of a
//! connection reset.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::{HeaderMap, StatusCode, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use futures_util::StreamExt as _;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::sim::{ApiError, api_error};

/// A body over its limit is read and dropped up to this many bytes in all, so the
/// client gets its answer; past it (or when `Content-Length` says more) the answer
/// comes at once and the connection is closed, which a client still sending may see
/// as a reset.
pub const MAX_DRAIN_BYTES: usize = 64 * 1024 * 1024;

/// How long the part of a body over its limit may take to arrive.
const DRAIN_TIME: Duration = Duration::from_secs(30);

/// Bodies of the simulation API: at most this many bytes.
pub const MAX_SIM_BODY_BYTES: usize = 2 * 1024 * 1024;

/// What came of reading a body.
#[derive(Debug)]
pub(crate) enum Read {
    Whole(Bytes),
    /// Over the limit; the rest was read and dropped where it could be.
    TooLarge,
    /// The body broke off (the client went away or sent a bad chunk).
    Broken(String),
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// Reads `body` whole if it is at most `limit` bytes.
pub(crate) async fn read_limited(headers: &HeaderMap, body: Body, limit: usize) -> Read {
    let declared = content_length(headers);
    if declared.is_some_and(|n| n > MAX_DRAIN_BYTES as u64) {
        return Read::TooLarge;
    }
    let mut stream = body.into_data_stream();
    // Read the rest and drop it, so that the answer reaches the client.
    let drain = |mut stream: axum::body::BodyDataStream, mut seen: usize| async move {
        let rest = async {
            while let Some(Ok(c)) = stream.next().await {
                seen += c.len();
                if seen > MAX_DRAIN_BYTES {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(DRAIN_TIME, rest).await;
        Read::TooLarge
    };
    if declared.is_some_and(|n| n > limit as u64) {
        return drain(stream, 0).await;
    }
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => return Read::Broken(e.to_string()),
        };
        if buf.len() + chunk.len() > limit {
            let seen = buf.len() + chunk.len();
            drop(buf);
            return drain(stream, seen).await;
        }
        buf.extend_from_slice(&chunk);
    }
    Read::Whole(Bytes::from(buf))
}

/// Whether a request path is the simulation API's (any case, any number of leading
/// slashes): its answers are `{"error"}`, the rest the gateway's envelope.
pub(crate) fn under_sandbox(path: &str) -> bool {
    path.trim_start_matches('/')
        .to_ascii_lowercase()
        .starts_with("__sandbox")
}

/// Middleware for every route and fallback: the body is read whole before anything
/// answers, also where the handler never looks at it (a GET with a body, a wrong
/// method, an unknown path). An answer sent while the client is still sending makes
/// the server close the connection, and the client sees a broken pipe or a reset
/// instead of the answer. Over the limit (the operations' [`MAX_BODY_BYTES`],
/// [`MAX_SIM_BODY_BYTES`] under `/__sandbox/`) the rest is drained and the answer is
/// E1014 in the envelope, or 413 `{"error"}`.
///
/// [`MAX_BODY_BYTES`]: crate::MAX_BODY_BYTES
pub(crate) async fn whole_body(req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let sim = under_sandbox(parts.uri.path());
    let limit = if sim {
        MAX_SIM_BODY_BYTES
    } else {
        crate::gateway::MAX_BODY_BYTES
    };
    match read_limited(&parts.headers, body, limit).await {
        Read::Whole(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Read::TooLarge if sim => too_large().into_response(),
        Read::TooLarge => crate::gateway::too_large(),
        Read::Broken(e) if sim => broken(&e).into_response(),
        Read::Broken(e) => crate::gateway::broken(&e),
    }
}

fn too_large() -> ApiError {
    api_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("body: at most {MAX_SIM_BODY_BYTES} bytes are accepted"),
    )
}

fn broken(e: &str) -> ApiError {
    api_error(
        StatusCode::BAD_REQUEST,
        format!("body: could not be read: {e}"),
    )
}

/// `application/json`, or `application/<something>+json`, parameters allowed.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(ct) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = ct.split(';').next().unwrap_or_default().trim();
    let essence = essence.to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// `path: what is wrong`, or just what is wrong for the body as a whole.
fn located(path: &str, what: impl std::fmt::Display) -> String {
    if path.is_empty() || path == "." {
        format!("body: {what}")
    } else {
        format!("{path}: {what}")
    }
}

/// Decodes a JSON object's members into `T`, naming the field that fails.
pub(crate) fn from_map<T: DeserializeOwned>(map: Map<String, Value>) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let path = e.path().to_string();
        api_error(StatusCode::BAD_REQUEST, located(&path, e.inner()))
    })
}

/// The body as a JSON object (`None` when it is empty).
async fn object_body(req: Request) -> Result<Option<Map<String, Value>>, ApiError> {
    let (parts, body) = req.into_parts();
    let bytes = match read_limited(&parts.headers, body, MAX_SIM_BODY_BYTES).await {
        Read::Whole(b) => b,
        Read::TooLarge => return Err(too_large()),
        Read::Broken(e) => return Err(broken(&e)),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if !is_json(&parts.headers) {
        return Err(api_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "content-type: must be application/json",
        ));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(api_error(
            StatusCode::BAD_REQUEST,
            "body: must be a JSON object",
        )),
        Err(e) => Err(api_error(
            StatusCode::BAD_REQUEST,
            format!("body: not JSON: {e}"),
        )),
    }
}

/// A JSON object body decoded into `T`; a missing or empty body is an error.
#[derive(Debug)]
pub(crate) struct SimJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for SimJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        match object_body(req).await? {
            Some(m) => from_map(m).map(SimJson),
            None => Err(api_error(
                StatusCode::BAD_REQUEST,
                "body: a JSON object is required",
            )),
        }
    }
}

/// A JSON object body decoded into `T`, or `None` when the body is empty.
#[derive(Debug)]
pub(crate) struct OptJson<T>(pub Option<T>);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for OptJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        match object_body(req).await? {
            Some(m) => from_map(m).map(|t| OptJson(Some(t))),
            None => Ok(OptJson(None)),
        }
    }
}

/// Path parameters; a parameter that does not parse is a 400 `{"error"}`.
#[derive(Debug)]
pub(crate) struct SimPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for SimPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(t)| SimPath(t))
            .map_err(|e| api_error(StatusCode::BAD_REQUEST, format!("path: {}", e.body_text())))
    }
}
