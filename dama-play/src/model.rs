//! The game of `dama play` as a model that knows nothing of terminals: the game, the level,
//! what the player has selected and may do next, the message to show, and the score.
//!
//! Views (the full-screen terminal, the plain-text mode) render it and turn their input into
//! calls: [`Model::choose_square`] for a click, Enter or a typed square number,
//! [`Model::type_move`] for a whole move, [`Model::computer_moved`] when the computer's
//! search (run by the view, on a worker) comes back.

use dama_rules::{with_rules, Bitboard, Color, Error, Game, Illegal, Move, Outcome, Position};
use dama_rules::{Square, Variant};
use dama_search::Level;

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
    /// A new game of `variant` from `start` at `level`; the player has the side to move.
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

    /// Starts again from the start position, at the current level.
    pub fn new_game(&mut self) {
        let opponent = self.opponent;
        *self = Model::new(self.game.variant(), *self.game.start(), self.level);
        self.opponent = opponent;
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

    /// Switches the computer's level (it applies from its next move).
    pub fn set_level(&mut self, level: Level) {
        self.level = level;
        if self.game.outcome().is_none() {
            self.scored_level = self.scored_level.min(level);
        }
        self.message = format!("Level {} ({}).", level.number(), title(level));
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

    /// Pieces to point at: those that must capture, after a refused selection.
    pub fn marked(&self) -> Bitboard {
        self.marked
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
        if self.selection.is_some() && !own {
            self.message = format!("The piece on {} cannot go to {sq}.", self.path_text());
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
                let targets: Vec<String> = self.targets().iter().map(|s| s.to_string()).collect();
                self.message = format!("{sq} selected: it may go to {}.", targets.join(", "));
            }
            Err(why) => {
                self.marked = match why {
                    Illegal::MustCapture { capturers } => capturers,
                    Illegal::Outranked { .. } => {
                        Bitboard::from_squares(self.game.legal_moves().iter().map(|m| m.from()))
                    }
                    _ => Bitboard::EMPTY,
                };
                self.message = capitalised(&why.to_string());
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
                let next: Vec<String> = self.targets().iter().map(|s| s.to_string()).collect();
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
        let mut text = sel.from.to_string();
        for sq in &sel.path {
            text.push('x');
            text.push_str(&sq.to_string());
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

    /// Plays a whole move typed by the player (Hub or PDN notation).
    ///
    /// # Errors
    /// The reason it was refused (see [`refusal`]); the game is unchanged.
    pub fn type_move(&mut self, text: &str) -> Result<Move, String> {
        if !self.human_to_move() {
            return Err("it is not your move".into());
        }
        match self.game.play_text(text) {
            Ok(m) => {
                self.clear_selection();
                self.message.clear();
                Ok(m)
            }
            Err(err) => {
                let why = refusal(&self.game, &err);
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
        Some(match self.outcome()? {
            Outcome::Win(c) if self.opponent == Opponent::Friend => {
                format!("{} wins.", capitalised(c.name()))
            }
            Outcome::Win(c) if c == self.human => "You win!".to_string(),
            Outcome::Win(_) => "The computer wins.".to_string(),
            draw => capitalised(&draw.to_string()),
        })
    }
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
}
