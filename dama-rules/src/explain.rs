//! Why a square cannot move or a candidate move is not legal, in words a player understands.

use std::fmt;

use crate::capture::{all_sequences, RankParts, Sequence};
use crate::variant::Priority;
use crate::{Bitboard, Color, Move, MoveList, Position, Rules, Square};

/// The reason a move is not legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// No piece stands on the start square.
    EmptySquare {
        /// The square.
        square: Square,
    },
    /// The piece on the start square belongs to the opponent.
    NotYourPiece {
        /// The square.
        square: Square,
        /// Whose piece it is.
        owner: Color,
    },
    /// A capture is compulsory and this is not one of the legal captures' pieces or a capture.
    MustCapture {
        /// The squares of the pieces that have a legal capture.
        capturers: Bitboard,
    },
    /// The piece has no legal move at all.
    Blocked {
        /// The square.
        square: Square,
    },
    /// The capture is a complete sequence but another one has priority.
    LosesByPriority {
        /// The rule that decides, in words (for Italian, with its tier number).
        rule: &'static str,
        /// A legal capture that beats it.
        better: Move,
    },
    /// The piece can capture, but every capture it has loses by priority to another piece's.
    Outranked {
        /// The piece's square.
        square: Square,
        /// Its best capture.
        capture: Move,
        /// The rule by which that capture loses, in words (for Italian, with its tier number).
        rule: &'static str,
        /// A legal capture that beats it.
        better: Move,
    },
    /// The capture stops half-way: the piece must go on capturing.
    Incomplete {
        /// A legal way to finish it.
        complete: Move,
    },
    /// The piece exists and can move, but not like that.
    NoSuchMove {
        /// The piece's square.
        square: Square,
        /// The piece's legal moves.
        moves: Vec<Move>,
    },
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(&|sq: Square| sq.to_string()))
    }
}

impl Illegal {
    /// The reason in words, each square named by `name` (the [`Display`](fmt::Display) form
    /// names them by the engine's numbers; a view of another variant's notation passes
    /// [`crate::notation::pdn::square_name`]). Moves are written in Hub notation with their
    /// squares so named.
    ///
    /// ```
    /// use dama_rules::{notation::fen, variant::English, Illegal};
    /// let pos = fen::parse("W:W18,21:B14")?;
    /// let why = pos.explain_square::<English>("21".parse()?).unwrap_err();
    /// let english = |sq| dama_rules::notation::pdn::square_name(dama_rules::Variant::English, sq);
    /// assert_eq!(why.describe(&english), "a capture is compulsory and only the piece on 19 can capture");
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    pub fn describe(&self, name: &dyn Fn(Square) -> String) -> String {
        let mv = |m: &Move| crate::notation::pdn::map_numbers(&m.to_string(), name);
        match self {
            Illegal::EmptySquare { square } => {
                format!("there is no piece on square {}", name(*square))
            }
            Illegal::NotYourPiece { square, owner } => format!(
                "the piece on {} is {owner}'s and it is {}'s move",
                name(*square),
                !*owner
            ),
            Illegal::MustCapture { capturers } => {
                let list: Vec<String> = capturers.iter().map(name).collect();
                match list.len() {
                    1 => format!(
                        "a capture is compulsory and only the piece on {} can capture",
                        list[0]
                    ),
                    _ => format!(
                        "a capture is compulsory and only the pieces on {} can capture",
                        list.join(", ")
                    ),
                }
            }
            Illegal::Blocked { square } => {
                format!("the piece on {} has no legal move", name(*square))
            }
            Illegal::LosesByPriority { rule, better } => {
                format!("this capture loses to {} by {rule}", mv(better))
            }
            Illegal::Outranked {
                square,
                capture,
                rule,
                better,
            } => format!(
                "the piece on {} can capture, but {} loses to {} by {rule}",
                name(*square),
                mv(capture),
                mv(better)
            ),
            Illegal::Incomplete { complete } => format!(
                "the capture is not complete: the piece must go on capturing, as in {}",
                mv(complete)
            ),
            Illegal::NoSuchMove { square, moves } => {
                let list: Vec<String> = moves.iter().map(mv).collect();
                format!(
                    "the piece on {} cannot move like that; its moves are {}",
                    name(*square),
                    list.join(" ")
                )
            }
        }
    }
}

/// The rule by which a sequence with parts `worse` loses to one with parts `better`.
fn deciding_rule(priority: Priority, worse: RankParts, better: RankParts) -> &'static str {
    match priority {
        Priority::Italian => {
            if worse.pieces != better.pieces {
                "tier 1: the capture of more pieces must be played"
            } else if worse.by_king != better.by_king {
                "tier 2: at equal count, a capture by a king beats a capture by a man"
            } else if worse.kings != better.kings {
                "tier 3: the capture of more kings must be played"
            } else {
                "tier 4: the capture that meets the kings earliest must be played"
            }
        }
        Priority::Spanish => {
            if worse.pieces != better.pieces {
                "the rule of quantity: the capture of more pieces must be played"
            } else {
                "the rule of quality: at equal count, the capture of more kings must be played"
            }
        }
        Priority::KingFirst => "the Czech rule: a king must capture when a king can",
        Priority::MostPieces => "the rule of quantity: the capture of most pieces must be played",
        Priority::Free => "no rule (captures are a free choice)",
    }
}

/// The squares of the pieces that have a legal move in `legal`.
fn capturers(legal: &MoveList) -> Bitboard {
    Bitboard::from_squares(legal.iter().map(|m| m.from()))
}

/// The sequence of the best legal capture (all legal captures share its rank).
fn best_legal<'a>(all: &'a [Sequence], legal: &MoveList) -> Option<&'a Sequence> {
    let first = legal.first()?;
    all.iter().filter(|s| s.mv == *first).max_by_key(|s| s.rank)
}

/// [`Illegal::Outranked`] for the piece on `sq` when it has complete capture sequences but
/// no legal move: its best sequence, and the legal capture that beats it.
fn outranked<R: Rules>(sq: Square, all: &[Sequence], legal: &MoveList) -> Option<Illegal> {
    if legal.iter().any(|m| m.from() == sq) {
        return None;
    }
    let own = all
        .iter()
        .filter(|s| s.mv.from() == sq)
        .max_by_key(|s| s.rank)?;
    let best = best_legal(all, legal)?;
    Some(Illegal::Outranked {
        square: sq,
        capture: own.mv,
        rule: deciding_rule(R::PRIORITY, own.parts, best.parts),
        better: best.mv,
    })
}

/// A candidate move to explain: start, end, and the captured squares when known.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Start square.
    pub from: Square,
    /// End square.
    pub to: Square,
    /// The captured squares, if the candidate names them (Hub notation).
    pub captured: Option<Bitboard>,
}

impl Candidate {
    fn matches(&self, m: Move) -> bool {
        m.from() == self.from
            && m.to() == self.to
            && self.captured.is_none_or(|c| c == m.captured())
    }
}

impl Position {
    fn owner_check(&self, sq: Square) -> Result<(), Illegal> {
        match self.piece_at(sq) {
            None => Err(Illegal::EmptySquare { square: sq }),
            Some(p) if p.color != self.turn => Err(Illegal::NotYourPiece {
                square: sq,
                owner: p.color,
            }),
            Some(_) => Ok(()),
        }
    }

    /// The legal moves of the piece on `sq` under rules `R`, or why it has none.
    ///
    /// When a capture is compulsory and this piece could capture, but only with captures that
    /// lose by priority, the reason names its best capture, the capture that beats it and the
    /// rule ([`Illegal::Outranked`]).
    ///
    /// ```
    /// use dama_rules::{notation::fen, variant::Italian, Illegal};
    /// // White must take 14 with the man on 18; the man on 21 may not move.
    /// let pos = fen::parse("W:W18,21:B14")?;
    /// let why = pos.explain_square::<Italian>("21".parse()?).unwrap_err();
    /// assert!(matches!(why, Illegal::MustCapture { .. }));
    /// assert_eq!(why.to_string(), "a capture is compulsory and only the piece on 18 can capture");
    /// // The man on 22 could take 18, but the king on 30 takes two pieces.
    /// let pos = fen::parse("W:W22,K30:B18,K26,17")?;
    /// let why = pos.explain_square::<Italian>("22".parse()?).unwrap_err();
    /// assert_eq!(
    ///     why.to_string(),
    ///     "the piece on 22 can capture, but 22x13x18 loses to 30x14x18x26 by tier 1: \
    ///      the capture of more pieces must be played"
    /// );
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    ///
    /// # Errors
    /// The [`Illegal`] reason when the square holds no piece of the side to move or the piece
    /// cannot move.
    pub fn explain_square<R: Rules>(&self, sq: Square) -> Result<MoveList, Illegal> {
        self.owner_check(sq)?;
        let legal = self.moves::<R>();
        let mut moves = legal.clone();
        moves.retain(|m| m.from() == sq);
        if !moves.is_empty() {
            Ok(moves)
        } else if self.must_capture::<R>() {
            let all = all_sequences::<R>(self);
            Err(
                outranked::<R>(sq, &all, &legal).unwrap_or(Illegal::MustCapture {
                    capturers: capturers(&legal),
                }),
            )
        } else {
            Err(Illegal::Blocked { square: sq })
        }
    }

    /// Why `candidate` is not a legal move under rules `R`; `Ok` with the move when it is
    /// (and is the only legal move it can mean).
    ///
    /// A capture is explained from every complete capture sequence of every piece, before
    /// the priority rules choose: a capture that exists but loses says which capture beats
    /// it and by which rule.
    ///
    /// ```
    /// use dama_rules::{explain::Candidate, notation::fen, variant::Italian, Illegal};
    /// // The example of tier 4 in the rules: only 30x5 (taking 26, 18, 10) is legal.
    /// let pos = fen::parse("W:WK30:B10,K12,K18,20,K26,K27")?;
    /// let sq = |n: u8| -> dama_rules::Square { n.try_into().unwrap() };
    /// // 30x7 takes 27, 20 and 12: as many pieces and kings, but its second king comes later.
    /// let cand = Candidate { from: sq(30), to: sq(7), captured: None };
    /// let why = pos.explain_move::<Italian>(cand).unwrap_err();
    /// assert!(why.to_string().starts_with("this capture loses to 30x5x10x18x26 by tier 4"), "{why}");
    /// // Stopping on 21 after the first jump is not a move.
    /// let half = Candidate { from: sq(30), to: sq(21), captured: None };
    /// assert!(matches!(pos.explain_move::<Italian>(half), Err(Illegal::Incomplete { .. })));
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    ///
    /// # Errors
    /// The [`Illegal`] reason.
    pub fn explain_move<R: Rules>(&self, candidate: Candidate) -> Result<Move, Illegal> {
        self.explain_readings::<R>(&[candidate])
    }

    /// [`Position::explain_move`] for a text that can be read several ways (Hub and PDN read
    /// the squares after the first two differently): the readings, at least one, share their
    /// start square, and the explanation uses whichever reading names a move or a capture
    /// sequence.
    pub(crate) fn explain_readings<R: Rules>(
        &self,
        readings: &[Candidate],
    ) -> Result<Move, Illegal> {
        let from = readings
            .first()
            .expect("a text has at least one reading")
            .from;
        self.owner_check(from)?;
        let legal = self.moves::<R>();
        let named = |m: Move| readings.iter().any(|c| c.matches(m));
        if let Some(&m) = legal.iter().find(|&&m| named(m)) {
            return Ok(m);
        }
        if self.must_capture::<R>() {
            if let Some(why) = self.capture_reason::<R>(readings, &legal) {
                return Err(why);
            }
        }
        let moves: Vec<Move> = legal.iter().copied().filter(|m| m.from() == from).collect();
        if moves.is_empty() {
            Err(Illegal::Blocked { square: from })
        } else {
            Err(Illegal::NoSuchMove {
                square: from,
                moves,
            })
        }
    }

    /// Why none of `readings` is legal when a capture is compulsory, judged from every
    /// complete capture sequence; `None` when the piece has legal captures and the text is
    /// just none of them.
    fn capture_reason<R: Rules>(
        &self,
        readings: &[Candidate],
        legal: &MoveList,
    ) -> Option<Illegal> {
        let from = readings.first()?.from;
        let all = all_sequences::<R>(self);
        let best = best_legal(&all, legal)?;
        let named = all
            .iter()
            .filter(|s| readings.iter().any(|c| c.matches(s.mv)))
            .max_by_key(|s| s.rank);
        if let Some(worse) = named {
            return Some(Illegal::LosesByPriority {
                rule: deciding_rule(R::PRIORITY, worse.parts, best.parts),
                better: best.mv,
            });
        }
        let passes = |c: &Candidate, s: &Sequence| {
            let to_bit = c.to.bit() as u8;
            s.mv.from() == from
                && s.path[..s.path.len() - 1].contains(&to_bit)
                && legal.contains(&s.mv)
        };
        let half_way = readings
            .iter()
            .find_map(|c| all.iter().find(|s| passes(c, s)));
        if let Some(s) = half_way {
            return Some(Illegal::Incomplete { complete: s.mv });
        }
        let capturers = capturers(legal);
        if !capturers.contains(from) {
            return Some(
                outranked::<R>(from, &all, legal).unwrap_or(Illegal::MustCapture { capturers }),
            );
        }
        let quiet = readings.iter().any(|c| c.captured == Some(Bitboard::EMPTY));
        quiet.then_some(Illegal::MustCapture { capturers })
    }

    /// Why the move `m` (from another position, or made up) is not legal here under rules `R`.
    pub fn why_illegal<R: Rules>(&self, m: Move) -> Illegal {
        let candidate = Candidate {
            from: m.from(),
            to: m.to(),
            captured: Some(m.captured()),
        };
        match self.explain_move::<R>(candidate) {
            Err(why) => why,
            // Same squares, another promotion flag: a move of a different position.
            Ok(_) => Illegal::NoSuchMove {
                square: m.from(),
                moves: self
                    .moves::<R>()
                    .iter()
                    .copied()
                    .filter(|l| l.from() == m.from())
                    .collect(),
            },
        }
    }

    /// [`Error::IllegalMove`](crate::Error::IllegalMove) for move `m`, with
    /// [`Position::why_illegal`] as the reason.
    pub(crate) fn illegal_move_error<R: Rules>(&self, m: Move) -> crate::Error {
        crate::Error::IllegalMove {
            text: m.to_string(),
            why: self.why_illegal::<R>(m),
        }
    }
}
