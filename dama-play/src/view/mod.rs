//! A game of dama as a web page sees it: games, moves, targets, reasons and rules as
//! serializable views, and the player's move read from a path of squares or a text.
//!
//! `dama serve` (dama-web) answers its JSON API with these views; the page's own engine
//! (dama-wasm) answers with the very same ones for a game kept in the browser, so that the
//! page cannot tell the two apart.
//!
//! ```
//! use dama_play::view::{piece_view, GameView};
//! use dama_play::Model;
//! use dama_rules::{Position, Square, Variant};
//! use dama_search::Level;
//!
//! let model = Model::new(Variant::Italian, Position::start(), Level::Easy);
//! let game = GameView::of(String::from("g1"), &model);
//! assert_eq!((game.turn, game.level, game.movable.len()), ("player", "easy", 4));
//! let targets = piece_view(model.game(), Square::new(22).unwrap());
//! assert_eq!(targets.targets, [18, 19]);
//! ```

pub mod names;

use dama_egtb::Value as TableValue;
use dama_rules::explain::Candidate;
use dama_rules::notation::{self, fen};
use dama_rules::variant::Priority;
use dama_rules::{with_rules, Color, DrawReason, Error, Game, Illegal, Move, Outcome};
use dama_rules::{Position, Rules, Square, Variant};
use dama_search::{Level, Score};
use serde::Serialize;

use crate::{king_capture_refused, piece_moves, KingRefusal, Model};

/// The rules in force, as flags the page puts into words.
#[derive(Serialize)]
pub struct RulesView {
    /// Kings move and capture along a whole diagonal.
    pub kings_fly: bool,
    /// Men capture backwards too.
    pub men_capture_backwards: bool,
    /// Men may capture kings.
    pub men_capture_kings: bool,
    /// A man crowned during a capture goes on capturing as a king.
    pub promotion_continues: bool,
    /// A man crowns only when its capture ends on the last row.
    pub promotion_at_end_only: bool,
    /// Which capture must be chosen: `italian`, `spanish`, `king_first`, `most_pieces` or
    /// `free`.
    pub priority: &'static str,
    /// Moves without progress that draw.
    pub no_progress_moves: u32,
    /// A man's move counts as progress (not only a capture).
    pub man_move_is_progress: bool,
    /// A position repeated three times draws.
    pub repetition: bool,
    /// Moves within which kings must win against a lone king, where the variant says so.
    pub kings_against_king: Option<u32>,
}

/// The rules of `variant` for the page.
pub fn rules_view(variant: Variant) -> RulesView {
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
pub struct MoveView {
    /// The start square.
    pub from: u8,
    /// The end square.
    pub to: u8,
    /// The squares of the pieces it captures.
    pub captured: Vec<u8>,
    /// The landing squares in order (the end square for a quiet move).
    pub path: Vec<u8>,
    /// The move in the variant's notation.
    pub text: String,
    /// The move in Hub text with the engine's numbers.
    pub hub: String,
}

/// The printed numbers of `squares`.
pub fn numbers(squares: impl IntoIterator<Item = Square>) -> Vec<u8> {
    squares.into_iter().map(Square::number).collect()
}

/// The first landing path of `m` from `pos` (its end square for a quiet move).
pub fn landing_path(variant: Variant, pos: &Position, m: Move) -> Vec<Square> {
    with_rules!(variant, R => pos.capture_paths::<R>(m))
        .into_iter()
        .next()
        .unwrap_or_else(|| vec![m.to()])
}

/// `m` from `pos` as the page shows it, taking landing path `path`.
pub fn move_view(variant: Variant, pos: &Position, m: Move, path: &[Square]) -> MoveView {
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
pub fn move_text(variant: Variant, pos: &Position, m: Move) -> String {
    let path = if m.is_capture() && notation::pdn_move_for(variant, pos, m).matches('x').count() > 1
    {
        landing_path(variant, pos, m)
    } else {
        Vec::new()
    };
    names::move_text(variant, m, &path)
}

/// How a game ended.
#[derive(Serialize, Debug, Clone)]
pub struct OutcomeView {
    /// The result as PDN writes it: `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// `player` or `computer` in a game against the computer, `white` or `black` between
    /// people; none for a draw.
    pub winner: Option<&'static str>,
    /// `no_moves`, `no_progress`, `repetition`, `kings_against_king`, `resigned` or `agreed`.
    pub reason: &'static str,
    /// The ending in English words.
    pub message: String,
}

/// How the rules ended a game (`outcome`), from the side of the player on `human` in a game
/// against the computer; between people (`between_people`) the winner is named by colour.
pub fn outcome_view(outcome: Outcome, human: Color, between_people: bool) -> OutcomeView {
    let (winner, reason) = match outcome {
        Outcome::Win(c) if between_people => (Some(c.name()), "no_moves"),
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
pub struct GameView {
    /// The game's id (empty for a game not yet created).
    pub id: String,
    /// The variant's name.
    pub variant: &'static str,
    /// The variant's rules.
    pub rules: RulesView,
    /// The variant's names of the squares, engine square 1 first.
    pub names: Vec<String>,
    /// Whether the board is drawn mirrored (dark corner at the player's left).
    pub mirrored: bool,
    /// The computer's level.
    pub level: &'static str,
    /// The level's number, 1 (Novice) to 5 (Hard).
    pub level_number: u32,
    /// The lowest level the computer played at in this game: a win counts at it.
    pub scored_level: &'static str,
    /// The 32 squares, engine square 1 first: `w` `b` men, `W` `B` kings, `e` empty.
    pub board: String,
    /// Whose turn: `player` (the one asking may move), `computer`, `opponent` (the other
    /// seat of a friend game), `watching` (someone without a seat, who may only look), or
    /// `over`.
    pub turn: &'static str,
    /// Who plays the other side: `computer`, `friend`, or `pass` (two people, one device).
    pub opponent: &'static str,
    /// The seat of the one asking: `white`, `black`, `both` (pass and play), `owner` (the
    /// creator of a computer game), or none (a watcher).
    pub seat: Option<&'static str>,
    /// The side to move: `white` or `black`.
    pub to_move: &'static str,
    /// The number of moves played (the id of the last event pushed).
    pub ply: usize,
    /// Each side's points (friend games).
    pub scores: Option<Scores>,
    /// The page address that invites the friend (for White's seat).
    pub invite_url: Option<String>,
    /// The page address for spectators.
    pub watch_url: Option<String>,
    /// The colour the one asking plays (`white` or `black`).
    pub player: &'static str,
    /// The server is searching the computer's move.
    pub thinking: bool,
    /// The player's pieces that have a move (when it is the player's turn).
    pub movable: Vec<u8>,
    /// Every move so far in the variant's notation.
    pub moves: Vec<String>,
    /// The computer's last move.
    pub last_computer_move: Option<MoveView>,
    /// How the game ended, once over.
    pub outcome: Option<OutcomeView>,
    /// The side whose draw offer waits for an answer (friend games).
    pub draw_offer: Option<&'static str>,
    /// Per seat of a friend game: someone has opened it, and follows the game now.
    pub presence: Option<Presence>,
    /// The points of the one asking.
    pub score: u32,
    /// Plies since the last capture or man move (the no-progress count).
    pub quiet_plies: u32,
    /// The position now, as FEN.
    pub fen: String,
    /// The position the game started from, and its moves in Hub text with the engine's
    /// numbers: what the browser's engine needs to search the computer's move with the
    /// game's history (repetitions, the 40-move count).
    pub start_fen: String,
    /// The moves played from `start_fen`, in Hub text with the engine's numbers.
    pub history: Vec<String>,
    /// The game started from a position set up in the editor: its result counts in no
    /// player's record.
    pub from_setup: bool,
    /// The page address of this seat's place in the rematch, once asked for (a finished
    /// friend game; the watchers' address for a watcher).
    pub rematch_url: Option<String>,
}

/// Per seat: whether someone has opened it, and whether it follows the game now.
#[derive(Serialize)]
pub struct Presence {
    /// White's seat.
    pub white: SeatPresence,
    /// Black's seat.
    pub black: SeatPresence,
}

/// One seat's presence.
#[derive(Serialize)]
pub struct SeatPresence {
    /// Someone has opened the seat.
    pub joined: bool,
    /// Someone follows the game from the seat now.
    pub connected: bool,
}

/// Each side's points.
#[derive(Serialize)]
pub struct Scores {
    /// White's points.
    pub white: u32,
    /// Black's points.
    pub black: u32,
}

impl GameView {
    /// Game `id` against the computer, `model`, as its owner sees it (the seat `owner`).
    /// `dama serve` changes what differs for its other seats and for games between people.
    pub fn of(id: String, model: &Model) -> GameView {
        let game = model.game();
        let variant = game.variant();
        let pos = game.position();
        let board = Square::ALL
            .iter()
            .map(|&sq| pos.piece_at(sq).map_or('e', |p| p.hub_char()))
            .collect();
        let outcome = model.outcome();
        let turn = if outcome.is_some() {
            "over"
        } else if model.human_to_move() {
            "player"
        } else {
            "computer"
        };
        GameView {
            id,
            variant: variant.name(),
            rules: rules_view(variant),
            names: names::all(variant),
            mirrored: names::mirrored(variant),
            level: model.level().name(),
            level_number: model.level().number(),
            scored_level: model.scored_level().name(),
            board,
            turn,
            player: model.human().name(),
            opponent: "computer",
            seat: Some("owner"),
            to_move: pos.turn().name(),
            ply: game.moves().len(),
            scores: None,
            invite_url: None,
            watch_url: None,
            thinking: false,
            movable: if turn == "player" {
                movable(game)
            } else {
                Vec::new()
            },
            moves: move_texts(game),
            last_computer_move: last_computer_view(model),
            outcome: outcome.map(|o| outcome_view(o, model.human(), false)),
            draw_offer: None,
            presence: None,
            score: model.score(),
            quiet_plies: game.quiet_plies(),
            fen: fen::write(pos),
            start_fen: fen::write(game.start()),
            history: game.moves().iter().map(|m| m.to_string()).collect(),
            from_setup: *game.start() != Position::start(),
            rematch_url: None,
        }
    }
}

/// The squares of the pieces of the side to move in `game` that have a move, in order.
pub fn movable(game: &Game) -> Vec<u8> {
    let mut from: Vec<u8> = game
        .legal_moves()
        .iter()
        .map(|m| m.from().number())
        .collect();
    from.sort_unstable();
    from.dedup();
    from
}

/// Every move of `game` in its variant's notation.
pub fn move_texts(game: &Game) -> Vec<String> {
    let variant = game.variant();
    let mut pos = *game.start();
    let mut out = Vec::with_capacity(game.moves().len());
    for &m in game.moves() {
        out.push(move_text(variant, &pos, m));
        pos.play_unchecked(m);
    }
    out
}

/// The computer's last move in `model` as the page shows it (with its landing path).
pub fn last_computer_view(model: &Model) -> Option<MoveView> {
    let m = model.last_computer_move()?;
    let game = model.game();
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
    /// What the rules say, for programs: `must_capture`, `outranked`, `man_takes_king`...
    pub code: &'static str,
    /// What the rules say, in English words.
    pub message: String,
    /// Pieces to point at (those that must capture).
    pub squares: Vec<u8>,
    /// The move the rules ask for instead, in the variant's notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub better: Option<String>,
    /// The priority rule that decides, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
}

/// The rules' reason `why` in `game`, with the squares to point at.
pub fn reason_view(game: &Game, why: &Illegal) -> ReasonView {
    let variant = game.variant();
    let pos = game.position();
    let text = |m: Move| move_text(variant, pos, m);
    let legal_from = || movable(game);
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
pub fn king_reason(variant: Variant, refused: KingRefusal) -> ReasonView {
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
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The tables' verdict for the page: `win`, `draw` or `loss` for the side to move, and the
/// plies to the next conversion (a capture or a man move).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TableView {
    /// `win`, `draw` or `loss` for the side to move.
    pub result: &'static str,
    /// Plies to the next conversion (none for a draw).
    pub plies: Option<u32>,
}

/// The view of a table value.
pub fn table_view(v: TableValue) -> TableView {
    match v {
        TableValue::Win(d) => TableView {
            result: "win",
            plies: Some(d),
        },
        TableValue::Loss(d) => TableView {
            result: "loss",
            plies: Some(d),
        },
        TableValue::Draw => TableView {
            result: "draw",
            plies: None,
        },
    }
}

/// A line of moves: Hub texts and the variant's texts, played from `pos`.
pub fn line_texts(variant: Variant, pos: &Position, line: &[Move]) -> (Vec<String>, Vec<String>) {
    let mut p = *pos;
    let mut hub = Vec::with_capacity(line.len());
    let mut text = Vec::with_capacity(line.len());
    for &m in line {
        if !p.legal_moves_for(variant).contains(&m) {
            break;
        }
        hub.push(m.to_string());
        text.push(move_text(variant, &p, m));
        p.play_unchecked(m);
    }
    (hub, text)
}

/// A score as the API gives it: hundredths of a man for the side to move (wins and losses
/// `±(30000 − plies)`), and as text (`+0.35`, `win in 7`).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct ScoreView {
    /// Hundredths of a man for the side to move (wins and losses `±(30000 − plies)`).
    pub score: i32,
    /// The score as text.
    pub score_text: String,
}

/// The view of `s`.
pub fn score_view(s: Score) -> ScoreView {
    ScoreView {
        score: s.0,
        score_text: s.to_string(),
    }
}

/// One line of an analysis: its move, score and moves.
#[derive(Serialize, Debug, Clone)]
pub struct LineView {
    /// The first move (Hub text).
    #[serde(rename = "move")]
    pub mv: String,
    /// The first move in the variant's notation.
    pub text: String,
    /// Its start and end squares (engine numbers), for an arrow.
    pub arrow: [u8; 2],
    /// Its start and landing squares in order (an arrow that follows a multi-jump).
    pub path: Vec<u8>,
    /// Its score.
    #[serde(flatten)]
    pub score: ScoreView,
    /// The line in Hub texts.
    pub pv: Vec<String>,
    /// The line in the variant's texts.
    pub pv_text: Vec<String>,
}

/// The view of a line from `pos` (`None` for an empty line).
pub fn line_view(variant: Variant, pos: &Position, score: Score, pv: &[Move]) -> Option<LineView> {
    let &first = pv.first()?;
    let (hub, text) = line_texts(variant, pos, pv);
    Some(LineView {
        mv: hub.first()?.clone(),
        text: text.first()?.clone(),
        arrow: [first.from().number(), first.to().number()],
        path: std::iter::once(first.from())
            .chain(landing_path(variant, pos, first))
            .map(|s| s.number())
            .collect(),
        score: score_view(score),
        pv: hub,
        pv_text: text,
    })
}

/// One move of a piece, as `GET .../targets` lists it.
#[derive(Serialize)]
pub struct PieceMove {
    /// The move (with its first landing path).
    #[serde(flatten)]
    pub mv: MoveView,
    /// Every landing path the move may take (usually one).
    pub paths: Vec<Vec<u8>>,
}

/// A piece's moves, or why it has none (`GET .../targets`).
#[derive(Serialize)]
pub struct TargetsView {
    /// The piece's square.
    pub square: u8,
    /// Its moves.
    pub moves: Vec<PieceMove>,
    /// The squares the piece may land on first.
    pub targets: Vec<u8>,
    /// The squares a man may not go to because it would capture a king there (Italian),
    /// each with the king jumped over when the step passes one.
    pub kings_refused: Vec<KingRefused>,
    /// Why the piece has no move.
    pub reason: Option<ReasonView>,
}

/// A square a man may not go to because it would capture a king there.
#[derive(Serialize)]
pub struct KingRefused {
    /// The square.
    pub to: u8,
    /// The king the step passes, if it passes one.
    pub king: Option<u8>,
}

/// The empty squares the man on `from` may not go to because it would capture a king there.
fn kings_refused(game: &Game, from: Square) -> Vec<KingRefused> {
    let pos = game.position();
    Square::ALL
        .into_iter()
        .filter(|&to| pos.piece_at(to).is_none())
        .filter_map(|to| {
            king_capture_refused(game.variant(), pos, from, to).map(|r| KingRefused {
                to: to.number(),
                king: r.king.map(Square::number),
            })
        })
        .collect()
}

/// The moves of the piece on `sq` in `g` with their landing paths, or the reason it has none.
pub fn piece_view(g: &Game, sq: Square) -> TargetsView {
    let variant = g.variant();
    match piece_moves(variant, g.position(), sq) {
        Ok(list) => {
            let mut targets: Vec<u8> = list
                .iter()
                .flat_map(|(_, paths)| paths.iter().filter_map(|p| p.first()))
                .map(|s| s.number())
                .collect();
            targets.sort_unstable();
            targets.dedup();
            let moves = list
                .into_iter()
                .map(|(m, paths)| PieceMove {
                    mv: move_view(
                        variant,
                        g.position(),
                        m,
                        paths.first().map_or(&[], Vec::as_slice),
                    ),
                    paths: paths.into_iter().map(numbers).collect(),
                })
                .collect();
            TargetsView {
                square: sq.number(),
                moves,
                targets,
                kings_refused: kings_refused(g, sq),
                reason: None,
            }
        }
        Err(why) => TargetsView {
            square: sq.number(),
            moves: Vec::new(),
            targets: Vec::new(),
            kings_refused: kings_refused(g, sq),
            reason: Some(reason_view(g, &why)),
        },
    }
}

/// A move refused: the HTTP status and error code the API answers with, a message, and the
/// rules' reason when the rules refused it.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// 400 for a malformed move, 422 for one the rules refuse or that names several moves.
    pub status: u16,
    /// `bad_path`, `malformed_move`, `illegal_move` or `ambiguous_move`.
    pub code: &'static str,
    /// What was wrong, in English words.
    pub message: String,
    /// The rules' reason (an illegal move).
    pub reason: Option<Box<ReasonView>>,
}

impl Refusal {
    /// 400: a malformed request, `code` and `message` saying what was wrong.
    pub fn bad(code: &'static str, message: String) -> Refusal {
        Refusal {
            status: 400,
            code,
            message,
            reason: None,
        }
    }

    fn illegal(reason: ReasonView) -> Refusal {
        Refusal {
            status: 422,
            code: "illegal_move",
            message: reason.message.clone(),
            reason: Some(Box::new(reason)),
        }
    }

    fn ambiguous(message: String) -> Refusal {
        Refusal {
            status: 422,
            code: "ambiguous_move",
            message,
            reason: None,
        }
    }
}

/// The legal move the player's `path` (start, then landing squares) names in `game`.
///
/// # Errors
/// An empty path or one without a landing (400), a move the rules refuse, with their reason,
/// or a path that names several captures (422).
pub fn move_of_path(game: &Game, path: &[Square]) -> Result<Move, Refusal> {
    let (&from, landings) = path.split_first().ok_or_else(|| {
        Refusal::bad(
            "bad_path",
            "the path is empty: expected the start square and at least one landing square"
                .to_string(),
        )
    })?;
    let &last = landings.last().ok_or_else(|| {
        Refusal::bad(
            "bad_path",
            format!("the path has only the start square {from}: add where the piece goes"),
        )
    })?;
    let variant = game.variant();
    let pos = game.position();
    let first = landings.first().copied().unwrap_or(last);
    let king_refused =
        || king_capture_refused(variant, pos, from, first).map(|r| king_reason(variant, r));
    let list = piece_moves(variant, pos, from).map_err(|why| {
        Refusal::illegal(king_refused().unwrap_or_else(|| reason_view(game, &why)))
    })?;
    let exact: Vec<Move> = list
        .iter()
        .filter(|(_, paths)| paths.iter().any(|p| p == landings))
        .map(|(m, _)| *m)
        .collect();
    // A start and an end alone name a capture when only one capture goes there.
    let short: Vec<Move> = if landings.len() == 1 {
        list.iter()
            .filter(|(m, _)| m.to() == last)
            .map(|(m, _)| *m)
            .collect()
    } else {
        Vec::new()
    };
    let found = if exact.is_empty() { short } else { exact };
    match found.as_slice() {
        [m] => Ok(*m),
        [] => {
            if let Some(reason) = king_refused() {
                return Err(Refusal::illegal(reason));
            }
            let candidate = Candidate {
                from,
                to: last,
                captured: None,
            };
            let why = with_rules!(variant, R => pos.explain_move::<R>(candidate)).err();
            let why = why.unwrap_or_else(|| Illegal::NoSuchMove {
                square: from,
                moves: list.iter().map(|(m, _)| *m).collect(),
            });
            Err(Refusal::illegal(reason_view(game, &why)))
        }
        several => {
            let texts: Vec<String> = several
                .iter()
                .map(|&m| names::move_text(variant, m, &landing_path(variant, pos, m)))
                .collect();
            Err(Refusal::ambiguous(format!(
                "{} captures go from {from} to {last}: give the landing squares ({})",
                several.len(),
                texts.join(", ")
            )))
        }
    }
}

/// The legal move written `text` (Hub or PDN, the engine's numbers) in `game`.
///
/// # Errors
/// Text that is not a move (400), a move the rules refuse, with their reason, or one that
/// names several moves (422).
pub fn move_of_text(game: &Game, text: &str) -> Result<Move, Refusal> {
    notation::parse_move_for(game.variant(), game.position(), text).map_err(|err| match err {
        Error::IllegalMove { why, .. } => Refusal::illegal(reason_view(game, &why)),
        Error::AmbiguousMove { .. } => Refusal::ambiguous(err.to_string()),
        other => Refusal::bad("malformed_move", other.to_string()),
    })
}

/// `v` quoted for an error message (a string as written, anything else as JSON).
pub fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => dama_rules::quote(s).to_string(),
        other => dama_rules::quote(&other.to_string()).to_string(),
    }
}

/// The variant `v` names (absent or null: Italian).
///
/// # Errors
/// Not a variant's name (400 `bad_variant`).
pub fn variant_of(v: Option<&serde_json::Value>) -> Result<Variant, Refusal> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(Variant::Italian),
        Some(serde_json::Value::String(s)) => s
            .parse()
            .map_err(|e: Error| Refusal::bad("bad_variant", e.to_string())),
        Some(v) => Err(Refusal::bad(
            "bad_variant",
            format!("variant {}: expected a name such as \"italian\"", shown(v)),
        )),
    }
}

/// The level `v` names: its name or its number 1..5.
///
/// # Errors
/// Neither (400 `bad_level`).
pub fn level_of(v: &serde_json::Value) -> Result<Level, Refusal> {
    let level = match v {
        serde_json::Value::String(s) => s.parse().ok(),
        serde_json::Value::Number(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .and_then(Level::from_number),
        _ => None,
    };
    level.ok_or_else(|| {
        Refusal::bad(
            "bad_level",
            format!(
                "level {}: expected novice, easy, normal, strong, hard or 1..5",
                shown(v)
            ),
        )
    })
}

/// The square `v` names: a number 1..32 (or its text).
///
/// # Errors
/// Anything else (400 `bad_square`).
pub fn square_of(v: &serde_json::Value) -> Result<Square, Refusal> {
    let n = match v {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.and_then(|n| u8::try_from(n).ok())
        .and_then(Square::new)
        .ok_or_else(|| Refusal::bad("bad_square", format!("square {}: expected 1..32", shown(v))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;

    #[test]
    fn a_path_names_a_multi_jump_or_its_end_alone() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W30:B26,18").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let full = move_of_path(&game, &[sq(30), sq(21), sq(14)]).unwrap();
        assert_eq!(full.to_string(), "30x14x18x26");
        assert_eq!(move_of_path(&game, &[sq(30), sq(14)]).unwrap(), full);
        let half = move_of_path(&game, &[sq(30), sq(21)]).unwrap_err();
        assert_eq!(half.status, 422);
        assert_eq!(half.reason.unwrap().code, "incomplete");
    }

    #[test]
    fn a_capture_elsewhere_is_the_reason_with_the_capturers_marked() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W18,21:B14").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let err = move_of_path(&game, &[sq(21), sq(17)]).unwrap_err();
        let reason = err.reason.unwrap();
        assert_eq!(reason.code, "must_capture");
        assert_eq!(reason.squares, [18]);
    }

    #[test]
    fn a_man_jumping_a_king_is_told_it_may_not_capture_kings() {
        let game = Game::from_position(Variant::Italian, fen::parse("W:W22,30:BK18").unwrap());
        let sq = |n| Square::new(n).unwrap();
        let reason = move_of_path(&game, &[sq(22), sq(13)])
            .unwrap_err()
            .reason
            .unwrap();
        assert_eq!(reason.code, "man_takes_king");
        assert_eq!(reason.squares, [18]);
        assert!(
            reason.message.contains("capture a king"),
            "{}",
            reason.message
        );
        let refused = kings_refused(&game, sq(22));
        assert_eq!(refused.len(), 1);
        assert_eq!((refused[0].to, refused[0].king), (13, Some(18)));
        // Spanish men take kings: no such refusal there.
        let spanish = Game::from_position(Variant::Spanish, *game.position());
        assert!(kings_refused(&spanish, sq(22)).is_empty());
    }

    #[test]
    fn a_line_stops_at_a_move_that_is_not_legal() {
        let pos = Position::start();
        let good = notation::parse_move_for(Variant::Italian, &pos, "22-18").unwrap();
        // The same move again is not Black's.
        let (hub, text) = line_texts(Variant::Italian, &pos, &[good, good]);
        assert_eq!(hub, ["22-18"]);
        assert_eq!(text, ["22-18"]);
        let view = line_view(Variant::Italian, &pos, Score(12), &[good]).unwrap();
        assert_eq!(view.arrow, [22, 18]);
        assert_eq!(view.path, [22, 18]);
        assert_eq!(view.score.score_text, "+0.12");
    }
}
