//! Text formats: FEN, the Hub position string, move text in Hub and PDN notation, and
//! pictures of a position ([`diagram`]: text and SVG).
//!
//! Move text: quiet `22-18`; Hub captures `from x to x captured...` (`27x20x23`: 27 to 20
//! taking 23, captured squares in any order on input, ascending on output); PDN captures
//! `from x to` (`27x20`), with the landing squares of the path (`13x22x31`) only when the short
//! form is ambiguous. Upper- or lower-case `x` is accepted. Errors keep apart text that is not
//! a move ([`Error::MalformedMove`]), a move that is not legal ([`Error::IllegalMove`]) and
//! text that fits several legal moves ([`Error::AmbiguousMove`]).

pub mod diagram;
pub mod fen;
pub mod hub;
pub mod pdn;

use arrayvec::ArrayVec;

use crate::capture::all_sequences;
use crate::explain::Candidate;
use crate::{Bitboard, Error, Move, Position, Rules, Square, Variant};

/// How to read the squares after the first two of a capture.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MoveFormat {
    /// Captured squares (engine protocol).
    Hub,
    /// Landing squares of the path (game files).
    Pdn,
    /// Either; a text that means different legal moves in the two readings is ambiguous.
    Any,
}

/// A move text split into squares.
#[derive(Clone, Debug)]
struct MoveText {
    squares: ArrayVec<Square, 24>,
    capture: bool,
}

fn split(text: &str) -> Result<MoveText, Error> {
    let malformed = || Error::MalformedMove {
        text: text.to_string(),
    };
    let body = text.trim().trim_end_matches(['!', '?', '*']);
    let capture = body.contains(['x', 'X']);
    if capture && body.contains('-') {
        return Err(malformed());
    }
    let mut squares = ArrayVec::new();
    for part in body.split(['x', 'X', '-']) {
        let part = part.trim();
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 2 {
            return Err(malformed());
        }
        let sq = part
            .parse::<u8>()
            .ok()
            .and_then(Square::new)
            .ok_or_else(malformed)?;
        squares.try_push(sq).map_err(|_| malformed())?;
    }
    if squares.len() < 2 || (!capture && squares.len() != 2) {
        return Err(malformed());
    }
    Ok(MoveText { squares, capture })
}

/// Whether `wanted` appears in order within `path`.
fn is_subsequence(wanted: &[Square], path: &[Square]) -> bool {
    let mut it = path.iter();
    wanted.iter().all(|w| it.any(|p| p == w))
}

/// The moves a text can name, as candidates to explain: one per notation that reads it
/// differently (Hub: the third square on are captured squares; PDN: landing squares).
fn readings(mt: &MoveText, format: MoveFormat) -> ArrayVec<Candidate, 2> {
    let from = mt.squares[0];
    let last = *mt.squares.last().expect("split gives at least two squares");
    let mut out = ArrayVec::new();
    if !mt.capture {
        out.push(Candidate {
            from,
            to: last,
            captured: Some(Bitboard::EMPTY),
        });
        return out;
    }
    if mt.squares.len() == 2 {
        out.push(Candidate {
            from,
            to: last,
            captured: None,
        });
        return out;
    }
    if format != MoveFormat::Pdn {
        out.push(Candidate {
            from,
            to: mt.squares[1],
            captured: Some(Bitboard::from_squares(mt.squares[2..].iter().copied())),
        });
    }
    if format != MoveFormat::Hub {
        out.push(Candidate {
            from,
            to: last,
            captured: None,
        });
    }
    out
}

/// Reads a move in `format` under rules `R` and finds the legal move it names.
///
/// ```
/// use dama_rules::{notation::{self, fen, MoveFormat}, variant::Italian};
/// let pos = fen::parse("W:W27:B23,24")?;
/// // Hub: 27 to 20 taking 23. PDN says the same as 27x20.
/// let hub = notation::parse_move::<Italian>(&pos, "27x20x23", MoveFormat::Hub)?;
/// let pdn = notation::parse_move::<Italian>(&pos, "27x20", MoveFormat::Pdn)?;
/// assert_eq!(hub, pdn);
/// assert!(notation::parse_move::<Italian>(&pos, "27-20", MoveFormat::Hub).is_err());
/// # Ok::<_, dama_rules::Error>(())
/// ```
///
/// # Errors
/// [`Error::MalformedMove`], [`Error::IllegalMove`] (with the rules' explanation) or
/// [`Error::AmbiguousMove`] (listing the candidates).
pub fn parse_move<R: Rules>(pos: &Position, text: &str, format: MoveFormat) -> Result<Move, Error> {
    let mt = split(text)?;
    let from = mt.squares[0];
    let to = *mt.squares.last().expect("split gives at least two squares");
    let legal = pos.moves::<R>();
    let hub_to = mt.squares[1];
    let hub_captured = Bitboard::from_squares(mt.squares[2..].iter().copied());
    let mut matches: ArrayVec<Move, 64> = ArrayVec::new();
    for &m in &legal {
        let ok = if !mt.capture {
            !m.is_capture() && m.from() == from && m.to() == to
        } else if !m.is_capture() || m.from() != from {
            false
        } else if mt.squares.len() == 2 {
            m.to() == to
        } else {
            let hub = m.to() == hub_to && m.captured() == hub_captured;
            let pdn = || {
                m.to() == to
                    && pos
                        .capture_paths::<R>(m)
                        .iter()
                        .any(|p| is_subsequence(&mt.squares[1..], p))
            };
            match format {
                MoveFormat::Hub => hub,
                MoveFormat::Pdn => pdn(),
                MoveFormat::Any => hub || pdn(),
            }
        };
        if ok && !matches.contains(&m) {
            let _ = matches.try_push(m);
        }
    }
    if matches.len() > 1 && mt.capture && format != MoveFormat::Hub {
        // A text that is one move's whole landing path names that move, even when it is also
        // a shorter form of others: `31x9` is the whole path of a single jump from 31 to 9.
        let landings = &mt.squares[1..];
        let exact: ArrayVec<Move, 64> = matches
            .iter()
            .copied()
            .filter(|&m| pos.capture_paths::<R>(m).iter().any(|p| p == landings))
            .collect();
        if exact.len() == 1 {
            return Ok(exact[0]);
        }
    }
    match matches.len() {
        1 => Ok(matches[0]),
        0 => {
            let why = match pos.explain_readings::<R>(&readings(&mt, format)) {
                Err(why) => why,
                Ok(m) => crate::Illegal::NoSuchMove {
                    square: from,
                    moves: legal
                        .iter()
                        .copied()
                        .filter(|l| l.from() == m.from())
                        .collect(),
                },
            };
            Err(Error::IllegalMove {
                text: text.trim().to_string(),
                why,
            })
        }
        n => Err(Error::AmbiguousMove {
            text: text.trim().to_string(),
            count: n,
            candidates: matches
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        }),
    }
}

/// Reads a move in either notation under the rules of `variant`.
///
/// # Errors
/// As [`parse_move`].
pub fn parse_move_for(variant: Variant, pos: &Position, text: &str) -> Result<Move, Error> {
    crate::with_rules!(variant, R => parse_move::<R>(pos, text, MoveFormat::Any))
}

/// The PDN text of legal move `m` under the rules of `variant`; see [`pdn_move`], and
/// [`Game::pdn_move`](crate::Game::pdn_move), which also checks that `m` is legal.
///
/// ```
/// use dama_rules::{notation, Position, Variant};
/// let pos = Position::start();
/// let m = pos.legal_moves()[0];
/// assert_eq!(notation::pdn_move_for(Variant::Italian, &pos, m), m.to_string());
/// ```
pub fn pdn_move_for(variant: Variant, pos: &Position, m: Move) -> String {
    crate::with_rules!(variant, R => pdn_move::<R>(pos, m))
}

/// The PDN text of legal move `m` under rules `R` in `pos`, the position before the move:
/// `22-18`, `27x20`, or the full landing path `13x22x31` when the short form would be
/// ambiguous. The move is not checked; [`Game::pdn_move`](crate::Game::pdn_move) needs
/// neither the position nor the rules type, and checks it.
///
/// ```
/// use dama_rules::{notation::{self, fen}, variant::Italian};
/// let pos = fen::parse("W:W27:B23,24")?;
/// let m = pos.legal_moves()[0];
/// assert_eq!(notation::pdn_move::<Italian>(&pos, m), "27x20");
/// # Ok::<_, dama_rules::Error>(())
/// ```
pub fn pdn_move<R: Rules>(pos: &Position, m: Move) -> String {
    if !m.is_capture() {
        return format!("{}-{}", m.from(), m.to());
    }
    let ambiguous = pos
        .moves::<R>()
        .iter()
        .any(|&o| o != m && o.from() == m.from() && o.to() == m.to());
    if !ambiguous {
        return format!("{}x{}", m.from(), m.to());
    }
    let paths = pos.capture_paths::<R>(m);
    let path = paths.first().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = m.from().to_string();
    for sq in path {
        out.push('x');
        out.push_str(&sq.to_string());
    }
    out
}

impl Position {
    /// The landing squares of each best-ranked capture sequence that plays `m` under rules
    /// `R` (the last square of each path is `m.to()`); empty for a quiet or illegal move.
    pub fn capture_paths<R: Rules>(&self, m: Move) -> Vec<Vec<Square>> {
        if !m.is_capture() {
            return Vec::new();
        }
        let all = all_sequences::<R>(self);
        let best = all.iter().map(|s| s.rank).max().unwrap_or(0);
        let mut paths: Vec<Vec<Square>> = all
            .into_iter()
            .filter(|s| s.mv == m && s.rank == best)
            .map(|s| s.path.iter().map(|&b| Square::from_bit(b.into())).collect())
            .collect();
        paths.dedup();
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Italian;

    fn pos(f: &str) -> Position {
        fen::parse(f).unwrap()
    }

    #[test]
    fn malformed_illegal_and_ambiguous_are_told_apart() {
        let p = pos("W:WK1:B6,7,14,15");
        assert_eq!(p.legal_moves().len(), 1, "king on 1 only steps to 5");
        for bad in [
            "", "22", "22-", "x18", "22-18-14", "0-5", "33x1", "22x18-14", "a-b",
        ] {
            assert!(
                matches!(
                    parse_move::<Italian>(&p, bad, MoveFormat::Any),
                    Err(Error::MalformedMove { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_move::<Italian>(&p, "1-6", MoveFormat::Any),
            Err(Error::IllegalMove { .. })
        ));
        assert!(parse_move::<Italian>(&p, "1-5", MoveFormat::Any).is_ok());
    }

    #[test]
    fn short_form_ambiguity_needs_the_path() {
        // White king on 22 can reach 13? Build a position where two captures share from and to.
        // King 23 takes 18 and 10 via 14 to 5? Use a loop: king on 26 with black on 22, 23, 14, 15.
        let p = pos("W:WK26:B22,23,14,15");
        let list = p.legal_moves();
        let same_ends: Vec<&Move> = list.iter().filter(|m| m.to().number() == 26).collect();
        if same_ends.len() > 1 {
            let err = parse_move::<Italian>(&p, "26x26", MoveFormat::Pdn).unwrap_err();
            assert!(matches!(err, Error::AmbiguousMove { .. }), "{err}");
        }
        for &m in &list {
            let text = pdn_move::<Italian>(&p, m);
            assert_eq!(
                parse_move::<Italian>(&p, &text, MoveFormat::Pdn).unwrap(),
                m,
                "{text}"
            );
            let hub = m.to_string();
            assert_eq!(
                parse_move::<Italian>(&p, &hub, MoveFormat::Hub).unwrap(),
                m,
                "{hub}"
            );
        }
    }
}
