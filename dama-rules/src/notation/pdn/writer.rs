//! The canonical PDN writer.

use super::{file_fen, file_start, first_colour, to_file_text, Comment, PdnGame};
use crate::notation::pdn_move;
use crate::{Error, Rules};

/// Lines of movetext are broken before they pass this many characters.
const WIDTH: usize = 79;

/// The first tags, in this order (the seven-tag roster of PGN; `Result` is written from
/// [`PdnGame::result`]).
const ROSTER: [&str; 6] = ["Event", "Site", "Date", "Round", "White", "Black"];

/// Writes `game` as canonical PDN, ending with a newline.
///
/// Tags first: those of the roster `Event`, `Site`, `Date`, `Round`, `White`, `Black` that
/// the game has, then `Result`, `GameType` in its long form, `FEN` when the start is not the
/// standard one, then the other tags in their order. Then a blank line and the movetext: move
/// numbers (`1.`, and `1...` for a move of the second side that opens the game or follows a
/// comment), moves in the short PDN form with the landing path only where the short form is
/// ambiguous, in the variant's own notation (English numbering, algebraic squares for
/// Russian, Brazilian and Czech),
/// comments in braces, lines broken before 80 columns, and the result.
///
/// What PDN cannot hold is adjusted: a `}` inside a comment is written as `)`, a line break
/// in a tag value as a space, and comments placed after the last move are written there.
/// A comment word that starts with `[` or `%` is never put at the start of a line, where it
/// could read as a tag or an escape line, even if the line grows past 80 columns.
///
/// ```
/// use dama_rules::notation::pdn::{self, PdnGame};
/// use dama_rules::{Game, Variant};
///
/// let mut game = Game::new();
/// for text in ["22-19", "10-14", "19x10"] {
///     game.play_text(text)?;
/// }
/// let mut pdn_game = PdnGame::new(Variant::Italian, *game.start());
/// pdn_game.moves = game.moves().to_vec();
/// pdn_game.tags.push(("White".into(), "Rossi".into()));
/// assert_eq!(
///     pdn::write(&pdn_game)?,
///     "[White \"Rossi\"]\n[Result \"*\"]\n[GameType \"22,W,8,8,N2,1\"]\n\n\
///      1. 22-19 10-14 2. 19x10 *\n"
/// );
/// # Ok::<_, dama_rules::Error>(())
/// ```
///
/// # Errors
/// [`Error::IllegalMove`] (with the reason) when a move of `game` is not legal in turn.
pub fn write(game: &PdnGame) -> Result<String, Error> {
    let mut out = String::with_capacity(256 + game.moves.len() * 8);
    write_tags(game, &mut out);
    out.push('\n');
    let words = crate::with_rules!(game.variant, R => movetext::<R>(game))?;
    let mut line = 0usize;
    for word in &words {
        let len = word.chars().count();
        let may_break = !word.starts_with(['[', '%']);
        if line > 0 && line + 1 + len > WIDTH && may_break {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out.push('\n');
    Ok(out)
}

fn write_tags(game: &PdnGame, out: &mut String) {
    let mut tag = |name: &str, value: &str| {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        for c in value.chars() {
            if matches!(c, '"' | '\\') {
                out.push('\\');
            }
            // A tag is one line.
            out.push(if c == '\n' || c == '\r' { ' ' } else { c });
        }
        out.push_str("\"]\n");
    };
    for name in ROSTER {
        for (n, v) in game.tags.iter().filter(|(n, _)| n == name) {
            tag(n, v);
        }
    }
    tag("Result", game.result.as_str());
    tag("GameType", game.variant.game_type_long());
    if game.start != file_start(game.variant) {
        tag("FEN", &file_fen(game.variant, &game.start));
    }
    for (n, v) in game
        .tags
        .iter()
        .filter(|(n, _)| !ROSTER.contains(&n.as_str()))
    {
        tag(n, v);
    }
}

/// The words of the movetext, each a unit that is never broken across lines.
fn movetext<R: Rules>(game: &PdnGame) -> Result<Vec<String>, Error> {
    let mut words = Vec::with_capacity(game.moves.len() + 2);
    let mut comments = game.comments.iter().peekable();
    let mut pos = game.start;
    let mut number = 1usize;
    let mut after_comment = true;
    for (ply, &m) in game.moves.iter().enumerate() {
        while let Some(c) = comments.next_if(|c| c.ply <= ply) {
            comment_words(c, &mut words);
            after_comment = true;
        }
        if !pos.moves::<R>().contains(&m) {
            return Err(pos.illegal_move_error::<R>(m));
        }
        let text = to_file_text(game.variant, &pdn_move::<R>(&pos, m));
        let opens_number = pos.turn() == first_colour(game.variant);
        words.push(if opens_number {
            format!("{number}. {text}")
        } else if after_comment {
            format!("{number}... {text}")
        } else {
            text
        });
        if !opens_number {
            number += 1;
        }
        after_comment = false;
        pos.play_unchecked(m);
    }
    for c in comments {
        comment_words(c, &mut words);
    }
    words.push(game.result.as_str().to_string());
    Ok(words)
}

/// A comment as words: `{first`, ..., `last}`; braces inside become parentheses.
fn comment_words(comment: &Comment, words: &mut Vec<String>) {
    let text = comment.text.replace('}', ")");
    let mut parts: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    match parts.as_mut_slice() {
        [] => words.push("{}".into()),
        [only] => words.push(format!("{{{only}}}")),
        [first, .., last] => {
            first.insert(0, '{');
            last.push('}');
            words.extend(parts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::pdn::{read_str, GameResult};
    use crate::{Position, Variant};

    fn game(moves: &str) -> PdnGame {
        let mut g = PdnGame::new(Variant::Italian, Position::start());
        let mut pos = g.start;
        for text in moves.split_whitespace() {
            let m = crate::notation::parse_move_for(Variant::Italian, &pos, text).unwrap();
            pos.play_unchecked(m);
            g.moves.push(m);
        }
        g
    }

    #[test]
    fn roster_first_then_result_game_type_fen_and_the_rest() {
        let mut g = PdnGame::new(Variant::Spanish, "B:W21:B1".parse().unwrap());
        g.tags = vec![
            ("Annotator".into(), "x".into()),
            ("Black".into(), "b".into()),
            ("Event".into(), "e \"q\" \\".into()),
        ];
        g.result = GameResult::Draw;
        assert_eq!(
            write(&g).unwrap(),
            "[Event \"e \\\"q\\\" \\\\\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n\
             [GameType \"24,W,8,8,N1,1\"]\n[FEN \"B:W21:B1\"]\n[Annotator \"x\"]\n\n1/2-1/2\n"
        );
    }

    #[test]
    fn black_moves_after_comments_get_their_number() {
        let mut g = game("22-19 10-14 19x10 5x14");
        g.comments = vec![
            Comment {
                ply: 0,
                text: "start".into(),
            },
            Comment {
                ply: 1,
                text: "a } brace".into(),
            },
        ];
        let text = write(&g).unwrap();
        assert!(
            text.ends_with("\n{start} 1. 22-19 {a ) brace} 1... 10-14 2. 19x10 5x14 *\n"),
            "{text}"
        );
    }

    #[test]
    fn long_movetext_is_wrapped_and_reads_back() {
        let mut g = game("22-19 10-14 19x10 5x14 23-19 14x23 27x20");
        g.comments.push(Comment {
            ply: 3,
            text: "word ".repeat(40).trim().to_string(),
        });
        let text = write(&g).unwrap();
        assert!(text.lines().all(|l| l.chars().count() <= WIDTH), "{text}");
        let back = read_str(&text, Variant::Czech).remove(0).unwrap();
        assert_eq!(back, g);
    }

    #[test]
    fn an_illegal_move_is_refused() {
        let mut g = game("22-18");
        g.moves.push(g.moves[0]);
        assert!(matches!(write(&g), Err(Error::IllegalMove { .. })));
    }
}
