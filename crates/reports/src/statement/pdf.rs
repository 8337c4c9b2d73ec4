//! A statement as a printable PDF: A4 pages with the merchant, the period, the time zone,
//! the time it was made, how many orders are behind it and their SHA-256, then each
//! currency's lines with counts and amounts (in the currency's digits, more where the
//! gateway gave more). Latin-1 text is written in the PDF standard fonts (Helvetica);
//! text outside it (a name in Chinese) in a subset of a font of the machine that covers
//! it, embedded ([`super::font`]); only without such a font does it print as `?`.
//! The orders themselves and each line's filter are in the CSV and XLSX, not here.

use pdf_writer::{Content, Name, Pdf, Rect, Ref, Str, TextStr};
use rust_decimal::Decimal;

use super::export::Line;

const WIDTH: f32 = 595.0;
const HEIGHT: f32 = 842.0;
const MARGIN: f32 = 40.0;
const SIZE: f32 = 8.5;
const LEADING: f32 = 11.5;
const REGULAR: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");
/// The embedded font of text outside Latin-1.
const WIDE: Name<'static> = Name(b"F3");

/// What the first page says above the lines.
pub(super) struct Heading<'a> {
    pub pairs: &'a [(&'static str, String)],
}

/// Whether `text` is all Latin-1 (what WinAnsi Helvetica prints as it is).
fn is_latin1(text: &str) -> bool {
    text.chars()
        .all(|c| matches!(u32::from(c), 0x20..=0x7e | 0xa0..=0xff))
}

/// Text as WinAnsi bytes: Latin-1 as it is, anything else `?`.
fn latin1(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match u32::from(c) {
            0x20..=0x7e | 0xa0..=0xff => u32::from(c) as u8,
            _ => b'?',
        })
        .collect()
}

/// Helvetica's advance widths (per 1,000 of the size) of what amounts and counts hold.
fn width(text: &str, size: f32) -> f32 {
    let units: u32 = text
        .chars()
        .map(|c| match c {
            '0'..='9' => 556,
            '.' | ',' | ' ' => 278,
            '-' => 333,
            _ => 556,
        })
        .sum();
    units as f32 * size / 1000.0
}

/// An amount with thousands separators and at least the currency's digits.
pub(super) fn money(amount: &str, currency: &str) -> String {
    let Ok(d) = amount.parse::<Decimal>() else {
        return amount.to_string();
    };
    let digits = paydesk_gateway::money::Currency::parse(currency)
        .map(|c| c.minor_units())
        .unwrap_or(2);
    let mut d = d.normalize();
    if d.scale() < digits {
        d.rescale(digits);
    }
    let text = d.abs().to_string();
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if d.is_sign_negative() && !d.is_zero() {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// Pages as they fill: each a content stream.
struct Pages {
    done: Vec<Content>,
    page: Content,
    y: f32,
    /// The font of text outside Latin-1, when the machine has one.
    wide: Option<super::font::CidFont>,
    wide_used: bool,
}

impl Pages {
    fn new() -> Self {
        Pages {
            done: Vec::new(),
            page: Content::new(),
            y: HEIGHT - MARGIN,
            wide: None,
            wide_used: false,
        }
    }

    /// Room for `lines` more lines, or a new page.
    fn room(&mut self, lines: f32) {
        if self.y - lines * LEADING < MARGIN + LEADING {
            let full = std::mem::replace(&mut self.page, Content::new());
            self.done.push(full);
            self.y = HEIGHT - MARGIN;
        }
    }

    fn text(&mut self, x: f32, font: Name<'_>, size: f32, text: &str) {
        let (font, bytes) = match &mut self.wide {
            Some(wide) if !is_latin1(text) => {
                self.wide_used = true;
                (WIDE, wide.encode(text))
            }
            _ => (font, latin1(text)),
        };
        self.page
            .begin_text()
            .set_font(font, size)
            .next_line(x, self.y)
            .show(Str(&bytes))
            .end_text();
    }

    /// `text` ending at `right`.
    fn right(&mut self, right: f32, text: &str) {
        self.text(right - width(text, SIZE), REGULAR, SIZE, text);
    }

    fn rule(&mut self) {
        // Under the line just written, above the next.
        let y = self.y + LEADING - 3.0;
        self.page
            .set_line_width(0.4)
            .move_to(MARGIN, y)
            .line_to(WIDTH - MARGIN, y)
            .stroke();
    }

    fn down(&mut self, by: f32) {
        self.y -= by;
    }

    fn finish(mut self) -> Vec<Content> {
        self.done.push(self.page);
        self.done
    }
}

/// The statement's PDF, whole: text outside Latin-1 in a font of the machine that
/// covers it; with none, refused (never printed as `?`).
pub(super) fn write(
    heading: &Heading<'_>,
    lines: &[Line<'_>],
    codes: &[&str],
) -> crate::error::CoreResult<Vec<u8>> {
    write_with(heading, lines, codes, super::font::CidFont::find)
}

/// [`write`] with the machine's fonts as `find` finds them.
pub(super) fn write_with(
    heading: &Heading<'_>,
    lines: &[Line<'_>],
    codes: &[&str],
    find: impl Fn(&str) -> Option<super::font::CidFont>,
) -> crate::error::CoreResult<Vec<u8>> {
    let mut p = Pages::new();
    // Text outside Latin-1 (a name in Chinese): a font of the machine that covers it.
    let wide: String = heading
        .pairs
        .iter()
        .map(|(_, v)| v.as_str())
        .chain(lines.iter().map(|l| l.item.as_str()))
        .filter(|t| !is_latin1(t))
        .collect();
    if !wide.is_empty() {
        p.wide = find(&wide);
        if p.wide.is_none() {
            let sample: String = wide
                .chars()
                .filter(|c| !is_latin1(&c.to_string()))
                .take(12)
                .collect();
            return Err(crate::error::CoreError::keyed(
                "format",
                format!(
                    "the PDF cannot print \"{sample}\": no font on this machine covers it; install Noto Sans CJK (fonts-noto-cjk, what `cargo xtask setup` installs) or set PAYDESK_PDF_FONT to a font file that does, or export CSV or XLSX"
                ),
                "pdfNoFont",
                &[("sample", sample.clone())],
            ));
        }
    }
    p.text(MARGIN, BOLD, 15.0, "PayDesk statement");
    p.down(LEADING * 2.0);
    for (k, v) in heading.pairs {
        if *k == "Statement" {
            continue;
        }
        // A long value (the filter) is cut into lines of the page's width.
        let chars: Vec<char> = v.chars().collect();
        let chunks: Vec<String> = if chars.is_empty() {
            vec![String::new()]
        } else {
            chars.chunks(70).map(|c| c.iter().collect()).collect()
        };
        for (i, chunk) in chunks.iter().enumerate() {
            p.room(1.0);
            if i == 0 {
                p.text(MARGIN, BOLD, SIZE, k);
            }
            // Header names are sentences: the value starts past the longest.
            p.text(MARGIN + 230.0, REGULAR, SIZE, chunk);
            p.down(LEADING);
        }
    }
    if codes.is_empty() {
        p.down(LEADING);
        p.text(MARGIN, REGULAR, SIZE, "No orders in this period.");
    }
    for code in codes {
        p.down(LEADING);
        p.room(4.0);
        p.text(MARGIN, BOLD, 12.0, code);
        p.down(LEADING * 1.4);
        p.text(MARGIN + 10.0, BOLD, SIZE, "Line");
        p.text(MARGIN + 200.0, BOLD, SIZE, "State");
        p.text(MARGIN + 330.0, BOLD, SIZE, "Orders");
        p.text(WIDTH - MARGIN - 30.0, BOLD, SIZE, "Amount");
        p.down(LEADING);
        p.rule();
        let mut section = "";
        for l in lines.iter().filter(|l| l.currency == *code) {
            p.room(1.0);
            if l.section != section {
                // Each section on a line of its own, its lines under it.
                p.room(2.0);
                p.text(MARGIN, BOLD, SIZE, l.section);
                p.down(LEADING);
                section = l.section;
            }
            // Settlement lines name the amount they sum; elsewhere the item says it.
            let item = if l.section == "Settlement" {
                format!("{} ({})", l.item, l.field)
            } else {
                l.item.clone()
            };
            p.text(MARGIN + 10.0, REGULAR, SIZE, &item);
            if let Some(state) = l.state {
                p.text(
                    MARGIN + 200.0,
                    REGULAR,
                    SIZE,
                    &format!("{state} {}", l.meaning),
                );
            }
            if let Some(n) = l.count {
                p.right(MARGIN + 355.0, &n.to_string());
            }
            p.right(WIDTH - MARGIN, &money(&l.amount, code));
            p.down(LEADING);
        }
    }
    let wide = if p.wide_used { p.wide.take() } else { None };
    let pages = p.finish();

    let mut pdf = Pdf::new();
    let catalog = Ref::new(1);
    let tree = Ref::new(2);
    let regular = Ref::new(3);
    let bold = Ref::new(4);
    let info = Ref::new(5);
    let first = 6;
    let ids: Vec<(Ref, Ref)> = (0..pages.len() as i32)
        .map(|i| (Ref::new(first + 2 * i), Ref::new(first + 2 * i + 1)))
        .collect();
    pdf.catalog(catalog).pages(tree);
    pdf.pages(tree)
        .kids(ids.iter().map(|(page, _)| *page))
        .count(ids.len() as i32);
    pdf.document_info(info)
        .title(TextStr("PayDesk statement"))
        .creator(TextStr("PayDesk"));
    pdf.type1_font(regular)
        .base_font(Name(b"Helvetica"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    pdf.type1_font(bold)
        .base_font(Name(b"Helvetica-Bold"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    let total = pages.len();
    // The embedded font after the pages' objects.
    let wide_ref = wide.and_then(|w| {
        let at = first + 2 * total as i32;
        w.write(&mut pdf, Ref::new(at), at + 1)
            .map(|()| Ref::new(at))
    });
    for (n, (mut content, (page_id, content_id))) in pages.into_iter().zip(&ids).enumerate() {
        let footer = latin1(&format!("page {} of {total}", n + 1));
        content
            .begin_text()
            .set_font(REGULAR, 7.0)
            .next_line(WIDTH - MARGIN - 50.0, MARGIN / 2.0)
            .show(Str(&footer))
            .end_text();
        let mut page = pdf.page(*page_id);
        page.media_box(Rect::new(0.0, 0.0, WIDTH, HEIGHT))
            .parent(tree)
            .contents(*content_id);
        let mut resources = page.resources();
        let mut fonts = resources.fonts();
        fonts.pair(REGULAR, regular);
        fonts.pair(BOLD, bold);
        if let Some(w) = wide_ref {
            fonts.pair(WIDE, w);
        }
        drop(fonts);
        drop(resources);
        drop(page);
        pdf.stream(*content_id, &content.finish());
    }
    Ok(pdf.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_in_their_currencys_digits() {
        assert_eq!(money("1234567.5", "USD"), "1,234,567.50");
        assert_eq!(money("-0.6001", "USD"), "-0.6001");
        assert_eq!(money("970", "JPY"), "970");
        assert_eq!(money("100", "BHD"), "100.000");
        assert_eq!(money("0", "EUR"), "0.00");
        assert_eq!(latin1("Café 上海"), b"Caf\xe9 ??".to_vec());
    }
}
