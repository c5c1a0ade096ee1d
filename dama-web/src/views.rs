//! What the API answers: games, moves, reasons and rules as JSON views.

use dama_play::KingRefusal;
use dama_rules::notation::{self, fen};
use dama_rules::variant::Priority;
use dama_rules::{with_rules, Color, DrawReason, Game, Illegal, Move, Outcome};
use dama_rules::{Position, Rules, Square, Variant};
use serde::Serialize;

use super::names;
use super::store::{Entry, Finish, GameId, Kind, Seat};

/// The rules in force, as flags the page puts into words.
#[derive(Serialize)]
pub(super) struct RulesView {
    pub(super) kings_fly: bool,
    pub(super) men_capture_backwards: bool,
    pub(super) men_capture_kings: bool,
    pub(super) promotion_continues: bool,
    pub(super) promotion_at_end_only: bool,
    pub(super) priority: &'static str,
    pub(super) no_progress_moves: u32,
    pub(super) man_move_is_progress: bool,
    pub(super) repetition: bool,
    pub(super) kings_against_king: Option<u32>,
}

/// The rules of `variant` for the page.
pub(super) fn rules_view(variant: Variant) -> RulesView {
    fn of<R: Rules>() -> [bool; 5] {
        [
            R::KINGS_FLY,
            R::MEN_CAPTURE_BACKWARDS,
            R::MEN_CAPTURE_KINGS,
            R::PROMOTION_CONTINUES,
            R::PROMOTION_AT_END_ONLY,
        ]
    }
    let [fly, back, take_kings, continues, at_end] = with_rules!(variant, R => of::<R>());
    let draws = variant.draw_rules();
    RulesView {
        kings_fly: fly,
        men_capture_backwards: back,
        men_capture_kings: take_kings,
        promotion_continues: continues,
        promotion_at_end_only: at_end,
        priority: match variant.priority() {
            Priority::Italian => "italian",
            Priority::Spanish => "spanish",
            Priority::KingFirst => "king_first",
            Priority::MostPieces => "most_pieces",
            Priority::Free => "free",
        },
        no_progress_moves: draws.no_progress_plies / 2,
        man_move_is_progress: draws.man_move_is_progress,
        repetition: draws.repetition.is_some(),
        kings_against_king: draws.kings_against_king,
    }
}

/// A move: engine squares, the landing squares in order, and the text in the variant's
/// notation.
#[derive(Serialize)]
pub(super) struct MoveView {
    pub(super) from: u8,
    pub(super) to: u8,
    pub(super) captured: Vec<u8>,
    pub(super) path: Vec<u8>,
    pub(super) text: String,
    pub(super) hub: String,
}

/// The printed numbers of `squares`.
pub(super) fn numbers(squares: impl IntoIterator<Item = Square>) -> Vec<u8> {
    squares.into_iter().map(Square::number).collect()
}

/// The first landing path of `m` from `pos` (its end square for a quiet move).
pub(super) fn landing_path(variant: Variant, pos: &Position, m: Move) -> Vec<Square> {
    with_rules!(variant, R => pos.capture_paths::<R>(m))
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![m.to()])
}

/// `m` from `pos` as the page shows it, taking landing path `path`.
pub(super) fn move_view(variant: Variant, pos: &Position, m: Move, path: &[Square]) -> MoveView {
    MoveView {
        from: m.from().number(),
        to: m.to().number(),
        captured: numbers(m.captured().iter()),
        path: numbers(path.iter().copied()),
        text: move_text(variant, pos, m),
        hub: m.to_string(),
    }
}

/// `m` from `pos` in the variant's notation, as PDN writes it: a capture by its start and
/// end, with the landings only when another capture joins the same two squares.
pub(super) fn move_text(variant: Variant, pos: &Position, m: Move) -> String {
    let path = if m.is_capture() && notation::pdn_move_for(variant, pos, m).matches('x').count() > 1
    {
        landing_path(variant, pos, m)
    } else {
        Vec::new()
    };
    names::move_text(variant, m, &path)
}

#[derive(Serialize)]
pub(super) struct OutcomeView {
    pub(super) result: &'static str,
    pub(super) winner: Option<&'static str>,
    pub(super) reason: &'static str,
    pub(super) message: String,
}

/// How the game ended, from the player's side (`human`); between friends the winner is
/// named by colour.
pub(super) fn outcome_view(finish: Finish, human: Color, kind: Kind) -> OutcomeView {
    let outcome = match finish {
        Finish::Rules(o) => o,
        Finish::Resigned(c) => {
            return OutcomeView {
                result: finish.pdn(),
                winner: Some((!c).name()),
                reason: "resigned",
                message: finish.to_string(),
            }
        }
        Finish::Agreed => {
            return OutcomeView {
                result: finish.pdn(),
                winner: None,
                reason: "agreed",
                message: finish.to_string(),
            }
        }
    };
    let (winner, reason) = match outcome {
        Outcome::Win(c) if kind != Kind::Computer => (Some(c.name()), "no_moves"),
        Outcome::Win(c) if c == human => (Some("player"), "no_moves"),
        Outcome::Win(_) => (Some("computer"), "no_moves"),
        Outcome::Draw(DrawReason::NoProgress { .. }) => (None, "no_progress"),
        Outcome::Draw(DrawReason::Repetition) => (None, "repetition"),
        Outcome::Draw(DrawReason::KingsAgainstKing { .. }) => (None, "kings_against_king"),
    };
    OutcomeView {
        result: outcome.pdn(),
        winner,
        reason,
        message: outcome.to_string(),
    }
}

/// A game as the page sees it.
#[derive(Serialize)]
pub(super) struct GameView {
    pub(super) id: String,
    pub(super) variant: &'static str,
    pub(super) rules: RulesView,
    pub(super) names: Vec<String>,
    pub(super) mirrored: bool,
    pub(super) level: &'static str,
    pub(super) level_number: u32,
    pub(super) scored_level: &'static str,
    /// The 32 squares, engine square 1 first: `w` `b` men, `W` `B` kings, `e` empty.
    pub(super) board: String,
    /// Whose turn: `player` (the one asking may move), `computer`, `opponent` (the other
    /// seat of a friend game), `watching` (someone without a seat, who may only look), or
    /// `over`.
    pub(super) turn: &'static str,
    /// Who plays the other side: `computer`, `friend`, or `pass` (two people, one device).
    pub(super) opponent: &'static str,
    /// The seat of the one asking: `white`, `black`, `both` (pass and play), `owner` (the
    /// creator of a computer game), or none (a watcher).
    pub(super) seat: Option<&'static str>,
    /// The side to move: `white` or `black`.
    pub(super) to_move: &'static str,
    /// The number of moves played (the id of the last event pushed).
    pub(super) ply: usize,
    /// Each side's points (friend games).
    pub(super) scores: Option<Scores>,
    /// The page address that invites the friend (for White's seat).
    pub(super) invite_url: Option<String>,
    /// The page address for spectators.
    pub(super) watch_url: Option<String>,
    pub(super) player: &'static str,
    pub(super) thinking: bool,
    /// The player's pieces that have a move (when it is the player's turn).
    pub(super) movable: Vec<u8>,
    pub(super) moves: Vec<String>,
    pub(super) last_computer_move: Option<MoveView>,
    pub(super) outcome: Option<OutcomeView>,
    /// The side whose draw offer waits for an answer (friend games).
    pub(super) draw_offer: Option<&'static str>,
    /// Per seat of a friend game: someone has opened it, and follows the game now.
    pub(super) presence: Option<Presence>,
    pub(super) score: u32,
    pub(super) quiet_plies: u32,
    pub(super) fen: String,
    /// The position the game started from, and its moves in Hub text with the engine's
    /// numbers: what the browser's engine needs to search the computer's move with the
    /// game's history (repetitions, the 40-move count).
    pub(super) start_fen: String,
    pub(super) history: Vec<String>,
    /// The game started from a position set up in the editor: its result counts in no
    /// player's record.
    pub(super) from_setup: bool,
    /// The page address of this seat's place in the rematch, once asked for (a finished
    /// friend game; the watchers' address for a watcher).
    pub(super) rematch_url: Option<String>,
}

/// Per seat: whether someone has opened it, and whether it follows the game now.
#[derive(Serialize)]
pub(super) struct Presence {
    pub(super) white: SeatPresence,
    pub(super) black: SeatPresence,
}

/// One seat's presence.
#[derive(Serialize)]
pub(super) struct SeatPresence {
    pub(super) joined: bool,
    pub(super) connected: bool,
}

/// Each side's points.
#[derive(Serialize)]
pub(super) struct Scores {
    pub(super) white: u32,
    pub(super) black: u32,
}

/// Game `id` as the one holding `seat` sees it, with `last`, the computer's last move.
pub(super) fn game_view(
    id: GameId,
    entry: &Entry,
    last: Option<MoveView>,
    seat: Option<Seat>,
) -> GameView {
    let model = &entry.model;
    let game = model.game();
    let variant = game.variant();
    let pos = game.position();
    let board = Square::ALL
        .iter()
        .map(|&sq| pos.piece_at(sq).map_or('e', |p| p.hub_char()))
        .collect();
    let mover = pos.turn();
    let turn = if entry.finish().is_some() {
        "over"
    } else if entry.kind == Kind::Computer {
        if seat.is_none() {
            "watching"
        } else if model.human_to_move() {
            "player"
        } else {
            "computer"
        }
    } else {
        match seat {
            Some(s) if s.plays(mover) => "player",
            Some(_) => "opponent",
            None => "watching",
        }
    };
    let friendly = entry.kind != Kind::Computer;
    let (invite_url, watch_url) = match (&entry.secrets, seat) {
        (Some([_, black]), Some(Seat::White)) if entry.kind == Kind::Friend => {
            (Some(seat_url(id, Some(black))), Some(seat_url(id, None)))
        }
        (Some(_), Some(_)) if entry.kind != Kind::Computer => (None, Some(seat_url(id, None))),
        _ => (None, None),
    };
    let score = match seat {
        Some(Seat::Black) => model.score_of(Color::Black),
        _ => model.score(),
    };
    let movable = if turn == "player" {
        let mut from: Vec<u8> = game
            .legal_moves()
            .iter()
            .map(|m| m.from().number())
            .collect();
        from.sort_unstable();
        from.dedup();
        from
    } else {
        Vec::new()
    };
    GameView {
        id: id.to_string(),
        variant: variant.name(),
        rules: rules_view(variant),
        names: names::all(variant),
        mirrored: names::mirrored(variant),
        level: model.level().name(),
        level_number: model.level().number(),
        scored_level: model.scored_level().name(),
        board,
        turn,
        player: match seat {
            Some(Seat::Black) => "black",
            Some(Seat::Both) => mover.name(),
            _ => model.human().name(),
        },
        opponent: entry.kind.name(),
        seat: seat.map(Seat::name),
        to_move: mover.name(),
        ply: game.moves().len(),
        scores: friendly.then(|| Scores {
            white: model.score_of(Color::White),
            black: model.score_of(Color::Black),
        }),
        invite_url,
        watch_url,
        thinking: entry.thinking,
        movable,
        moves: move_texts(game),
        last_computer_move: last,
        outcome: entry
            .finish()
            .map(|o| outcome_view(o, model.human(), entry.kind)),
        draw_offer: entry.draw_offer.map(Color::name),
        presence: (entry.kind == Kind::Friend).then(|| Presence {
            white: SeatPresence {
                joined: entry.joined[0],
                connected: entry.connected[0] > 0,
            },
            black: SeatPresence {
                joined: entry.joined[1],
                connected: entry.connected[1] > 0,
            },
        }),
        score,
        quiet_plies: game.quiet_plies(),
        fen: fen::write(pos),
        start_fen: fen::write(game.start()),
        history: game.moves().iter().map(|m| m.to_string()).collect(),
        from_setup: entry.set_up(),
        rematch_url: entry.rematch.as_ref().and_then(|r| match seat {
            Some(Seat::White) => Some(seat_url(r.id, Some(&r.secrets[1]))),
            Some(Seat::Black) => Some(seat_url(r.id, Some(&r.secrets[0]))),
            None => Some(seat_url(r.id, None)),
            Some(Seat::Owner | Seat::Both) => None,
        }),
    }
}

/// The page address of game `id` for the seat with `secret` (none: to watch).
pub(super) fn seat_url(id: GameId, secret: Option<&str>) -> String {
    match secret {
        Some(s) => format!("/?game={id}&seat={s}"),
        None => format!("/?game={id}"),
    }
}

/// Every move of `game` in its variant's notation.
pub(super) fn move_texts(game: &Game) -> Vec<String> {
    let variant = game.variant();
    let mut pos = *game.start();
    let mut out = Vec::with_capacity(game.moves().len());
    for &m in game.moves() {
        out.push(move_text(variant, &pos, m));
        pos.play_unchecked(m);
    }
    out
}

/// The computer's last move as the page shows it (with its landing path).
pub(super) fn last_computer_view(entry: &Entry) -> Option<MoveView> {
    let m = entry.model.last_computer_move()?;
    let game = entry.model.game();
    let variant = game.variant();
    // Replay to the position before that move (it is the last or the one before).
    let moves = game.moves();
    let at = moves.iter().rposition(|&x| x == m)?;
    let mut pos = *game.start();
    for &x in &moves[..at] {
        pos.play_unchecked(x);
    }
    Some(move_view(variant, &pos, m, &landing_path(variant, &pos, m)))
}

/// Why a piece cannot move or a move is refused.
#[derive(Serialize, Debug, Clone)]
pub struct ReasonView {
    pub(super) code: &'static str,
    pub(super) message: String,
    /// Pieces to point at (those that must capture).
    pub(super) squares: Vec<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) better: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rule: Option<&'static str>,
}

/// The rules' reason `why` in `game`, with the squares to point at.
pub(super) fn reason_view(game: &Game, why: &Illegal) -> ReasonView {
    let variant = game.variant();
    let pos = game.position();
    let text = |m: Move| move_text(variant, pos, m);
    let legal_from = || {
        let mut v: Vec<u8> = game
            .legal_moves()
            .iter()
            .map(|m| m.from().number())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (code, squares, better, rule) = match why {
        Illegal::EmptySquare { .. } => ("empty_square", Vec::new(), None, None),
        Illegal::NotYourPiece { .. } => ("not_your_piece", Vec::new(), None, None),
        Illegal::MustCapture { capturers } => {
            ("must_capture", numbers(capturers.iter()), None, None)
        }
        Illegal::Blocked { .. } => ("blocked", Vec::new(), None, None),
        Illegal::LosesByPriority { rule, better } => (
            "loses_by_priority",
            legal_from(),
            Some(text(*better)),
            Some(*rule),
        ),
        Illegal::Outranked { rule, better, .. } => {
            ("outranked", legal_from(), Some(text(*better)), Some(*rule))
        }
        Illegal::Incomplete { complete } => ("incomplete", Vec::new(), Some(text(*complete)), None),
        Illegal::NoSuchMove { .. } => ("no_such_move", Vec::new(), None, None),
    };
    ReasonView {
        code,
        message: capitalised(&why.to_string()),
        squares,
        better,
        rule,
    }
}

/// The reason a man may not go to a square: it would capture a king (Italian), the king on
/// `refused.king` when the step passes one (in the variant's square names).
pub(super) fn king_reason(variant: Variant, refused: KingRefusal) -> ReasonView {
    let message = match refused.king {
        Some(k) => format!(
            "A man may not capture a king (the king on {})",
            names::square(variant, k)
        ),
        None => "A man may not capture a king".to_string(),
    };
    ReasonView {
        code: "man_takes_king",
        message,
        squares: refused.king.map(|k| vec![k.number()]).unwrap_or_default(),
        better: None,
        rule: None,
    }
}

/// `text` with a capital first letter.
pub(super) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
