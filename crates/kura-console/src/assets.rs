//! The console's stylesheet, script and Japanese font, compiled into the binary: the
//! console works offline and loads nothing from anywhere else. The font is the subset of
//! Noto Sans CJK JP (SIL OFL 1.1, `assets/kura-jp.LICENSE`) the console's Japanese text
//! needs (`scripts/console-font.sh`), so it reads on machines without a CJK font.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("assets/console.css");
const JS: &str = include_str!("assets/console.js");
const JP_FONT: &[u8] = include_bytes!("assets/kura-jp.woff2");
const JP_LICENSE: &str = include_str!("assets/kura-jp.LICENSE");

pub(crate) async fn serve(Path(name): Path<String>) -> Response {
    let (body, kind): (&'static [u8], _) = match name.as_str() {
        "console.css" => (CSS.as_bytes(), "text/css; charset=utf-8"),
        "console.js" => (JS.as_bytes(), "text/javascript; charset=utf-8"),
        "kura-jp.woff2" => (JP_FONT, "font/woff2"),
        "kura-jp.LICENSE" => (JP_LICENSE.as_bytes(), "text/plain; charset=utf-8"),
        _ => return (StatusCode::NOT_FOUND, "no such asset").into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    /// The characters the font holds, one line (written by scripts/console-font.sh).
    const JP_CHARS: &str = include_str!("assets/kura-jp.chars");

    /// Every Japanese character the advisor can show has a glyph in the shipped font; a
    /// new one needs `scripts/console-font.sh`.
    #[test]
    fn the_font_covers_the_guidelines_section_names() {
        let missing: String = kura_advisor::rules::RULES
            .iter()
            .flat_map(|rule| rule.section.chars())
            .filter(|c| *c as u32 >= 0x2E80 && !JP_CHARS.contains(*c))
            .collect();
        assert!(
            missing.is_empty(),
            "not in kura-jp.woff2: {missing} (run scripts/console-font.sh)"
        );
    }
}
