//! Review files are read and encoded here, never in the web view: size and type
//! (by content, not only by name) are checked before anything is sent.

use std::path::Path;

use base64::Engine as _;
use paydesk_gateway::wire::FileItem;

use crate::error::{CoreError, CoreResult};

/// Largest file accepted (the sandbox's documented limit; real gateways are similar).
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;

/// The suffix that matches a file's content, if it is an allowed type.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(".png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(".jpg")
    } else if bytes.starts_with(b"%PDF-") {
        Some(".pdf")
    } else {
        None
    }
}

/// Reads `path` into a `fileList` item of type `code`.
pub fn read_file(index: usize, code: &str, path: &Path) -> CoreResult<FileItem> {
    let field = format!("fileList[{index}]");
    if code.trim().is_empty() {
        return Err(CoreError::validation(
            format!("{field}.fileType"),
            "is required",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| {
        CoreError::validation(&field, format!("cannot read {}: {e}", path.display()))
    })?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(CoreError::validation(
            &field,
            format!(
                "{} is {} bytes; at most {MAX_FILE_BYTES} bytes (5 MiB) are accepted",
                path.display(),
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        CoreError::validation(&field, format!("cannot read {}: {e}", path.display()))
    })?;
    let suffix = sniff(&bytes).ok_or_else(|| {
        CoreError::validation(
            &field,
            format!("{} is not a PNG, JPEG or PDF file", path.display()),
        )
    })?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("file")
        .to_string();
    Ok(FileItem {
        file_type: code.trim().to_string(),
        file_content: base64::engine::general_purpose::STANDARD.encode(&bytes),
        file_name: name,
        suffix: suffix.to_string(),
    })
}
