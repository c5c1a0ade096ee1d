//! The game of `dama play` as a model that knows nothing of terminals: the game, the level,
//! what the player has selected and may do next, the message to show, and the score.
//!
//! Views (the full-screen terminal, the plain-text mode) render it and turn their input into
//! calls: [`Model::choose_square`] for a click, Enter or a typed square number,
//! [`Model::type_move`] for a whole move, [`Model::computer_moved`] when the computer's
//! search (run by the view, on a worker) comes back.

use dama_rules::notation::pdn;
use dama_rules::{with_rules, Bitboard, Color, DrawReason, Error, Game, Illegal, Move, Outcome};
use dama_rules::{Position, Role, Rules, Square, Variant};
use dama_search::Level;

/// The count of moves without progress is shown from this many moves on (or from half the
/// variant's limit, when that is fewer): early in a game it means nothing, and from here a
/// player may start to steer for it or away from it.
pub const NO_PROGRESS_SHOWN: u32 = 10;

/// The piece the player has picked and the landing squares entered so far.
#[derive(Clone, Debug)]
struct Selection {
    from: Square,
    /// Landing squares entered so far (a multi-jump is entered one landing at a time).
    path: Vec<Square>,
    /// The piece's legal moves with their landing squares (for a quiet move, just `to`).
    moves: Vec<(Move, Vec<Square>)>,
}

impl Selection {
    /// The moves whose landing squares begin with the path entered so far.
    fn open(&self) -> impl Iterator<Item = &(Move, Vec<Square>)> {
        self.moves.iter().filter(|(_, p)| p.starts_with(&self.path))
    }
}

/// Who plays the other side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The computer, at the model's level.
    Computer,
    /// Another person: both sides are played by people (at two screens or at one).
    Friend,
}

/// One game, against the computer or between two people, with everything a view shows.
#[derive(Clone, Debug)]
pub struct Model {
    game: Game,
    opponent: Opponent,
    level: Level,
    /// The lowest level the computer played at in this game: a win is scored at it, so that
    /// switching to Hard for the last move earns nothing.
    scored_level: Level,
    human: Color,
    selection: Option<Selection>,
    message: String,
    marked: Bitboard,
    last_computer: Option<Move>,
}

impl Model {
    /// A new game of `variant` from `start` at `level`; the player has the side to move
    /// (see [`Model::playing`] for the other side).
    pub fn new(variant: Variant, start: Position, level: Level) -> Model {
        let game = Game::from_position(variant, start);
        Model {
            human: game.position().turn(),
            opponent: Opponent::Computer,
            game,
            level,
            scored_level: level,
            selection: None,
            message: String::new(),
            marked: Bitboard::EMPTY,
            last_computer: None,
        }
    }

    /// The same new game with the player on side `human` (against the computer, the computer
    /// moves first when `human` is not to move).
    pub fn playing(mut self, human: Color) -> Model {
        self.human = human;
        self
    }

    /// A game of `variant` from `start` between two people; [`Model::human`] is the side
    /// that moves first (the game's creator), and either side may move in its turn.
    pub fn friends(variant: Variant, start: Position) -> Model {
        Model {
            opponent: Opponent::Friend,
            ..Model::new(variant, start, Level::Novice)
        }
    }

    /// The game again from its moves: `moves` played in order (the computer's moves, in a
    /// game against it, recorded as such), at `level` with wins scored at `scored_level`.
    ///
    /// # Errors
    /// The first move that is not legal where it stands.
    pub fn resume(
        mut self,
        moves: &[Move],
        level: Level,
        scored_level: Level,
    ) -> Result<Model, Error> {
        for &m in moves {
            if self.opponent == Opponent::Computer && self.game.position().turn() != self.human {
                self.computer_moved(m)?;
            } else {
                self.play_own(m)?;
            }
        }
        self.level = level;
        self.scored_level = scored_level;
        Ok(self)
    }

    /// Starts again from the start position, at the current level, the player on the same
    /// side.
    pub fn new_game(&mut self) {
        let human = self.human;
        self.new_game_as(human);
    }

    /// Starts again from the start position, at the current level, the player on side
    /// `human`.
    pub fn new_game_as(&mut self, human: Color) {
        let opponent = self.opponent;
        *self = Model::new(self.game.variant(), *self.game.start(), self.level).playing(human);
        self.opponent = opponent;
    }

    /// Whether the player has made no move yet in this game (a new game may still be
    /// started on the other side without losing anything).
    pub fn player_has_not_moved(&self) -> bool {
        let first = self.game.start().turn();
        !(0..self.game.moves().len())
            .any(|i| (if i % 2 == 0 { first } else { !first }) == self.human)
    }

    /// Who plays the other side.
    pub fn opponent(&self) -> Opponent {
        self.opponent
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The player's colour.
    pub fn human(&self) -> Color {
        self.human
    }

    /// The computer's level.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Switches the computer's level (it applies from its next move); the message says it,
    /// and, when a win still counts at a lower level, why.
    pub fn set_level(&mut self, level: Level) {
        self.level = level;
        if self.game.outcome().is_none() {
            self.scored_level = self.scored_level.min(level);
        }
        self.message = format!("Level {} ({}).", level.number(), title(level));
        if let Some(note) = self.level_note() {
            self.message.push(' ');
            self.message.push_str(&capitalised(&note));
            self.message.push('.');
        }
    }

    /// Why a win counts at another level than the one set, when it does: `a win counts at
    /// level 1, the lowest level played in this game` (a win counts at the lowest level the
    /// computer played at, so that switching to Hard for the last moves earns nothing).
    pub fn level_note(&self) -> Option<String> {
        (self.opponent == Opponent::Computer && self.scored_level < self.level).then(|| {
            format!(
                "a win counts at level {}, the lowest level played in this game",
                self.scored_level.number()
            )
        })
    }

    /// The level a win is scored at (the lowest the computer played at in this game).
    pub fn scored_level(&self) -> Level {
        self.scored_level
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    /// Whether a person is to move (the player against the computer; either side between
    /// friends).
    pub fn human_to_move(&self) -> bool {
        self.outcome().is_none()
            && (self.opponent == Opponent::Friend || self.game.position().turn() == self.human)
    }

    /// Whether the computer is to move.
    pub fn computer_to_move(&self) -> bool {
        self.outcome().is_none()
            && self.opponent == Opponent::Computer
            && self.game.position().turn() != self.human
    }

    /// The colour whose pieces a click selects: the side to move between friends, the
    /// player's against the computer.
    fn mover(&self) -> Color {
        match self.opponent {
            Opponent::Friend => self.game.position().turn(),
            Opponent::Computer => self.human,
        }
    }

    /// The selected piece's square.
    pub fn selected(&self) -> Option<Square> {
        self.selection.as_ref().map(|s| s.from)
    }

    /// The landing squares entered so far in a multi-jump.
    pub fn path(&self) -> &[Square] {
        self.selection.as_ref().map_or(&[], |s| &s.path)
    }

    /// The squares the selected piece may go to next (empty when nothing is selected).
    pub fn targets(&self) -> Bitboard {
        let Some(sel) = &self.selection else {
            return Bitboard::EMPTY;
        };
        Bitboard::from_squares(
            sel.open()
                .filter_map(|(_, p)| p.get(sel.path.len()).copied()),
        )
    }

    /// Pieces to point at: those that must capture (from the start of the player's turn,
    /// until a piece is selected), or those a refused selection names.
    pub fn marked(&self) -> Bitboard {
        if self.selection.is_none() {
            self.marked | self.must_capture()
        } else {
            self.marked
        }
    }

    /// The pieces that must capture now: when a person is to move and a capture is
    /// compulsory, the pieces that have a legal capture; otherwise none.
    pub fn must_capture(&self) -> Bitboard {
        let legal = self.game.legal_moves();
        if !self.human_to_move() || !legal.first().is_some_and(|m| m.is_capture()) {
            return Bitboard::EMPTY;
        }
        Bitboard::from_squares(legal.iter().map(|m| m.from()))
    }

    /// What to tell the player whose turn starts: that a capture is compulsory and which
    /// pieces must capture, or just that it is their move.
    pub fn prompt(&self) -> String {
        let must = self.must_capture();
        if must.is_empty() {
            return "Your move: select a piece.".into();
        }
        let names = self.names(must);
        match names.len() {
            1 => format!(
                "A capture is compulsory: the marked piece on {} must capture.",
                names[0]
            ),
            _ => format!(
                "A capture is compulsory: one of the marked pieces on {} must capture.",
                names.join(", ")
            ),
        }
    }

    /// The names of `squares` in the variant's own notation, in the order its players count
    /// them (by number, or by name for algebraic squares).
    fn names(&self, squares: Bitboard) -> Vec<String> {
        let mut names: Vec<String> = squares.iter().map(|sq| self.name(sq)).collect();
        names.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        names
    }

    /// The name of square `sq` in the variant's own notation (see
    /// [`pdn::square_name`]): what the player sees and types.
    pub fn name(&self, sq: Square) -> String {
        pdn::square_name(self.game.variant(), sq)
    }

    /// Move `m` in Hub notation with the variant's own square names (`22x13x18` in Italian,
    /// `23x14x19` in English, `e3xc5xd4` in Russian).
    pub fn move_text(&self, m: Move) -> String {
        pdn::variant_text(self.game.variant(), &m.to_string())
    }

    /// The number of the move being played, as players count them (a move is one by each
    /// side): 1 at the start, 2 once both sides have moved.
    pub fn move_number(&self) -> usize {
        let first = pdn::first_colour(self.game.variant());
        let offset = usize::from(self.game.start().turn() != first);
        (self.game.moves().len() + offset) / 2 + 1
    }

    /// Moves without progress (as players count moves: one by each side) and the variant's
    /// limit, once the count matters: from [`NO_PROGRESS_SHOWN`] moves, or half the limit
    /// when that is fewer; `None` before, and once the game is over.
    pub fn no_progress(&self) -> Option<(u32, u32)> {
        let limit = self.game.variant().draw_rules().no_progress_plies / 2;
        let moves = self.game.quiet_plies() / 2;
        let shown = NO_PROGRESS_SHOWN.min(limit / 2);
        (self.outcome().is_none() && moves >= shown).then_some((moves, limit))
    }

    /// The message to show (empty for none).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The computer's last move.
    pub fn last_computer_move(&self) -> Option<Move> {
        self.last_computer
    }

    /// Points so far: 10 for each enemy piece the player captured, plus, once the player has
    /// won, 100 and 50 times the level number.
    pub fn score(&self) -> u32 {
        self.score_of(self.human)
    }

    /// The points of `side`: 10 for each enemy piece it captured, plus, once it has won,
    /// 100, and against the computer 50 times the level number more (between friends a win
    /// is worth 100).
    pub fn score_of(&self, side: Color) -> u32 {
        let first = self.game.start().turn();
        let captured: u32 = self
            .game
            .moves()
            .iter()
            .enumerate()
            .filter(|(i, _)| (if i % 2 == 0 { first } else { !first }) == side)
            .map(|(_, m)| m.captured().count())
            .sum();
        let win = match (self.outcome(), self.opponent) {
            (Some(Outcome::Win(c)), Opponent::Computer) if c == side && c == self.human => {
                100 + 50 * self.scored_level.number()
            }
            (Some(Outcome::Win(c)), Opponent::Friend) if c == side => 100,
            _ => 0,
        };
        10 * captured + win
    }

    /// Selects a square: a piece of the player's to move, or the next landing square of the
    /// selected piece (playing the move once it is complete). Returns the move played, if any;
    /// otherwise [`Model::message`] says what happened.
    pub fn choose_square(&mut self, sq: Square) -> Option<Move> {
        if !self.human_to_move() {
            self.message = "It is not your move.".into();
            return None;
        }
        if self.targets().contains(sq) {
            return self.extend(sq);
        }
        if self.selected() == Some(sq) && self.path().is_empty() {
            self.clear_selection();
            self.message.clear();
            return None;
        }
        let own = self
            .game
            .position()
            .piece_at(sq)
            .is_some_and(|p| p.color == self.mover());
        if let (Some(from), false) = (self.selected(), own) {
            self.message = match self.path().is_empty().then(|| self.king_refusal(from, sq)) {
                Some(Some(why)) => capitalised(&why),
                _ => format!(
                    "The piece on {} cannot go to {}.",
                    self.path_text(),
                    self.name(sq)
                ),
            };
            return None;
        }
        self.select(sq);
        None
    }

    /// Selects the piece on `sq`, or explains why it cannot move.
    fn select(&mut self, sq: Square) {
        self.clear_selection();
        let pos = *self.game.position();
        let variant = self.game.variant();
        match piece_moves(variant, &pos, sq) {
            Ok(list) => {
                let moves = list
                    .into_iter()
                    .filter_map(|(m, paths)| Some((m, paths.into_iter().next()?)))
                    .collect();
                self.selection = Some(Selection {
                    from: sq,
                    path: Vec::new(),
                    moves,
                });
                let targets = self.names(self.targets());
                self.message = format!(
                    "{} selected: it may go to {}.",
                    self.name(sq),
                    targets.join(", ")
                );
            }
            Err(why) => {
                self.marked = match why {
                    Illegal::MustCapture { capturers } => capturers,
                    Illegal::Outranked { .. } => {
                        Bitboard::from_squares(self.game.legal_moves().iter().map(|m| m.from()))
                    }
                    _ => Bitboard::EMPTY,
                };
                self.message = capitalised(&why.describe(&|s| self.name(s)));
            }
        }
    }

    /// Adds the landing square `sq` to the selected piece's path; plays the move once the
    /// path names a single complete move.
    fn extend(&mut self, sq: Square) -> Option<Move> {
        let sel = self.selection.as_mut()?;
        sel.path.push(sq);
        let open: Vec<Move> = sel.open().map(|&(m, _)| m).collect();
        let done = sel
            .open()
            .find(|(_, p)| p.len() == sel.path.len())
            .map(|&(m, _)| m);
        match done {
            Some(m) if open.len() == 1 || open.iter().all(|&o| o == m) => {
                self.play_human(m);
                Some(m)
            }
            _ => {
                let next = self.names(self.targets());
                self.message = format!("{}: go on to {}.", self.path_text(), next.join(", "));
                None
            }
        }
    }

    /// `22x13` for the selection so far.
    fn path_text(&self) -> String {
        let Some(sel) = &self.selection else {
            return String::new();
        };
        let mut text = self.name(sel.from);
        for &sq in &sel.path {
            text.push('x');
            text.push_str(&self.name(sq));
        }
        text
    }

    fn clear_selection(&mut self) {
        self.selection = None;
        self.marked = Bitboard::EMPTY;
    }

    fn play_human(&mut self, m: Move) {
        // Only legal moves reach here.
        if self.game.play(m).is_ok() {
            self.clear_selection();
            self.message.clear();
        }
    }

    /// Plays the player's move `m`; the caller has checked [`Model::human_to_move`].
    ///
    /// # Errors
    /// When `m` is not legal here; the game is unchanged.
    pub fn play_own(&mut self, m: Move) -> Result<(), Error> {
        self.game.play(m)?;
        self.clear_selection();
        self.message.clear();
        Ok(())
    }

    /// Plays a whole move typed by the player (Hub or PDN notation, with the variant's own
    /// square names).
    ///
    /// # Errors
    /// The reason it was refused, in words (see [`refusal`]; a text that is not a move asks
    /// for one, naming a legal move as the example, and a square that does not exist is
    /// named: `there is no square 99`); the game is unchanged.
    pub fn type_move(&mut self, text: &str) -> Result<Move, String> {
        self.typed(text, false)
    }

    /// What the player typed in a view that also selects by square: a square's name selects
    /// (as [`Model::choose_square`]), anything else is played as [`Model::type_move`]. Returns
    /// the move played, if any; [`Model::message`] says what happened.
    pub fn enter(&mut self, text: &str) -> Option<Move> {
        match pdn::square_named(self.game.variant(), text) {
            Some(sq) => self.choose_square(sq),
            None => self.typed(text, true).ok(),
        }
    }

    fn typed(&mut self, text: &str, squares_too: bool) -> Result<Move, String> {
        if !self.human_to_move() {
            return Err("it is not your move".into());
        }
        let text = text.trim();
        let engine = pdn::engine_text(self.game.variant(), text);
        match self.game.play_text(&engine) {
            Ok(m) => {
                self.clear_selection();
                self.message.clear();
                Ok(m)
            }
            Err(err) => {
                let why = self.why_refused(text, &engine, &err, squares_too);
                self.clear_selection();
                if let Error::IllegalMove {
                    why: Illegal::MustCapture { capturers },
                    ..
                } = err
                {
                    self.marked = capturers;
                }
                self.message = capitalised(&why);
                Err(why)
            }
        }
    }

    /// Why the typed `text` (`engine` in the engine's numbers) was refused with `err`, in
    /// the variant's square names.
    fn why_refused(&self, text: &str, engine: &str, err: &Error, squares_too: bool) -> String {
        let name = |sq: Square| self.name(sq);
        match err {
            Error::MalformedMove { .. } => self.not_a_move(text, squares_too),
            Error::IllegalMove { why, .. } => {
                let squares: Vec<Square> = engine
                    .split(['-', 'x', 'X'])
                    .filter_map(|t| t.trim().parse::<u8>().ok().and_then(Square::new))
                    .collect();
                if let [from, to, ..] = squares[..] {
                    if let Some(king) = self.king_refusal(from, to) {
                        return format!("{text}: {king}");
                    }
                }
                let mut reason = format!("{text}: {}", why.describe(&name));
                if matches!(why, Illegal::MustCapture { .. }) {
                    let captures: Vec<String> = self
                        .game
                        .sorted_legal_moves()
                        .iter()
                        .map(|&m| self.move_text(m))
                        .collect();
                    reason.push_str(&format!(" ({})", captures.join(" ")));
                }
                reason
            }
            Error::AmbiguousMove { count, .. } => {
                let candidates: Vec<String> = self
                    .game
                    .sorted_legal_moves()
                    .iter()
                    .filter(|m| squares_match(engine, **m))
                    .map(|&m| self.move_text(m))
                    .collect();
                format!(
                    "{text} is ambiguous: {count} captures match ({}); give the captured \
                     squares or the landing squares",
                    candidates.join(" ")
                )
            }
            other => other.to_string(),
        }
    }

    /// The answer to text that is not a move: the square it names that does not exist, or
    /// an example of what to type (a legal move here).
    fn not_a_move(&self, text: &str, squares_too: bool) -> String {
        let variant = self.game.variant();
        let example = self
            .game
            .sorted_legal_moves()
            .iter()
            .find(|m| !m.is_capture())
            .or_else(|| self.game.legal_moves().first())
            .map_or_else(
                || "22-18".to_string(),
                |&m| pdn::variant_text(variant, &pdn_text(&self.game, m)),
            );
        let tokens: Vec<&str> = text.split(['-', 'x', 'X', ':']).map(str::trim).collect();
        let square_like = |t: &str| {
            !t.is_empty()
                && t.len() <= 3
                && t.chars().last().is_some_and(|c| c.is_ascii_digit())
                && t.chars().skip(1).all(|c| c.is_ascii_digit())
        };
        if !text.is_empty() && tokens.iter().all(|t| square_like(t)) {
            if let Some(bad) = tokens
                .iter()
                .find(|t| pdn::square_named(variant, t).is_none())
            {
                return format!("there is no square {bad}");
            }
            if tokens.len() == 1 {
                return format!("{text} is a square: type a whole move like {example}");
            }
        }
        let quoted: String = text.chars().take(20).collect();
        let cut = if quoted.len() < text.len() { "…" } else { "" };
        if squares_too {
            format!("\"{quoted}{cut}\" is not a move or a square: type a move like {example} or a square")
        } else {
            format!("\"{quoted}{cut}\" is not a move: type one like {example}")
        }
    }

    /// `a man may not capture a king` when the man on `from` would capture a king by going
    /// to `to` (its first landing or its end), in a variant whose men may not capture kings.
    fn king_refusal(&self, from: Square, to: Square) -> Option<String> {
        let refused = king_capture_refused(self.game.variant(), self.game.position(), from, to)?;
        Some(match refused.king {
            Some(k) => format!(
                "a man may not capture a king (the king on {})",
                self.name(k)
            ),
            None => "a man may not capture a king".to_string(),
        })
    }

    /// Plays the computer's move.
    ///
    /// # Errors
    /// When the move is not legal (the search answered another position).
    pub fn computer_moved(&mut self, m: Move) -> Result<(), Error> {
        self.game.play(m)?;
        self.last_computer = Some(m);
        self.clear_selection();
        self.message.clear();
        Ok(())
    }

    /// The result as PDN gives it: `1-0`, `0-1`, `1/2-1/2`.
    pub fn result_text(&self) -> Option<&'static str> {
        self.outcome().map(Outcome::pdn)
    }

    /// The end of the game in the player's words.
    pub fn verdict(&self) -> Option<String> {
        Some(self.verdicts()?.swap_remove(0))
    }

    /// The end of the game in the player's words, in forms from the longest (a view shows
    /// the first that fits): `Draw: 40 moves without progress (no capture and no man move).`,
    /// `Draw: 40 moves without progress.`, `Draw.`
    pub fn verdicts(&self) -> Option<Vec<String>> {
        Some(match self.outcome()? {
            Outcome::Win(c) if self.opponent == Opponent::Friend => {
                vec![format!("{} wins.", capitalised(c.name()))]
            }
            Outcome::Win(c) if c == self.human => vec!["You win!".to_string()],
            Outcome::Win(_) => vec!["The computer wins.".to_string()],
            Outcome::Draw(DrawReason::NoProgress { plies }) => {
                let progress = if self.game.variant().draw_rules().man_move_is_progress {
                    "no capture and no man move"
                } else {
                    "no capture and no promotion"
                };
                let moves = plies / 2;
                vec![
                    format!("Draw: {moves} moves without progress ({progress})."),
                    format!("Draw: {moves} moves without progress."),
                    format!("Draw: {moves} moves, no progress."),
                    format!("Draw: {moves} moves."),
                    "Draw.".to_string(),
                ]
            }
            Outcome::Draw(DrawReason::Repetition) => vec![
                "Draw: the same position for the third time.".to_string(),
                "Draw by repetition.".to_string(),
                "Draw.".to_string(),
            ],
            Outcome::Draw(DrawReason::KingsAgainstKing { moves }) => vec![
                format!("Draw: the kings did not beat the lone king in {moves} moves."),
                format!("Draw: no win in {moves} moves."),
                "Draw.".to_string(),
            ],
        })
    }
}

/// Whether legal move `m` could be what `engine` text (engine numbers) names: its start
/// and end squares appear in the text.
fn squares_match(engine: &str, m: Move) -> bool {
    let squares: Vec<u8> = engine
        .split(['-', 'x', 'X'])
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    squares.first() == Some(&m.from().number()) && squares.contains(&m.to().number())
}

/// The PDN text of legal move `m` in `game` (its Hub text if it were not legal).
fn pdn_text(game: &Game, m: Move) -> String {
    game.pdn_move(m).unwrap_or_else(|_| m.to_string())
}

/// A piece's legal moves, each with every landing path it may take.
pub type PieceMoves = Vec<(Move, Vec<Vec<Square>>)>;

/// The legal moves of the piece on `sq` in `pos` under `variant`'s rules, each with its
/// landing squares (every path a capture may take, at least one; a quiet move's is its end
/// square), or the rules' reason why it has none.
///
/// # Errors
/// The [`Illegal`] reason: no piece there, the opponent's piece, a capture compulsory
/// elsewhere, a capture that loses by priority, or a blocked piece.
pub fn piece_moves(variant: Variant, pos: &Position, sq: Square) -> Result<PieceMoves, Illegal> {
    let list = with_rules!(variant, R => pos.explain_square::<R>(sq))?;
    Ok(list
        .iter()
        .map(|&m| {
            let mut paths = with_rules!(variant, R => pos.capture_paths::<R>(m));
            paths.sort();
            paths.dedup();
            if paths.is_empty() {
                paths.push(vec![m.to()]);
            }
            (m, paths)
        })
        .collect())
}

/// A man's move refused because it would capture a king: see [`king_capture_refused`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KingRefusal {
    /// The king jumped over, when the step from the man to the square asked passes one.
    pub king: Option<Square>,
}

/// Whether the man of the side to move on `from` would capture a king by going to `to` (its
/// first landing or its end), were the opponent's kings men, in a variant whose men may not
/// capture kings (Italian): the reason to give instead of a plain "cannot go there". `None`
/// when the rules allow it, the piece is not a man of the side to move, or no such capture
/// exists.
///
/// ```
/// use dama_play::king_capture_refused;
/// use dama_rules::notation::fen;
/// use dama_rules::{Square, Variant};
///
/// let pos = fen::parse("W:W22:BK18")?;
/// let sq = |n| Square::new(n).unwrap();
/// let refused = king_capture_refused(Variant::Italian, &pos, sq(22), sq(13)).unwrap();
/// assert_eq!(refused.king, Some(sq(18)));
/// assert_eq!(king_capture_refused(Variant::Spanish, &pos, sq(22), sq(13)), None);
/// # Ok::<_, dama_rules::Error>(())
/// ```
pub fn king_capture_refused(
    variant: Variant,
    pos: &Position,
    from: Square,
    to: Square,
) -> Option<KingRefusal> {
    let men_take_kings = with_rules!(variant, R => <R as Rules>::MEN_CAPTURE_KINGS);
    let piece = pos.piece_at(from)?;
    if men_take_kings || piece.role != Role::Man || piece.color != pos.turn() {
        return None;
    }
    let kings = pos.kings(!pos.turn());
    if !kings.any() {
        return None;
    }
    // The same board with the opponent's kings as men: a capture there that takes one of
    // them is a capture the man would have, were the kings men.
    let as_men = Position::from_bitboards(
        pos.pieces(Color::White),
        pos.pieces(Color::Black),
        pos.kings(pos.turn()),
        pos.turn(),
    )
    .ok()?;
    let would = as_men.legal_moves_for(variant).iter().any(|&m| {
        m.from() == from
            && (m.captured() & kings).any()
            && with_rules!(variant, R => as_men.capture_paths::<R>(m))
                .iter()
                .any(|path| path.first() == Some(&to) || path.last() == Some(&to))
    });
    let king = kings.iter().find(|&k| {
        let (r, c) = (i16::from(k.row()), i16::from(k.column()));
        let (r0, c0) = (i16::from(from.row()), i16::from(from.column()));
        let (r1, c1) = (i16::from(to.row()), i16::from(to.column()));
        2 * r == r0 + r1 && 2 * c == c0 + c1
    });
    would.then_some(KingRefusal { king })
}

/// Why a typed move was refused: the rules' reason, naming the compulsory captures.
pub fn refusal(game: &Game, err: &Error) -> String {
    match err {
        Error::IllegalMove {
            text,
            why: why @ Illegal::MustCapture { .. },
        } => {
            let captures: Vec<String> = game
                .sorted_legal_moves()
                .iter()
                .map(|m| m.to_string())
                .collect();
            format!("{text}: {why} ({})", captures.join(" "))
        }
        Error::IllegalMove { text, why } => format!("{text}: {why}"),
        other => other.to_string(),
    }
}

/// The level's name with a capital.
pub fn title(level: Level) -> String {
    capitalised(level.name())
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_rules::notation::fen;

    fn sq(n: u8) -> Square {
        Square::new(n).unwrap()
    }

    fn model_at(fen_text: &str) -> Model {
        Model::new(
            Variant::Italian,
            fen::parse(fen_text).unwrap(),
            Level::Novice,
        )
    }

    #[test]
    fn selecting_a_piece_highlights_its_targets() {
        let mut m = Model::new(Variant::Italian, Position::start(), Level::Normal);
        assert_eq!(m.choose_square(sq(22)), None);
        let targets: Vec<u8> = m.targets().iter().map(|s| s.number()).collect();
        assert_eq!(targets, [18, 19]);
        assert!(m.message().contains("22 selected"), "{}", m.message());
        assert!(m.choose_square(sq(18)).is_some());
        assert!(m.computer_to_move());
    }

    #[test]
    fn a_piece_that_may_not_move_because_of_a_capture_elsewhere_says_so() {
        let mut m = model_at("W:W18,21:B14");
        m.choose_square(sq(21));
        assert_eq!(
            m.message(),
            "A capture is compulsory and only the piece on 18 can capture"
        );
        assert_eq!(m.marked(), Bitboard::from_square(sq(18)));
        assert_eq!(m.selected(), None);
    }

    #[test]
    fn an_outranked_capture_is_refused_with_the_rule() {
        let mut m = model_at("W:W22,K30:B18,K26,17");
        m.choose_square(sq(22));
        assert!(
            m.message().contains("loses to 30x14x18x26 by tier 1"),
            "{}",
            m.message()
        );
        let before = m.game().position().fen();
        let err = m.type_move("22x13").unwrap_err();
        assert!(err.contains("tier 1"), "{err}");
        assert_eq!(m.game().position().fen(), before);
    }

    #[test]
    fn a_multi_jump_is_entered_one_landing_at_a_time() {
        let mut m = model_at("W:W30:B26,18");
        m.choose_square(sq(30));
        assert_eq!(m.targets(), Bitboard::from_square(sq(21)));
        assert_eq!(m.choose_square(sq(21)), None);
        assert_eq!(m.targets(), Bitboard::from_square(sq(14)));
        let played = m.choose_square(sq(14)).unwrap();
        assert_eq!(played.to_string(), "30x14x18x26");
        assert_eq!(m.score(), 20 + 100 + 50);
    }

    #[test]
    fn typed_quiet_move_during_a_capture_names_the_capture() {
        let mut m = model_at("W:W18,21:B14");
        let err = m.type_move("21-17").unwrap_err();
        assert!(err.contains("18x11x14"), "{err}");
    }

    #[test]
    fn a_win_scores_at_the_lowest_level_played() {
        let mut m = model_at("W:W22:B18");
        m.set_level(Level::Hard);
        m.type_move("22x13").unwrap();
        assert_eq!(m.score(), 10 + 100 + 50);
        assert_eq!(m.verdict().unwrap(), "You win!");
    }

    #[test]
    fn between_friends_each_side_moves_in_turn_and_scores_its_captures() {
        let mut m = Model::friends(Variant::Italian, fen::parse("W:W22,30:B14").unwrap());
        assert!(m.human_to_move() && !m.computer_to_move());
        m.type_move("22-18").unwrap();
        // Black's piece is selectable now, White's is not.
        assert!(m.human_to_move());
        m.choose_square(sq(30));
        assert_eq!(m.selected(), None);
        assert_eq!(m.choose_square(sq(14)), None);
        assert_eq!(m.selected(), Some(sq(14)));
        m.type_move("14x21x18").unwrap();
        assert_eq!(m.score_of(Color::Black), 10);
        assert_eq!(m.score_of(Color::White), 0);
        assert!(m.human_to_move());
    }

    #[test]
    fn a_resumed_game_is_the_game_it_was() {
        let mut m = Model::new(Variant::Italian, Position::start(), Level::Normal);
        m.type_move("22-18").unwrap();
        m.computer_moved(m.game().legal_moves()[0]).unwrap();
        m.set_level(Level::Easy);
        m.set_level(Level::Hard);
        let again = Model::new(Variant::Italian, Position::start(), Level::Normal)
            .resume(m.game().moves(), m.level(), m.scored_level())
            .unwrap();
        assert_eq!(again.game().moves(), m.game().moves());
        assert_eq!(again.last_computer_move(), m.last_computer_move());
        assert_eq!(
            (again.level(), again.scored_level()),
            (Level::Hard, Level::Easy)
        );
        let friends = Model::friends(Variant::Italian, Position::start())
            .resume(m.game().moves(), Level::Novice, Level::Novice)
            .unwrap();
        assert_eq!(friends.last_computer_move(), None);
        assert!(friends.human_to_move());
    }

    #[test]
    fn a_compulsory_capture_is_said_and_marked_at_the_start_of_the_turn() {
        let m = model_at("W:W18,21,29:B14,5");
        assert_eq!(m.marked(), Bitboard::from_square(sq(18)));
        assert_eq!(
            m.prompt(),
            "A capture is compulsory: the marked piece on 18 must capture."
        );
        let m = model_at("W:W22,24:B18,20,5");
        assert_eq!(m.marked().count(), 2);
        assert!(
            m.prompt().contains("pieces on 22, 24 must capture"),
            "{}",
            m.prompt()
        );
        // Without a capture, nothing is marked; the computer's turn marks nothing either.
        let m = Model::new(Variant::Italian, Position::start(), Level::Novice);
        assert_eq!(m.marked(), Bitboard::EMPTY);
        assert_eq!(m.prompt(), "Your move: select a piece.");
        let m = model_at("W:W18,21:B14").playing(Color::Black);
        assert_eq!(m.marked(), Bitboard::EMPTY);
    }

    #[test]
    fn a_level_above_the_scored_one_says_why_a_win_counts_lower() {
        let mut m = Model::new(Variant::Italian, Position::start(), Level::Normal);
        m.set_level(Level::Novice);
        assert_eq!(m.level_note(), None);
        m.set_level(Level::Hard);
        assert_eq!(
            m.message(),
            "Level 5 (Hard). A win counts at level 1, the lowest level played in this game."
        );
        assert_eq!(
            m.level_note().unwrap(),
            "a win counts at level 1, the lowest level played in this game"
        );
    }

    #[test]
    fn moves_are_counted_as_players_count_them() {
        let mut m = Model::new(Variant::Italian, Position::start(), Level::Novice);
        assert_eq!(m.move_number(), 1);
        m.type_move("22-18").unwrap();
        assert_eq!(m.move_number(), 1);
        m.computer_moved(m.game().legal_moves()[0]).unwrap();
        assert_eq!(m.move_number(), 2);
    }

    #[test]
    fn moves_without_progress_are_counted_from_ten_and_draw_at_forty() {
        let mut m = model_at("W:WK29:BK4");
        let shuffle = [(29, 25), (4, 8), (25, 29), (8, 4)];
        for i in 0..80 {
            if i == 19 {
                assert_eq!(m.no_progress(), None, "9 moves");
            }
            if i == 20 {
                assert_eq!(m.no_progress(), Some((10, 40)));
            }
            let (a, b) = shuffle[i % 4];
            let mv = *m
                .game()
                .legal_moves()
                .iter()
                .find(|mv| mv.from() == sq(a) && mv.to() == sq(b))
                .unwrap();
            if i % 2 == 0 {
                m.play_own(mv).unwrap();
            } else {
                m.computer_moved(mv).unwrap();
            }
        }
        assert_eq!(m.no_progress(), None);
        assert_eq!(
            m.verdict().unwrap(),
            "Draw: 40 moves without progress (no capture and no man move)."
        );
        let forms = m.verdicts().unwrap();
        assert!(forms.iter().all(|f| f.contains("40 moves") || f == "Draw."));
    }

    #[test]
    fn typed_text_that_is_not_a_move_is_answered_as_a_person_would() {
        let mut m = Model::new(Variant::Italian, Position::start(), Level::Novice);
        assert_eq!(m.type_move("99").unwrap_err(), "there is no square 99");
        assert_eq!(m.type_move("22-99").unwrap_err(), "there is no square 99");
        assert_eq!(
            m.type_move("hello").unwrap_err(),
            "\"hello\" is not a move: type one like 21-17"
        );
        assert_eq!(m.enter("hello"), None);
        assert_eq!(
            m.message(),
            "\"hello\" is not a move or a square: type a move like 21-17 or a square"
        );
        assert_eq!(
            m.type_move("22").unwrap_err(),
            "22 is a square: type a whole move like 21-17"
        );
        // A square entered where squares select selects.
        assert_eq!(m.enter("22"), None);
        assert_eq!(m.selected(), Some(sq(22)));
    }

    #[test]
    fn a_man_is_told_it_may_not_capture_a_king() {
        let mut m = model_at("W:W22:BK18");
        let err = m.type_move("22x13").unwrap_err();
        assert_eq!(err, "22x13: a man may not capture a king (the king on 18)");
        m.choose_square(sq(22));
        m.choose_square(sq(13));
        assert_eq!(m.message(), "A man may not capture a king (the king on 18)");
        // Where men take kings (Spanish), the capture is simply played.
        let mut m = Model::new(
            Variant::Spanish,
            fen::parse("W:W22:BK18").unwrap(),
            Level::Novice,
        );
        assert!(m.type_move("22x13").is_ok());
    }

    #[test]
    fn the_player_may_take_the_dark_pieces() {
        let mut m =
            Model::new(Variant::Italian, Position::start(), Level::Novice).playing(Color::Black);
        assert!(m.computer_to_move());
        assert!(m.player_has_not_moved());
        m.computer_moved(m.game().legal_moves()[0]).unwrap();
        assert!(m.human_to_move());
        m.new_game();
        assert_eq!(m.human(), Color::Black);
        m.new_game_as(Color::White);
        assert!(m.human_to_move());
    }

    #[test]
    fn english_squares_are_named_and_typed_in_english_numbers() {
        let mut m = Model::new(Variant::English, Position::start(), Level::Novice);
        // The engine's 22 is English 23; its targets 18 and 19 are English 19 and 18.
        m.choose_square(sq(22));
        assert_eq!(m.message(), "23 selected: it may go to 18, 19.");
        let played = m.type_move("23-19").unwrap();
        assert_eq!((played.from(), played.to()), (sq(22), sq(18)));
        assert_eq!(m.move_text(played), "23-19");
        let mut m = Model::new(Variant::Russian, Position::start(), Level::Novice);
        assert_eq!(m.enter("e3"), None);
        assert_eq!(m.selected(), Some(sq(22)));
    }
}
