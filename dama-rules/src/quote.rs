//! Quoting user input in messages: a short excerpt, with control characters escaped.
//!
//! Every error that quotes what it was given goes through [`quote`], so that a 30 MB line
//! or a binary file is never echoed whole, and never writes raw control bytes (terminal
//! escapes, carriage returns) to the user's terminal.

use std::fmt;

/// The most characters of the input a message quotes; longer input is cut and ends in `…`.
pub const EXCERPT_CHARS: usize = 60;

/// `text` as messages quote it: in double quotes, at most [`EXCERPT_CHARS`] characters of it
/// followed by `…` when it is longer, and control characters (and the invisible characters
/// that reorder or hide text) escaped as in Rust source (`\n`, `\u{1b}`). Other characters,
/// letters with accents included, are written as they are.
///
/// ```
/// use dama_rules::quote;
/// assert_eq!(quote("22-18").to_string(), "\"22-18\"");
/// assert_eq!(quote("Nicolò\u{1b}[2J").to_string(), "\"Nicolò\\u{1b}[2J\"");
/// let long = "7".repeat(1000);
/// assert_eq!(quote(&long).to_string(), format!("\"{}…\"", &long[..60]));
/// ```
pub fn quote(text: &str) -> Quoted<'_> {
    Quoted(text)
}

/// Display adaptor quoting a text as an excerpt; see [`quote`].
#[derive(Copy, Clone, Debug)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(EXCERPT_CHARS) {
            if is_hidden(c) {
                write!(f, "{}", c.escape_debug())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        if chars.next().is_some() {
            f.write_str("…")?;
        }
        f.write_str("\"")
    }
}

/// Whether `c` must not reach a terminal as it is: control characters (C0, DEL, C1) and the
/// format characters that hide text or change its direction.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole() {
        assert_eq!(quote("").to_string(), "\"\"");
        assert_eq!(
            quote(&"a".repeat(60)).to_string(),
            format!("\"{}\"", "a".repeat(60))
        );
    }

    #[test]
    fn long_text_is_cut_at_sixty_characters_not_bytes() {
        let text = "è".repeat(61);
        assert_eq!(quote(&text).to_string(), format!("\"{}…\"", "è".repeat(60)));
    }

    #[test]
    fn control_and_direction_characters_are_escaped() {
        assert_eq!(
            quote("a\tb\r\n\0\u{7f}\u{85}\u{202e}z").to_string(),
            "\"a\\tb\\r\\n\\0\\u{7f}\\u{85}\\u{202e}z\""
        );
    }

    #[test]
    fn quotes_and_backslashes_stay() {
        assert_eq!(quote("[Event \"x\\").to_string(), "\"[Event \"x\\\"");
    }

    #[test]
    fn a_huge_binary_line_gives_a_short_excerpt() {
        let bytes: Vec<u8> = (0..30_000_000u32).map(|i| (i % 256) as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        let shown = quote(&text).to_string();
        assert!(shown.len() < 400, "{} bytes", shown.len());
        assert!(!shown.chars().any(is_hidden), "{shown}");
    }
}
