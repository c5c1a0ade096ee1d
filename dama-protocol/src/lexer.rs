//! Splits a Hub line into its command word and `name=value` tokens.
//!
//! A line is a command word followed by tokens separated by spaces or tabs. A token is a bare
//! word (`think`, `infinite`, `start`) or `name=value`; a value holding spaces or `=` is written
//! in double quotes (`moves="22-18 11-15"`). There is no escape inside quotes.

use crate::error::{excerpt, Error};

/// One token after the command word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The name (or the bare word).
    pub name: String,
    /// The value after `=`, quotes removed; `None` for a bare word.
    pub value: Option<String>,
}

/// A line split into tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The command word.
    pub command: String,
    /// The tokens after it, in order.
    pub tokens: Vec<Token>,
}

impl Line {
    /// The value of the first token called `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.tokens
            .iter()
            .find(|t| t.name == name && t.value.is_some())
            .and_then(|t| t.value.as_deref())
    }

    /// Whether the bare word `name` is present.
    pub fn has_word(&self, name: &str) -> bool {
        self.tokens
            .iter()
            .any(|t| t.name == name && t.value.is_none())
    }

    /// The bare words, in order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.tokens
            .iter()
            .filter(|t| t.value.is_none())
            .map(|t| t.name.as_str())
    }
}

/// Splits `text` into a [`Line`]; `None` for a blank line.
///
/// ```
/// use dama_protocol::lexer::lex;
/// let line = lex(r#"pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves="22-18 11-15""#)?.unwrap();
/// assert_eq!(line.command, "pos");
/// assert_eq!(line.value("moves"), Some("22-18 11-15"));
/// # Ok::<_, dama_protocol::Error>(())
/// ```
///
/// # Errors
/// [`Error::MalformedLine`] for an unterminated quote or a token starting with `=`.
pub fn lex(text: &str) -> Result<Option<Line>, Error> {
    let malformed = |why: &str| Error::MalformedLine {
        line: excerpt(text),
        why: why.to_string(),
    };
    let mut rest = text.trim_start_matches(is_blank);
    if rest.is_empty() {
        return Ok(None);
    }
    let end = rest.find(is_blank).unwrap_or(rest.len());
    let command = rest[..end].to_string();
    rest = rest[end..].trim_start_matches(is_blank);
    let mut tokens = Vec::new();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| is_blank(c) || c == '=')
            .unwrap_or(rest.len());
        if name_end == 0 {
            return Err(malformed("a token starts with '=': expected name=value"));
        }
        let name = rest[..name_end].to_string();
        rest = &rest[name_end..];
        let value = if let Some(after) = rest.strip_prefix('=') {
            if let Some(quoted) = after.strip_prefix('"') {
                let close = quoted
                    .find('"')
                    .ok_or_else(|| malformed("a quoted value has no closing '\"'"))?;
                rest = &quoted[close + 1..];
                Some(quoted[..close].to_string())
            } else {
                let end = after.find(is_blank).unwrap_or(after.len());
                rest = &after[end..];
                Some(after[..end].to_string())
            }
        } else {
            None
        };
        tokens.push(Token { name, value });
        rest = rest.trim_start_matches(is_blank);
    }
    Ok(Some(Line { command, tokens }))
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

/// Writes `value` so that [`lex`] reads it back as one value: bare when it has no blank, `=`
/// or `"`, else in double quotes. Inner `"` become `'` and control characters spaces, since
/// the protocol has no escapes.
pub fn quote(value: &str) -> String {
    let clean: String = value
        .chars()
        .map(|c| match c {
            '"' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    if clean.is_empty() || clean.contains([' ', '=']) {
        format!("\"{clean}\"")
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(String, Option<String>)> {
        lex(text)
            .unwrap()
            .unwrap()
            .tokens
            .into_iter()
            .map(|t| (t.name, t.value))
            .collect()
    }

    #[test]
    fn blank_lines_are_nothing() {
        assert_eq!(lex("").unwrap(), None);
        assert_eq!(lex(" \t\r").unwrap(), None);
    }

    #[test]
    fn words_values_and_quotes() {
        let t = tokens("go think");
        assert_eq!(t, [("think".into(), None)]);
        let t = tokens("set-param  name=hash\tvalue=64 ");
        assert_eq!(t[0], ("name".into(), Some("hash".into())));
        assert_eq!(t[1], ("value".into(), Some("64".into())));
        let t = tokens(r#"param name=variant values="italian spanish" type=enum"#);
        assert_eq!(t[1], ("values".into(), Some("italian spanish".into())));
        assert_eq!(t[2], ("type".into(), Some("enum".into())));
        let t = tokens("x a= b");
        assert_eq!(t[0], ("a".into(), Some(String::new())));
        assert_eq!(t[1], ("b".into(), None));
    }

    #[test]
    fn unterminated_quote_and_bare_equals_are_malformed() {
        for bad in [r#"pos moves="22-18"#, "level =5", "x a=1 =2"] {
            assert!(
                matches!(lex(bad), Err(Error::MalformedLine { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn quote_round_trips_through_lex() {
        for v in ["22-18", "22-18 11-15", "", "a=b", r#"say "hi""#] {
            let line = format!("x v={}", quote(v));
            let read = lex(&line).unwrap().unwrap();
            assert_eq!(read.value("v").unwrap(), v.replace('"', "'"));
        }
    }
}
