//! The desk's notification endpoint: an HTTP listener on loopback that the built-in
//! sandbox (or a tunnel to a real gateway) POSTs notifications to. Each one is checked
//! against the gateway's key; the order a verified one names is read again from the
//! gateway, then the notification is kept; a valid one is acknowledged with `SUCCESS`, an
//! invalid one is answered 400 so that the sender retries rather than losing it.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::post;
use tokio::sync::oneshot;

use paydesk_core::{CoreError, CoreResult, Desk};

/// A running endpoint; dropping it stops the listener.
#[derive(Debug)]
pub struct Receiver {
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
}

impl Receiver {
    /// The URL to give as `notifyUrl`.
    pub fn url(&self) -> String {
        format!("http://{}/notify", self.addr)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Starts the endpoint on a free loopback port and makes it the desk's default
/// `notifyUrl`.
pub async fn serve(desk: Arc<Desk>) -> CoreResult<Receiver> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| CoreError::storage(format!("cannot listen for notifications: {e}")))?;
    let addr = listener.local_addr()?;
    let d = desk.clone();
    let app = axum::Router::new().route(
        "/notify",
        post(move |body: Bytes| {
            let desk = d.clone();
            async move {
                let text = String::from_utf8_lossy(&body);
                match desk.records().receive_notification(&text).await {
                    Ok(r) if r.signature_ok => (StatusCode::OK, "SUCCESS".to_string()),
                    Ok(r) => (
                        StatusCode::BAD_REQUEST,
                        format!("signature: {}", r.problem.unwrap_or_default()),
                    ),
                    Err(e) => (StatusCode::BAD_REQUEST, e.to_string()),
                }
            }
        }),
    );
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await;
        if let Err(e) = served {
            tracing::error!(error = %e, "notification endpoint stopped");
        }
    });
    let receiver = Receiver {
        addr,
        shutdown: Some(tx),
    };
    desk.records().set_notify_url(&receiver.url());
    Ok(receiver)
}
