//! The PDN tokenizer: turns the lines of a file into tags, comments, move words and results,
//! skipping what a reader of the main line does not need (move numbers, `$n`, variations,
//! `%` escape lines, glyphs written apart from their move).
//!
//! It works one line at a time and never looks back, so reading is linear in the file size.

use std::io::BufRead;

use super::GameResult;

/// What the tokenizer found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// `[Name "value"]`.
    Tag { name: String, value: String },
    /// The text of `{...}` or of a `;` rest-of-line comment, whitespace collapsed.
    Comment(String),
    /// A word of movetext that should be a move, with the move number removed.
    Move(String),
    /// A game terminator.
    Result(GameResult),
    /// Something skipped that a reader of the main line does not keep.
    Dropped(Dropped),
    /// Text that breaks the format: what was found, and what was expected.
    Bad { found: String, expected: String },
    /// The input could not be read.
    Io(String),
}

/// What the tokenizer skips but reports, so that a converter can say what it left out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Dropped {
    /// A variation `( ... )`, nested ones included.
    Variation,
    /// A numeric annotation `$n`.
    Nag,
    /// A move mark written apart from its move (`!?`).
    Mark,
}

/// A token and the line and column (in characters) it starts at, both from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    pub line: usize,
    pub column: usize,
}

/// Characters that end a word of movetext.
const DELIMITERS: &[u8] = b"{}()[];$";

pub(super) struct Lexer<R> {
    input: R,
    raw: Vec<u8>,
    line: String,
    pos: usize,
    line_no: usize,
    eof: bool,
}

impl<R: BufRead> Lexer<R> {
    pub fn new(input: R) -> Lexer<R> {
        Lexer {
            input,
            raw: Vec::new(),
            line: String::new(),
            pos: 0,
            line_no: 0,
            eof: false,
        }
    }

    /// Loads the next line; `Ok(false)` at the end of the input.
    ///
    /// Lines are UTF-8; a line that is not is read as Latin-1, the other encoding of old
    /// Italian archives, so that names with accents survive.
    fn next_line(&mut self) -> Result<bool, String> {
        if self.eof {
            return Ok(false);
        }
        self.raw.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.raw)
            .map_err(|e| e.to_string())?;
        self.line.clear();
        self.pos = 0;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.line_no += 1;
        while matches!(self.raw.last(), Some(b'\n' | b'\r')) {
            self.raw.pop();
        }
        match std::str::from_utf8(&self.raw) {
            Ok(text) => self.line.push_str(text),
            Err(_) => self.line.extend(self.raw.iter().map(|&b| char::from(b))),
        }
        if self.line_no == 1 {
            if let Some(rest) = self.line.strip_prefix('\u{feff}') {
                self.line = rest.to_string();
            }
        }
        Ok(true)
    }

    /// The column of the next character of the current line, in characters from 1.
    fn column(&self) -> usize {
        self.line
            .get(..self.pos)
            .map_or(1, |s| s.chars().count() + 1)
    }

    fn rest(&self) -> &str {
        &self.line[self.pos..]
    }

    fn peek(&self) -> Option<u8> {
        self.line.as_bytes().get(self.pos).copied()
    }

    /// The next token, or `None` at the end of the input.
    pub fn next_token(&mut self) -> Option<Token> {
        loop {
            let Some(c) = self.peek() else {
                match self.next_line() {
                    Ok(true) => {
                        if self.line.starts_with('%') {
                            self.pos = self.line.len();
                        }
                        continue;
                    }
                    Ok(false) => return None,
                    Err(e) => {
                        self.eof = true;
                        return token(Tok::Io(e), self.line_no + 1, 1);
                    }
                }
            };
            let (line, column) = (self.line_no, self.column());
            match c {
                b'{' => {
                    self.pos += 1;
                    return token(self.comment(), line, column);
                }
                b'(' => {
                    self.pos += 1;
                    match self.variation() {
                        None => return token(Tok::Dropped(Dropped::Variation), line, column),
                        Some(bad) => return token(bad, line, column),
                    }
                }
                b'}' | b')' | b']' => {
                    self.pos += 1;
                    let (close, open) = match c {
                        b'}' => ("}", "a comment opened with \"{\""),
                        b')' => (")", "a variation opened with \"(\""),
                        _ => ("]", "a tag opened with \"[\""),
                    };
                    let bad = Tok::Bad {
                        found: format!("\"{close}\" closes nothing"),
                        expected: format!("it only after {open}"),
                    };
                    return token(bad, line, column);
                }
                b'[' => return token(self.tag(), line, column),
                b';' => {
                    let text = collapse(&self.rest()[1..]);
                    self.pos = self.line.len();
                    return token(Tok::Comment(text), line, column);
                }
                b'$' => {
                    self.pos += 1;
                    while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                        self.pos += 1;
                    }
                    return token(Tok::Dropped(Dropped::Nag), line, column);
                }
                c if c.is_ascii_whitespace() => self.pos += 1,
                _ if self.rest().starts_with(char::is_whitespace) => {
                    self.pos += self.rest().chars().next().map_or(1, char::len_utf8);
                }
                _ => {
                    if let Some(tok) = self.word() {
                        return token(tok, line, column);
                    }
                }
            }
        }
    }

    /// Whether the current line (just loaded) opens a tag: `[Name "`.
    fn at_tag_line(&self) -> bool {
        is_tag_line(&self.line)
    }

    /// Reads a comment after its `{`; a new line that opens a tag ends an unclosed comment.
    fn comment(&mut self) -> Tok {
        let start = self.line_no;
        let mut text = String::new();
        loop {
            if let Some(end) = self.rest().find('}') {
                text.push_str(&self.rest()[..end]);
                self.pos += end + 1;
                return Tok::Comment(collapse(&text));
            }
            text.push_str(self.rest());
            text.push(' ');
            match self.next_line() {
                Ok(true) if self.at_tag_line() => return unclosed("comment", "}", start, self),
                Ok(true) => {}
                Ok(false) => return unclosed("comment", "}", start, self),
                Err(e) => {
                    self.eof = true;
                    return Tok::Io(e);
                }
            }
        }
    }

    /// Skips a variation after its `(`, nested variations and comments included. `None` when
    /// it closes properly.
    fn variation(&mut self) -> Option<Tok> {
        let start = self.line_no;
        let mut depth = 1usize;
        loop {
            let Some(c) = self.peek() else {
                match self.next_line() {
                    Ok(true) if self.at_tag_line() => {
                        return Some(unclosed("variation", ")", start, self))
                    }
                    Ok(true) => {
                        if self.line.starts_with('%') {
                            self.pos = self.line.len();
                        }
                        continue;
                    }
                    Ok(false) => return Some(unclosed("variation", ")", start, self)),
                    Err(e) => {
                        self.eof = true;
                        return Some(Tok::Io(e));
                    }
                }
            };
            self.pos += 1;
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return None;
                    }
                }
                b'{' => match self.comment() {
                    Tok::Comment(_) => {}
                    other => return Some(other),
                },
                b';' => self.pos = self.line.len(),
                _ => {}
            }
        }
    }

    /// Reads `[Name "value"]` (an unquoted value up to `]` is accepted too).
    fn tag(&mut self) -> Tok {
        let rest = self.rest();
        match parse_tag(rest) {
            Some((name, value, used)) => {
                self.pos += used;
                Tok::Tag { name, value }
            }
            None => {
                let found = format!("tag {}", crate::quote(rest.trim_end()));
                self.pos = self.line.len();
                Tok::Bad {
                    found,
                    expected: "[Name \"value\"] on one line".into(),
                }
            }
        }
    }

    /// Reads a word of movetext; `None` for words that carry nothing for the main line.
    fn word(&mut self) -> Option<Tok> {
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| c.is_whitespace() || (c.is_ascii() && DELIMITERS.contains(&(c as u8))))
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..len];
        let tok = classify(word);
        self.pos += len;
        tok
    }
}

fn token(tok: Tok, line: usize, column: usize) -> Option<Token> {
    Some(Token { tok, line, column })
}

/// The error for a comment or variation still open at a tag line or the end of the file.
fn unclosed<R>(what: &str, close: &str, start: usize, lexer: &Lexer<R>) -> Tok {
    let before = if lexer.eof {
        "the end of the file".to_string()
    } else {
        format!("the tag on line {}", lexer.line_no)
    };
    Tok::Bad {
        found: format!("the {what} opened on line {start} is not closed"),
        expected: format!("\"{close}\" before {before}"),
    }
}

/// Whether `line` opens a tag: `[`, a name, spaces, `"`.
pub(super) fn is_tag_line(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('[') else {
        return false;
    };
    let name_len = rest
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .unwrap_or(rest.len());
    let after = &rest[name_len..];
    name_len > 0 && after.trim_start().starts_with('"') && after.starts_with([' ', '\t'])
}

/// Parses a tag at the start of `text`: name, value, bytes used.
fn parse_tag(text: &str) -> Option<(String, String, usize)> {
    let body = text.strip_prefix('[')?;
    let trimmed = body.trim_start();
    let name_len = trimmed
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))?;
    if name_len == 0 {
        return None;
    }
    let name = trimmed[..name_len].to_string();
    let after_name = trimmed[name_len..].trim_start();
    let (value, after_value) = if let Some(quoted) = after_name.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => value.push(chars.next()?.1),
                (_, c) => value.push(c),
            }
        };
        (value, &quoted[end + 1..])
    } else {
        let end = after_name.find(']')?;
        (after_name[..end].trim().to_string(), &after_name[end..])
    };
    // A tag is one line: a carriage return inside the value (the line ends at `\n`) is a
    // line break that the writer writes as a space, so it reads as one here too, and a game
    // reads back the same from the text written of it.
    let value = if value.contains('\r') {
        value.replace('\r', " ")
    } else {
        value
    };
    let tail = after_value.trim_start().strip_prefix(']')?;
    Some((name, value, text.len() - tail.len()))
}

/// What a word of movetext is.
fn classify(word: &str) -> Option<Tok> {
    if let Some(result) = GameResult::from_terminator(word) {
        return Some(Tok::Result(result));
    }
    // A move number, `12.` or `12...`, possibly glued to the move.
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    let body = if word[digits..].starts_with('.') {
        word[digits..].trim_start_matches('.')
    } else {
        word
    };
    // Glyphs written apart from their move (`!?`), and dots (`1. ... 11-15`).
    if body.bytes().all(|b| matches!(b, b'!' | b'?' | b'.')) {
        return body
            .bytes()
            .any(|b| b != b'.')
            .then_some(Tok::Dropped(Dropped::Mark));
    }
    Some(Tok::Move(body.to_string()))
}

/// `text` with runs of whitespace turned into one space, trimmed.
pub(super) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        let mut lexer = Lexer::new(text.as_bytes());
        std::iter::from_fn(|| lexer.next_token().map(|t| t.tok)).collect()
    }

    fn mv(s: &str) -> Tok {
        Tok::Move(s.into())
    }

    #[test]
    fn move_numbers_are_dropped_and_forced_star_stays_on_the_move() {
        assert_eq!(
            toks("1.22-18 11-15 2. 18x11 ... 3...8x15 22x13* *"),
            [
                mv("22-18"),
                mv("11-15"),
                mv("18x11"),
                mv("8x15"),
                mv("22x13*"),
                Tok::Result(GameResult::Unknown)
            ]
        );
    }

    #[test]
    fn variations_nags_and_escapes_are_skipped() {
        let text =
            "% escape line (\n1. 22-18 $1 (1. 21-17 {a ) in a comment} (1. 23-19)) 11-15!? ! \n";
        assert_eq!(
            toks(text),
            [
                mv("22-18"),
                Tok::Dropped(Dropped::Nag),
                Tok::Dropped(Dropped::Variation),
                mv("11-15!?"),
                Tok::Dropped(Dropped::Mark)
            ]
        );
    }

    #[test]
    fn comments_span_lines_and_are_collapsed() {
        assert_eq!(
            toks("22-18 {a\n   long   comment}; rest of line\n0-1"),
            [
                mv("22-18"),
                Tok::Comment("a long comment".into()),
                Tok::Comment("rest of line".into()),
                Tok::Result(GameResult::BlackWins)
            ]
        );
    }

    #[test]
    fn tags_read_escapes_and_unquoted_values() {
        assert_eq!(
            toks(r#"[White "Rossi \"il Bello\""][GameType 22]"#),
            [
                Tok::Tag {
                    name: "White".into(),
                    value: "Rossi \"il Bello\"".into()
                },
                Tok::Tag {
                    name: "GameType".into(),
                    value: "22".into()
                }
            ]
        );
    }

    #[test]
    fn a_carriage_return_inside_a_tag_value_reads_as_a_space() {
        // Found by the pdn fuzz target: the writer writes it as a space, so a game with the
        // raw `\r` did not read back the same from its own text.
        let tag = |value: &str| Tok::Tag {
            name: "Event".into(),
            value: value.into(),
        };
        assert_eq!(toks("[Event \"a\rb\"]"), [tag("a b")]);
        assert_eq!(toks("[Event a\rb]"), [tag("a b")]);
        let text = "[Event \"c\rapture\"]\n1. 22-18 *\n";
        let game = crate::notation::pdn::read_str(text, crate::Variant::Italian)
            .remove(0)
            .unwrap();
        let written = crate::notation::pdn::write(&game).unwrap();
        let again = crate::notation::pdn::read_str(&written, crate::Variant::Italian)
            .remove(0)
            .unwrap();
        assert_eq!(again, game);
    }

    #[test]
    fn unclosed_comment_stops_at_the_next_tag_line() {
        let t = toks("1. 22-18 {never closed\n11-15\n[Event \"next\"]");
        assert!(matches!(&t[1], Tok::Bad { found, .. } if found.contains("line 1")));
        assert!(matches!(&t[2], Tok::Tag { .. }));
    }

    #[test]
    fn stray_closers_and_bad_tags_are_reported() {
        for text in ["}", ")", "]", "[Event", "[\"x\"]", "[Event \"open"] {
            assert!(matches!(toks(text)[0], Tok::Bad { .. }), "{text}");
        }
    }

    #[test]
    fn unicode_spaces_separate_words() {
        assert_eq!(toks("22-18\u{a0}11-15"), [mv("22-18"), mv("11-15")]);
    }

    #[test]
    fn latin1_lines_are_decoded() {
        let mut bytes = b"[White \"Nicol".to_vec();
        bytes.push(0xF2);
        bytes.extend_from_slice(b"\"]");
        let mut lexer = Lexer::new(&bytes[..]);
        let tok = lexer.next_token().map(|t| t.tok);
        assert_eq!(
            tok,
            Some(Tok::Tag {
                name: "White".into(),
                value: "Nicolò".into()
            })
        );
    }
}
