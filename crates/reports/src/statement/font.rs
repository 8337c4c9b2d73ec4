//! A font for the statement PDF's text outside Latin-1 (a merchant's or a currency's name
//! in Chinese, ...): a font of the machine that covers it (Noto Sans CJK, Microsoft
//! YaHei, PingFang, Arial Unicode, or the file `PAYDESK_PDF_FONT` names), subset to the
//! glyphs printed (`subsetter`) and embedded as a CID font with a ToUnicode map, so the
//! text prints as written and can be searched and copied. Text in Latin-1 keeps the
//! standard Helvetica. Fontconfig's choice for Chinese is tried last; with no font on the
//! machine that covers the text, the PDF is refused with what to install (never `?`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Name, Pdf, Rect, Ref, Str};
use subsetter::GlyphRemapper;

/// Where a CJK font usually is, on Linux, Windows and macOS.
const CANDIDATES: [&str; 12] = [
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/wqy-microhei/wqy-microhei.ttc",
    "C:\\Windows\\Fonts\\msyh.ttc",
    "C:\\Windows\\Fonts\\simsun.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Light.ttc",
    "/Library/Fonts/Arial Unicode.ttf",
    "/System/Library/Fonts/Supplemental/Arial Unicode.ttf",
];

/// The font fontconfig picks for Simplified Chinese (`fc-match :lang=zh-cn`), where it
/// is installed: a machine whose CJK font is in none of the usual places.
fn fontconfig_chinese() -> Option<PathBuf> {
    let out = std::process::Command::new("fc-match")
        .args(["-f", "%{file}", ":lang=zh-cn"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let file = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !file.trim().is_empty()).then(|| PathBuf::from(file.trim()))
}

/// The font file and face in use, and the glyphs printed with it so far.
pub(super) struct CidFont {
    data: Vec<u8>,
    index: u32,
    remapper: GlyphRemapper,
    /// New glyph id → the character it prints.
    unicode: BTreeMap<u16, char>,
    /// New glyph id → its advance, per 1,000 of the size.
    widths: BTreeMap<u16, f32>,
}

impl CidFont {
    /// The first font of the machine with a face that covers `sample` (Simplified
    /// Chinese preferred in a collection); `None` when there is none.
    pub(super) fn find(sample: &str) -> Option<Self> {
        let mut paths: Vec<PathBuf> = Vec::new();
        if let Some(p) = std::env::var_os("PAYDESK_PDF_FONT") {
            paths.push(p.into());
        }
        paths.extend(CANDIDATES.iter().map(PathBuf::from));
        let open = |p: PathBuf| {
            let data = std::fs::read(&p).ok()?;
            let index = face_covering(&data, sample)?;
            Some(CidFont {
                data,
                index,
                remapper: GlyphRemapper::new(),
                unicode: BTreeMap::new(),
                widths: BTreeMap::new(),
            })
        };
        paths
            .into_iter()
            .find_map(open)
            .or_else(|| fontconfig_chinese().and_then(open))
    }

    /// `text` as the codes of the embedded subset (two bytes a glyph, Identity-H).
    pub(super) fn encode(&mut self, text: &str) -> Vec<u8> {
        let Ok(face) = ttf_parser::Face::parse(&self.data, self.index) else {
            return Vec::new();
        };
        let per_em = f32::from(face.units_per_em().max(1));
        let mut out = Vec::with_capacity(text.len() * 2);
        for c in text.chars() {
            let old = face.glyph_index(c).map_or(0, |g| g.0);
            let new = self.remapper.remap(old);
            self.unicode.entry(new).or_insert(c);
            let advance = face
                .glyph_hor_advance(ttf_parser::GlyphId(old))
                .map_or(1000.0, |a| f32::from(a) * 1000.0 / per_em);
            self.widths.insert(new, advance);
            out.extend_from_slice(&new.to_be_bytes());
        }
        out
    }

    /// Writes the subset and its font objects, the Type0 font at `type0`, the others at
    /// `more` and the 3 refs after it. `None` when the font cannot be subset (the text
    /// then shows the viewer's fallback).
    pub(super) fn write(self, pdf: &mut Pdf, type0: Ref, more: i32) -> Option<()> {
        let face = ttf_parser::Face::parse(&self.data, self.index).ok()?;
        let cff = face.tables().cff.is_some();
        let subset = subsetter::subset(&self.data, self.index, &self.remapper).ok()?;
        let (cid, descriptor, file, cmap) = (
            Ref::new(more),
            Ref::new(more + 1),
            Ref::new(more + 2),
            Ref::new(more + 3),
        );
        let ps: String = face
            .names()
            .into_iter()
            .find(|n| n.name_id == ttf_parser::name_id::POST_SCRIPT_NAME)
            .and_then(|n| n.to_string())
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(40)
            .collect();
        let base = format!("PDSKAA+{}", if ps.is_empty() { "CJK" } else { &ps });
        let info = SystemInfo {
            registry: Str(b"Adobe"),
            ordering: Str(b"Identity"),
            supplement: 0,
        };
        pdf.type0_font(type0)
            .base_font(Name(base.as_bytes()))
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid)
            .to_unicode(cmap);
        let mut font = pdf.cid_font(cid);
        font.subtype(if cff {
            CidFontType::Type0
        } else {
            CidFontType::Type2
        })
        .base_font(Name(base.as_bytes()))
        .system_info(info)
        .font_descriptor(descriptor)
        .default_width(1000.0);
        if !cff {
            font.cid_to_gid_map_predefined(Name(b"Identity"));
        }
        let count = self.remapper.num_gids();
        font.widths().consecutive(
            0,
            (0..count).map(|g| self.widths.get(&g).copied().unwrap_or(1000.0)),
        );
        drop(font);
        let per_em = f32::from(face.units_per_em().max(1));
        let scale = |v: i16| f32::from(v) * 1000.0 / per_em;
        let b = face.global_bounding_box();
        let mut d = pdf.font_descriptor(descriptor);
        d.name(Name(base.as_bytes()))
            .flags(FontFlags::SYMBOLIC)
            .bbox(Rect::new(
                scale(b.x_min),
                scale(b.y_min),
                scale(b.x_max),
                scale(b.y_max),
            ))
            .italic_angle(0.0)
            .ascent(scale(face.ascender()))
            .descent(scale(face.descender()))
            .cap_height(scale(face.capital_height().unwrap_or(face.ascender())))
            .stem_v(80.0);
        if cff {
            d.font_file3(file);
        } else {
            d.font_file2(file);
        }
        drop(d);
        let mut stream = pdf.stream(file, &subset);
        if cff {
            stream.pair(Name(b"Subtype"), Name(b"OpenType"));
        }
        drop(stream);
        let mut map = UnicodeCmap::new(Name(b"PayDesk-UTF16"), info);
        for (g, c) in &self.unicode {
            map.pair(*g, *c);
        }
        pdf.cmap(cmap, &map.finish());
        Some(())
    }
}

/// The face of `data` (a font or a collection) that has a glyph for every character of
/// `sample`: Simplified Chinese first in a collection.
fn face_covering(data: &[u8], sample: &str) -> Option<u32> {
    let count = ttf_parser::fonts_in_collection(data).unwrap_or(1);
    let covers = |i: u32| {
        ttf_parser::Face::parse(data, i)
            .ok()
            .filter(|f| {
                sample
                    .chars()
                    .filter(|c| u32::from(*c) > 0xff)
                    .all(|c| f.glyph_index(c).is_some())
            })
            .map(|f| {
                f.names()
                    .into_iter()
                    .filter_map(|n| n.to_string())
                    .any(|n| n.contains(" SC") || n.contains("SC "))
            })
    };
    let mut first = None;
    for i in 0..count {
        match covers(i) {
            Some(true) => return Some(i),
            Some(false) if first.is_none() => first = Some(i),
            _ => {}
        }
    }
    first
}
