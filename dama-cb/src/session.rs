//! What the engine knows between CheckerBoard's calls: the search engine, the options, and
//! the game so far (for the no-progress count); and `getmove` worked out on plain values.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use dama_rules::variant::Italian;
use dama_rules::{Game, Move, Outcome, Position, Square, Variant};
use dama_search::{
    ChaCha8Rng, Clock, Endgames, Engine, Info, Level, Limits, Score, SearchResult, SeedableRng,
    Signals,
};

use crate::board::{self, CbBoard, CbMove};

/// `CB_DRAW`: the engine claims a draw.
pub const CB_DRAW: i32 = 0;
/// `CB_WIN`: the side to move wins.
pub const CB_WIN: i32 = 1;
/// `CB_LOSS`: the side to move loses.
pub const CB_LOSS: i32 = 2;
/// `CB_UNKNOWN`: no claim.
pub const CB_UNKNOWN: i32 = 3;

/// `info` bit 0: the game's history is to be forgotten (a new game, a set-up position).
pub const CB_RESET_MOVES: i32 = 1;
/// `info` bit 1: play after exactly `maxtime`, not about that long on average.
pub const CB_EXACT_TIME: i32 = 2;
/// `info` bits 2..=3: the incremental clock's unit (0: none, 1: ms, 2: cs, 3: ds).
const INCR_TIME_SHIFT: i32 = 2;

/// The shortest search when CheckerBoard gives no time (0, negative or not a number).
pub const MIN_TIME: Duration = Duration::from_millis(20);

/// The options `enginecommand set` changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// A level of the game (Novice..Hard) that chooses the move, or `None`: the engine at full
    /// strength for the time CheckerBoard gives (the default).
    pub level: Option<Level>,
    /// CheckerBoard's book setting, 0..=3: no book, all kinds of moves, good moves, best moves.
    pub book: u8,
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// Search threads.
    pub threads: usize,
    /// Contempt in hundredths of a man.
    pub contempt: u8,
    /// The seed the levels and the book draw their choices from.
    pub seed: u64,
    /// Whether the endgame table files are used.
    pub tables: bool,
    /// Folder of the endgame table files; `None`: the folder `dama-egtb` beside the DLL.
    pub tables_dir: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            level: None,
            book: 2,
            hash_mib: Engine::DEFAULT_HASH_MIB,
            threads: 1,
            contempt: 0,
            seed: 0,
            tables: true,
            tables_dir: None,
        }
    }
}

/// A `getmove` call's arguments, the board already copied.
#[derive(Clone, Debug)]
pub struct Request {
    /// The board.
    pub board: CbBoard,
    /// The side to move (`CB_WHITE` or `CB_BLACK`).
    pub color: i32,
    /// Seconds to think (on average; exactly with [`CB_EXACT_TIME`]).
    pub maxtime: f64,
    /// Flags: [`CB_RESET_MOVES`], [`CB_EXACT_TIME`], the incremental clock's unit.
    pub info: i32,
    /// With an incremental clock: remaining time (high 16 bits) and increment (low 16 bits).
    pub moreinfo: i32,
}

/// What `getmove` hands back.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// `CB_DRAW`, `CB_WIN`, `CB_LOSS` or `CB_UNKNOWN`.
    pub result: i32,
    /// The board after the move (unchanged when there is no move).
    pub board: CbBoard,
    /// The move played, if any.
    pub mv: Option<CbMove>,
    /// The status line: the search's summary, or why there is no move.
    pub text: String,
}

/// The engine between calls.
#[derive(Debug)]
pub struct Session {
    engine: Engine,
    /// The options in force.
    pub options: Options,
    /// The folder of the DLL, where the tables are looked for by default.
    pub home: Option<PathBuf>,
    /// The game as it stood after the engine's last move.
    history: Option<Game>,
    /// The game `set gamehist` sent for the next `getmove`.
    gamehist: Option<Game>,
    rng: ChaCha8Rng,
    /// Whether the endgame tables were opened for the options in force.
    tables_ready: bool,
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

impl Session {
    /// A session with the default options and no history.
    pub fn new() -> Session {
        let options = Options::default();
        let mut engine = Engine::with_hash(options.hash_mib);
        engine.set_book_margin(book_margin(options.book));
        Session {
            engine,
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            options,
            home: None,
            history: None,
            gamehist: None,
            tables_ready: false,
        }
    }

    /// The engine, for the option commands.
    pub(crate) fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Forget the endgame tables opened, so the next search opens them as the options say.
    pub(crate) fn reopen_tables(&mut self) {
        self.tables_ready = false;
    }

    /// Reseeds the choices of the levels and the book.
    pub(crate) fn reseed(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.options.seed);
    }

    /// Keeps `game` (from `set gamehist`) for the next `getmove` whose board it ends on.
    pub(crate) fn set_gamehist(&mut self, game: Option<Game>) {
        self.gamehist = game;
    }

    /// The folder of the endgame table files the options name.
    pub fn tables_dir(&self) -> Option<PathBuf> {
        self.options
            .tables_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join("dama-egtb")))
    }

    /// Plays a move for `req`, stopping early when `play_now` turns true and writing
    /// progress lines to `status`.
    pub fn get_move(
        &mut self,
        req: &Request,
        play_now: &(dyn Fn() -> bool + Sync),
        status: &mut dyn FnMut(&str),
    ) -> Answer {
        let refuse = |text: String| Answer {
            result: CB_UNKNOWN,
            board: req.board,
            mv: None,
            text: format!("dama: {text}"),
        };
        let pos =
            match board::color_of(req.color).and_then(|turn| board::position(&req.board, turn)) {
                Ok(pos) => pos,
                Err(why) => return refuse(format!("cannot play this board: {why}")),
            };
        if req.info & CB_RESET_MOVES != 0 {
            self.history = None;
            self.engine.clear();
        }
        let game = self.game_for(pos);
        if game.legal_moves().is_empty() {
            let mut answer = refuse(format!("no legal move: {} has lost", side(pos)));
            answer.result = CB_LOSS;
            return answer;
        }
        let (limits, note) = limits(req);
        self.open_tables();
        let result = self.search(&game, &limits, play_now, status);
        let Some(m) = result.best.filter(|m| game.legal_moves().contains(m)) else {
            return refuse("the search found no move (a bug): please report it".into());
        };
        self.answer(game, m, &result, &note)
    }

    /// The game that ends on `pos`: the one `set gamehist` sent, else the kept game if it
    /// ends there or one move before, else a new game from `pos`.
    fn game_for(&mut self, pos: Position) -> Game {
        if let Some(game) = self.gamehist.take().filter(|g| *g.position() == pos) {
            return game;
        }
        if let Some(mut game) = self.history.take() {
            if *game.position() == pos {
                return game;
            }
            let next = game
                .legal_moves()
                .iter()
                .copied()
                .find(|&m| game.position().after(m) == pos);
            if let Some(m) = next {
                if game.play(m).is_ok() {
                    return game;
                }
            }
        }
        Game::from_position(Variant::Italian, pos)
    }

    fn open_tables(&mut self) {
        if self.tables_ready {
            return;
        }
        let dir = self
            .tables_dir()
            .filter(|d| self.options.tables && d.is_dir());
        let endgames = match dir {
            Some(dir) => Endgames::from_dir(&dir, false),
            None => Endgames::memory_only(),
        };
        self.engine.set_endgames(endgames);
        self.tables_ready = true;
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        play_now: &(dyn Fn() -> bool + Sync),
        status: &mut dyn FnMut(&str),
    ) -> SearchResult {
        let signals = Signals::default();
        let done = std::sync::atomic::AtomicBool::new(false);
        let mut on_info = |info: &Info| status(&progress(game.position(), info));
        std::thread::scope(|scope| {
            scope.spawn(|| watch(play_now, &signals, &done));
            let result = self.run_search(game, limits, &signals, &mut on_info);
            done.store(true, Ordering::Relaxed);
            result
        })
    }

    fn run_search(
        &mut self,
        game: &Game,
        limits: &Limits,
        signals: &Signals,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let book = (self.options.book > 0).then(dama_search::Book::embedded);
        self.engine.set_book(book);
        match self.options.level {
            Some(level) => {
                self.engine
                    .play_level_with(game, level, limits, signals, &mut self.rng, on_info)
            }
            None => match self.engine.book_move(game, Level::Hard, &mut self.rng) {
                Some(line) => SearchResult::book(line),
                None => self.engine.search_with(game, limits, signals, on_info),
            },
        }
    }

    fn answer(&mut self, mut game: Game, m: Move, result: &SearchResult, note: &str) -> Answer {
        let before = *game.position();
        let paths = before.capture_paths::<Italian>(m);
        let path: &[Square] = paths.first().map_or(&[], Vec::as_slice);
        let mv = board::cb_move(&before, m, path);
        let _ = game.play(m);
        let claim = if result.score.is_win() || result.score.is_table_win() {
            CB_WIN
        } else if result.score.is_loss() || result.score.is_table_loss() {
            CB_LOSS
        } else if matches!(game.outcome(), Some(Outcome::Draw(_))) {
            CB_DRAW
        } else {
            CB_UNKNOWN
        };
        let text = summary(&before, m, result, note);
        let board = board::board(game.position());
        self.history = Some(game);
        Answer {
            result: claim,
            board,
            mv: Some(mv),
            text,
        }
    }
}

/// Polls `play_now` until the search is done, stopping it when the user says "play".
fn watch(
    play_now: &(dyn Fn() -> bool + Sync),
    signals: &Signals,
    done: &std::sync::atomic::AtomicBool,
) {
    while !done.load(Ordering::Relaxed) {
        if play_now() {
            signals.stop.store(true, Ordering::Relaxed);
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The book margin (hundredths of a man) for CheckerBoard's book setting.
pub(crate) fn book_margin(book: u8) -> i32 {
    match book {
        0 | 3 => 0,
        1 => 2 * dama_search::book::DEFAULT_MARGIN,
        _ => dama_search::book::DEFAULT_MARGIN,
    }
}

fn side(pos: Position) -> &'static str {
    match pos.turn() {
        dama_rules::Color::White => "White",
        dama_rules::Color::Black => "Black",
    }
}

/// The search limits for a request, and a note when the time given was out of range.
pub fn limits(req: &Request) -> (Limits, String) {
    if let Some(clock) = clock(req.info, req.moreinfo) {
        return (Limits::clock(clock), String::new());
    }
    let max = Limits::MAX_TIME.as_secs_f64();
    let (time, note) = if req.maxtime.is_nan() || req.maxtime <= 0.0 {
        (
            MIN_TIME,
            format!(
                " (time {} s given: {} s used)",
                req.maxtime,
                MIN_TIME.as_secs_f64()
            ),
        )
    } else if req.maxtime > max {
        (
            Limits::MAX_TIME,
            format!(" (time {} s given: capped at a year)", req.maxtime),
        )
    } else {
        (
            Duration::from_secs_f64(req.maxtime).max(MIN_TIME),
            String::new(),
        )
    };
    (Limits::move_time(time), note)
}

/// The incremental clock packed in `info` and `moreinfo`, if there is one.
fn clock(info: i32, moreinfo: i32) -> Option<Clock> {
    let unit = match (info >> INCR_TIME_SHIFT) & 3 {
        1 => Duration::from_millis(1),
        2 => Duration::from_millis(10),
        3 => Duration::from_millis(100),
        _ => return None,
    };
    let bits = moreinfo as u32;
    let remaining = unit * (bits >> 16);
    let increment = unit * (bits & 0xffff);
    Some(Clock {
        time: remaining.max(MIN_TIME),
        increment,
        moves_to_go: None,
    })
}

/// A score for the status line: `+0.35` in men, or `win in 12` / `loss in 12` plies.
fn score_text(score: Score) -> String {
    match score.plies_to_end() {
        Some(n) if score.is_win() => format!("win in {n}"),
        Some(n) if score.is_loss() => format!("loss in {n}"),
        _ if score.is_table_win() => "table win".into(),
        _ if score.is_table_loss() => "table loss".into(),
        _ => format!("{:+.2}", score.men()),
    }
}

/// A line in short PDN (`22-18`, `21x14`) from `pos`.
fn line_text(pos: &Position, line: &[Move]) -> String {
    let mut pos = *pos;
    let mut out = Vec::new();
    for &m in line.iter().take(12) {
        let sep = if m.is_capture() { 'x' } else { '-' };
        out.push(format!("{}{sep}{}", m.from(), m.to()));
        pos = pos.after(m);
    }
    out.join(" ")
}

fn progress(pos: &Position, info: &Info) -> String {
    format!(
        "dama: depth {}/{} score {} time {:.1}s nodes {} pv {}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.time.as_secs_f64(),
        info.nodes,
        line_text(pos, &info.pv)
    )
}

fn summary(pos: &Position, m: Move, result: &SearchResult, note: &str) -> String {
    if result.depth == 0 && result.nodes == 0 {
        return format!("dama: {} (book){note}", line_text(pos, &[m]));
    }
    let pv = if result.pv.first() == Some(&m) {
        line_text(pos, &result.pv)
    } else {
        line_text(pos, &[m])
    };
    format!(
        "dama: depth {}/{} score {} time {:.2}s nodes {} pv {pv}{note}",
        result.depth,
        result.seldepth,
        score_text(result.score),
        result.time.as_secs_f64(),
        result.nodes,
    )
}

/// The limits of a request giving only `maxtime` (for the tests).
#[cfg(test)]
fn time_of(maxtime: f64) -> Limits {
    limits(&Request {
        board: [[0; 8]; 8],
        color: 1,
        maxtime,
        info: 0,
        moreinfo: 0,
    })
    .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{CB_BLACK, CB_WHITE};
    use dama_rules::notation::fen;
    use dama_search::TimeControl;

    fn request(fen_text: &str, maxtime: f64) -> Request {
        let pos = fen::parse(fen_text).unwrap();
        Request {
            board: board::board(&pos),
            color: board::color_value(pos.turn()),
            maxtime,
            info: 0,
            moreinfo: 0,
        }
    }

    fn never() -> bool {
        false
    }

    fn play(session: &mut Session, req: &Request) -> Answer {
        session.get_move(req, &never, &mut |_| {})
    }

    #[test]
    fn times_out_of_range_are_bounded() {
        assert_eq!(time_of(0.0).time, TimeControl::MoveTime(MIN_TIME));
        assert_eq!(time_of(-3.0).time, TimeControl::MoveTime(MIN_TIME));
        assert_eq!(time_of(f64::NAN).time, TimeControl::MoveTime(MIN_TIME));
        assert_eq!(time_of(1e300).time, TimeControl::MoveTime(Limits::MAX_TIME));
        assert_eq!(
            time_of(f64::INFINITY).time,
            TimeControl::MoveTime(Limits::MAX_TIME)
        );
        assert_eq!(
            time_of(0.5).time,
            TimeControl::MoveTime(Duration::from_millis(500))
        );
    }

    #[test]
    fn incremental_clock_is_unpacked() {
        // Units of 0.01 s: 1000 left (10 s), 50 increment (0.5 s).
        let c = clock(2 << INCR_TIME_SHIFT, (1000 << 16) | 50).unwrap();
        assert_eq!(c.time, Duration::from_secs(10));
        assert_eq!(c.increment, Duration::from_millis(500));
        assert!(clock(CB_EXACT_TIME, 0).is_none());
    }

    #[test]
    fn only_capture_is_played_and_the_board_updated() {
        // White's man on 22 must take 18 (landing on 13); the answer's board shows it.
        let mut s = Session::new();
        let a = play(&mut s, &request("W:W22,29:B18,9", 0.05));
        let after = board::position(&a.board, dama_rules::Color::Black).unwrap();
        assert_eq!(after.piece_at(Square::new(18).unwrap()), None);
        let mv = a.mv.unwrap();
        assert_eq!(mv.jumps, 1);
        assert_eq!(board::number(mv.from), Some(22));
        assert_eq!(board::number(mv.del[0]), Some(18));
        assert!(a.text.starts_with("dama: "), "{}", a.text);
    }

    #[test]
    fn start_position_gets_an_opening_move() {
        let mut s = Session::new();
        let req = request("W:W21-32:B1-12", 0.05);
        let a = play(&mut s, &req);
        let after = board::position(&a.board, dama_rules::Color::Black).unwrap();
        let start = Game::new();
        assert!(start
            .legal_moves()
            .iter()
            .any(|&m| Position::start().after(m) == after));
    }

    #[test]
    fn refused_board_leaves_it_and_says_why() {
        let mut s = Session::new();
        let mut req = request("W:W22:B9", 0.05);
        req.board[0][0] = CB_WHITE | board::CB_MAN; // a white man on 1
        let a = play(&mut s, &req);
        assert_eq!(a.mv, None);
        assert_eq!(a.board, req.board);
        assert!(a.text.contains("promotion row"), "{}", a.text);
        req.color = 7;
        assert!(play(&mut s, &req).text.contains("colour 7"));
        req.board = [[0; 8]; 8];
        req.color = CB_BLACK;
        assert!(play(&mut s, &req).text.contains("no pieces"));
    }

    #[test]
    fn no_legal_move_is_a_loss_with_a_message() {
        let mut s = Session::new();
        // Black has no piece at all; then a black man on 28 blocked by White's on 31 and 32.
        for fen_text in ["B:W18:B", "B:W31,32:B28"] {
            let a = play(&mut s, &request(fen_text, 0.05));
            assert_eq!(a.result, CB_LOSS);
            assert!(
                a.text.contains("no legal move: Black has lost"),
                "{}",
                a.text
            );
            assert_eq!(a.mv, None);
        }
    }

    #[test]
    fn play_now_stops_a_long_search() {
        let mut s = Session::new();
        s.options.book = 0;
        let now = || true;
        let started = std::time::Instant::now();
        let a = s.get_move(&request("W:W21-32:B1-12", 3600.0), &now, &mut |_| {});
        assert!(a.mv.is_some());
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn gamehist_gives_the_game_for_the_next_move() {
        let mut s = Session::new();
        let r = crate::command::run(&mut s, "set gamehist W:WK22,30:BK3,10 22-18 3-7");
        assert!(r.handled, "{}", r.text);
        let a = play(&mut s, &request("W:WK18,30:BK7,10", 0.02));
        assert!(a.mv.is_some());
        // The two king moves sent, then the engine's: three plies without progress counted.
        let game = s.history.as_ref().unwrap();
        assert_eq!(game.moves().len(), 3);
        // A gamehist that does not end on the board sent is not used.
        let _ = crate::command::run(&mut s, "set gamehist W:WK22,30:BK3,10 22-18 3-7");
        let _ = play(&mut s, &request("W:WK22,30:BK3,10", 0.02));
        assert_eq!(s.history.as_ref().unwrap().moves().len(), 1);
    }

    #[test]
    fn history_follows_the_game_and_resets() {
        let mut s = Session::new();
        s.options.book = 0;
        let a = play(&mut s, &request("W:W21-32:B1-12", 0.02));
        // The opponent answers with its first legal move: the session extends its game.
        let after = board::position(&a.board, dama_rules::Color::Black).unwrap();
        let reply = after.legal_moves()[0];
        let next = after.after(reply);
        let req = Request {
            board: board::board(&next),
            color: CB_WHITE,
            maxtime: 0.02,
            info: 0,
            moreinfo: 0,
        };
        assert_eq!(s.game_for(next).moves().len(), 2);
        s.history = None;
        let _ = play(&mut s, &req);
        assert_eq!(s.history.as_ref().unwrap().moves().len(), 1);
        let mut reset = req.clone();
        reset.info = CB_RESET_MOVES;
        let _ = play(&mut s, &reset);
        assert_eq!(s.history.as_ref().unwrap().moves().len(), 1);
    }
}
