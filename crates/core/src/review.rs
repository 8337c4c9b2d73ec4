//! Review files are read and encoded here, never in the web view: size and type
//! (by content, not only by name) are checked before anything is sent.

use std::path::Path;

use base64::Engine as _;
use paydesk_gateway::wire::FileItem;

use crate::error::{CoreError, CoreResult};

/// Largest file accepted (the sandbox's documented limit; real gateways are similar).
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// All files of one review submission together (the gateway's limit).
pub const MAX_TOTAL_BYTES: u64 = 20 * 1024 * 1024;

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

/// A file chosen for a review submission, as checked before anything is sent.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileCheck {
    pub path: String,
    pub name: String,
    /// `.png`, `.jpg` or `.pdf`, from the content.
    pub suffix: String,
    pub size: u64,
    /// The file as a `data:` URL, for the screen's preview (a picture, or a PDF whose
    /// first page the screen draws).
    pub preview: Option<String>,
    /// A PDF's page count, when it can be read.
    pub pages: Option<u32>,
}

/// Checks a file the way [`read_file`] will (size, type by content) and answers with
/// what the person needs to see before sending it.
pub fn inspect(path: &Path) -> CoreResult<FileCheck> {
    let item = read_file(0, "preview", path).map_err(|e| match e {
        CoreError::Validation { rule, .. } => CoreError::validation("file", rule),
        other => other,
    })?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&item.file_content)
        .unwrap_or_default();
    let size = bytes.len() as u64;
    let (preview, pages) = match item.suffix.as_str() {
        ".png" => (
            Some(format!("data:image/png;base64,{}", item.file_content)),
            None,
        ),
        ".jpg" => (
            Some(format!("data:image/jpeg;base64,{}", item.file_content)),
            None,
        ),
        _ => (
            Some(format!("data:application/pdf;base64,{}", item.file_content)),
            pdf_pages(&bytes),
        ),
    };
    Ok(FileCheck {
        path: path.display().to_string(),
        name: path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("file")
            .to_string(),
        suffix: item.suffix,
        size,
        preview,
        pages,
    })
}

/// Counts `/Type /Page` objects (not `/Pages`): enough for an uncompressed or a
/// typical PDF; `None` when none are visible (object streams).
fn pdf_pages(bytes: &[u8]) -> Option<u32> {
    let mut n = 0u32;
    let mut i = 0;
    while let Some(p) = bytes[i..].windows(5).position(|w| w == b"/Type") {
        let mut j = i + p + 5;
        while j < bytes.len() && bytes[j] == b' ' {
            j += 1;
        }
        if bytes[j..].starts_with(b"/Page") && !bytes[j..].starts_with(b"/Pages") {
            n += 1;
        }
        i = j;
    }
    (n > 0).then_some(n)
}

/// The media type of an allowed suffix.
pub fn media_type(suffix: &str) -> &'static str {
    match suffix {
        ".png" => "image/png",
        ".jpg" => "image/jpeg",
        ".pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// What the desk keeps of a file it sends: its name, type, size and the SHA-256 of the
/// bytes the item carries (decoded from the item itself, so it is what leaves).
pub fn evidence(item: &FileItem) -> paydesk_model::reviews::FileEvidence {
    use sha2::Digest as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&item.file_content)
        .unwrap_or_default();
    paydesk_model::reviews::FileEvidence {
        name: format!("{}{}", item.file_name, item.suffix),
        file_type: item.file_type.clone(),
        suffix: item.suffix.clone(),
        media_type: media_type(&item.suffix).to_string(),
        size: bytes.len() as u64,
        sha256: hex::encode(sha2::Sha256::digest(&bytes)),
    }
}

/// Reads `path` into a `fileList` item of type `code`.
pub fn read_file(index: usize, code: &str, path: &Path) -> CoreResult<FileItem> {
    let field = format!("fileList[{index}]");
    if code.trim().is_empty() {
        return Err(CoreError::keyed(
            format!("{field}.fileType"),
            "is required",
            "required",
            &[],
        ));
    }
    let bytes = crate::input::read_file_rule(path, MAX_FILE_BYTES).map_err(|rule| {
        let text = format!("{} (5 MiB per file)", rule.text);
        CoreError::validation(&field, crate::error::Rule { text, ..rule })
    })?;
    let suffix = sniff(&bytes).ok_or_else(|| {
        CoreError::keyed(
            &field,
            format!("{} is not a PNG, JPEG or PDF file", path.display()),
            "reviewFileType",
            &[("file", path.display().to_string())],
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspect_previews_pictures_and_counts_pdf_pages() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("id.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\nxx").unwrap();
        let c = inspect(&png).unwrap();
        assert_eq!((c.suffix.as_str(), c.size), (".png", 10));
        assert!(c.preview.unwrap().starts_with("data:image/png;base64,"));
        let pdf = dir.path().join("proof.pdf");
        std::fs::write(
            &pdf,
            b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >> endobj 2 0 obj << /Type /Page >> endobj 3 0 obj <</Type/Page>> endobj",
        )
        .unwrap();
        let c = inspect(&pdf).unwrap();
        assert_eq!(c.pages, Some(2));
        assert!(
            c.preview
                .unwrap()
                .starts_with("data:application/pdf;base64,")
        );
        let exe = dir.path().join("tool.exe");
        std::fs::write(&exe, b"MZ").unwrap();
        assert!(
            matches!(inspect(&exe), Err(CoreError::Validation { field, .. }) if field == "file")
        );
    }
}
