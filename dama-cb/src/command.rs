//! `enginecommand`: CheckerBoard's questions and settings, answered in a reply string.
//!
//! Every command gets a reply; the return value says whether dama handled it (1) or not (0),
//! as CheckerBoard expects of an engine.

use std::path::PathBuf;

use dama_rules::notation::fen;
use dama_rules::variant::Italian;
use dama_rules::{Color, Game, Position, Variant};
use dama_search::Level;

use crate::board;
use crate::session::{book_margin, Session};

/// CheckerBoard's game type number for Italian.
pub const GT_ITALIAN: u32 = 22;
/// The engine API version dama speaks.
pub const PROTOCOL_VERSION: u32 = 2;
/// The largest transposition table `set hashsize` accepts, in MiB.
pub const MAX_HASH_MIB: usize = 16_384;
/// The most search threads `set searchthreads` accepts.
pub const MAX_THREADS: usize = 64;

/// A command's reply and whether dama handled it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// 1 if handled, 0 if not (an unknown command or a value refused).
    pub handled: bool,
    /// The text for CheckerBoard.
    pub text: String,
}

fn ok(text: impl Into<String>) -> Reply {
    Reply {
        handled: true,
        text: text.into(),
    }
}

fn no(text: impl Into<String>) -> Reply {
    Reply {
        handled: false,
        text: text.into(),
    }
}

/// The engine's name as CheckerBoard shows it.
pub fn name() -> String {
    format!("dama {}", env!("CARGO_PKG_VERSION"))
}

const ABOUT: &str = "dama: an engine for Italian draughts (dama italiana)\n\
    open source, MIT or Apache-2.0\n\n\
    Options (Engine > Engine command): set level novice|easy|normal|strong|hard|max,\n\
    set hashsize MiB, set searchthreads N, set book 0..3, set contempt 0..100,\n\
    set seed N, set dbpath FOLDER, set enable_wld 0|1";

const KNOWN: &str = "name, about, get gametype|protocolversion|movelist, \
    set gamehist, get|set hashsize|searchthreads|book|level|contempt|seed|dbpath|enable_wld";

/// The room CheckerBoard gives most replies, NUL included: it reads `name`, `help` and the
/// paths of `get dbpath`, `get bookfile`, `get mtcpath` into buffers of 256 or `MAX_PATH`
/// (260) bytes, though the API names 1024.
pub const SHORT_REPLY_SIZE: usize = 256;
/// The room of the replies CheckerBoard reads into full buffers (`about`, `get movelist`).
pub const REPLY_SIZE: usize = 1024;

/// Answers `command`, the reply cut to the room CheckerBoard gives it.
pub fn run(session: &mut Session, command: &str) -> Reply {
    let reply = stateless(command).unwrap_or_else(|| with_state(session, command));
    fit(command, reply, room(command))
}

/// The room of `command`'s reply, NUL included.
pub fn room(command: &str) -> usize {
    let words: Vec<&str> = command.split_whitespace().take(2).collect();
    match words.as_slice() {
        ["about"] | ["get", "movelist"] => REPLY_SIZE,
        _ => SHORT_REPLY_SIZE,
    }
}

/// `command`'s `reply` cut to fit `room` bytes with its NUL. A value asked for with `get`
/// (a path, a move list) that does not fit whole is not handed back at all: cut, it would
/// say something else. Other texts are cut.
pub fn fit(command: &str, reply: Reply, room: usize) -> Reply {
    if reply.text.len() < room {
        return reply;
    }
    if reply.handled && command.split_whitespace().next() == Some("get") {
        return no("");
    }
    let mut len = room - 1;
    while !reply.text.is_char_boundary(len) {
        len -= 1;
    }
    Reply {
        handled: reply.handled,
        text: reply.text[..len].to_string(),
    }
}

/// The answer to a command that needs no session (so none waits for a search to end).
pub fn stateless(command: &str) -> Option<Reply> {
    let words: Vec<&str> = command.split_whitespace().collect();
    Some(match words.as_slice() {
        ["name"] => ok(name()),
        ["about"] => ok(ABOUT),
        ["help"] => no("dama has no help file: see docs/checkerboard.md of its sources"),
        ["get", "gametype"] => ok(GT_ITALIAN.to_string()),
        ["get", "protocolversion"] => ok(PROTOCOL_VERSION.to_string()),
        ["get", "movelist", rest @ ..] => movelist(&rest.join(" ")),
        _ => return None,
    })
}

fn with_state(session: &mut Session, command: &str) -> Reply {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        // Proves the boundary: the panic must come back as a reply, never reach the caller.
        ["selftest", "panic"] => panic!("self-test panic, caught at the DLL's boundary"),
        ["set", "gamehist", rest @ ..] => gamehist(session, rest),
        ["get", option] => get(session, option),
        ["set", option, value @ ..] if !value.is_empty() => set(session, option, &value.join(" ")),
        _ => no(format!(
            "unknown command {}: dama knows {KNOWN}",
            dama_rules::quote(command)
        )),
    }
}

fn get(session: &Session, option: &str) -> Reply {
    let o = &session.options;
    match option {
        "hashsize" => ok(o.hash_mib.to_string()),
        "searchthreads" => ok(o.threads.to_string()),
        "book" => ok(o.book.to_string()),
        "level" => ok(o.level.map_or("max", Level::name)),
        "contempt" => ok(o.contempt.to_string()),
        "seed" => ok(o.seed.to_string()),
        "enable_wld" => ok(u8::from(o.tables).to_string()),
        "dbpath" => ok(session
            .tables_dir()
            .map_or(String::new(), |d| d.display().to_string())),
        other => no(format!("unknown option {}", dama_rules::quote(other))),
    }
}

fn set(session: &mut Session, option: &str, value: &str) -> Reply {
    match option {
        "hashsize" => set_hash(session, value),
        "searchthreads" => number(value, 1, MAX_THREADS).map_or_else(no, |n| {
            session.options.threads = n;
            session.engine_mut().set_threads(n);
            ok(format!("searchthreads set to {n}"))
        }),
        "book" => number(value, 0, 3).map_or_else(no, |n| {
            session.options.book = n as u8;
            session.engine_mut().set_book_margin(book_margin(n as u8));
            ok(format!("book set to {n}"))
        }),
        "level" => set_level(session, value),
        "contempt" => number(value, 0, 100).map_or_else(no, |n| {
            session.options.contempt = n as u8;
            session.engine_mut().set_contempt(n as u8);
            ok(format!("contempt set to {n}"))
        }),
        "seed" => match value.trim().parse::<u64>() {
            Ok(n) => {
                session.options.seed = n;
                session.reseed();
                ok(format!("seed set to {n}"))
            }
            Err(_) => no(format!(
                "seed {} is not a number: expected 0..2^64",
                dama_rules::quote(value)
            )),
        },
        "enable_wld" => number(value, 0, 1).map_or_else(no, |n| {
            session.options.tables = n == 1;
            session.reopen_tables();
            ok(format!(
                "endgame tables {}",
                if n == 1 { "on" } else { "off" }
            ))
        }),
        "check_wld_dir" => ok(check_dir(value.trim())),
        "dbpath" => {
            session.options.tables_dir = Some(PathBuf::from(value.trim()));
            session.reopen_tables();
            ok(format!("endgame tables looked for in {}", value.trim()))
        }
        other => no(format!(
            "option {} is not one of dama's: it knows {KNOWN}",
            dama_rules::quote(other)
        )),
    }
}

/// CheckerBoard's "check" button for the tables folder: what dama finds there.
fn check_dir(dir: &str) -> String {
    let italian = PathBuf::from(dir).join(Variant::Italian.name());
    let files = std::fs::read_dir(&italian).map_or(0, |entries| entries.flatten().count());
    if files > 0 {
        format!("{dir}: {files} files of dama's Italian endgame tables")
    } else {
        format!(
            "{dir} holds no dama tables (expected a folder \"italian\" inside): build them with \
             dama.exe egtb build --pieces 5 --dir \"{dir}\""
        )
    }
}

fn set_hash(session: &mut Session, value: &str) -> Reply {
    let mib = match number(value, 1, MAX_HASH_MIB) {
        Ok(n) => n,
        Err(e) => return no(e),
    };
    match session.engine_mut().try_set_hash(mib) {
        Ok(()) => {
            session.options.hash_mib = mib;
            ok(format!("hashsize set to {mib} MiB"))
        }
        Err(e) => no(format!(
            "{e}; hashsize stays {} MiB",
            session.options.hash_mib
        )),
    }
}

fn set_level(session: &mut Session, value: &str) -> Reply {
    let v = value.trim().to_ascii_lowercase();
    if v == "max" || v == "full" {
        session.options.level = None;
        return ok("level set to max: the engine's full strength for the time given");
    }
    match v.parse::<Level>() {
        Ok(level) => {
            session.options.level = Some(level);
            ok(format!("level set to {level}"))
        }
        Err(e) => no(format!("{e}, or max")),
    }
}

/// `value` as a whole number in `lo..=hi`.
fn number(value: &str, lo: usize, hi: usize) -> Result<usize, String> {
    match value.trim().parse::<usize>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!(
            "{} is not a whole number in {lo}..={hi}",
            dama_rules::quote(value)
        )),
    }
}

/// Reads CheckerBoard's FEN (`B:W21,22:BK5`) into an unvalidated setup's position, allowing
/// what CheckerBoard's own probe sends (`B:W1:B`: a side to move with no pieces).
fn cb_fen(text: &str) -> Result<Position, String> {
    let setup = fen::parse_setup(text.trim()).map_err(|e| e.to_string())?;
    Position::from_setup(&setup).map_err(|e| e.to_string())
}

/// `get movelist FEN`: every legal move with its landing and captured squares.
fn movelist(text: &str) -> Reply {
    let setup = match fen::parse_setup(text.trim()) {
        Ok(s) => s,
        Err(e) => return no(e.to_string()),
    };
    // A side to move with no pieces has no move, whatever else the board holds (CheckerBoard
    // asks "B:W1:B" to learn whether the engine answers this command).
    let mover = setup.board.iter().flatten().any(|p| p.color == setup.turn);
    if !mover {
        return ok("movelist 0");
    }
    let pos = match Position::from_setup(&setup) {
        Ok(p) => p,
        Err(e) => return no(e.to_string()),
    };
    let moves = Game::from_position(Variant::Italian, pos).sorted_legal_moves();
    let mut out = format!("movelist {}", moves.len());
    for (i, &m) in moves.iter().enumerate() {
        out.push(if i == 0 { ',' } else { ';' });
        out.push_str(&move_fields(&pos, m));
    }
    if !moves.is_empty() {
        out.push(';');
    }
    ok(out)
}

fn move_fields(pos: &Position, m: dama_rules::Move) -> String {
    let paths = pos.capture_paths::<Italian>(m);
    let path = paths.first().map_or(&[][..], Vec::as_slice);
    let cm = board::cb_move(pos, m, path);
    let num = |c| board::number(c).unwrap_or(0).to_string();
    let mut fields = vec![
        cm.jumps.to_string(),
        cm.oldpiece.to_string(),
        cm.newpiece.to_string(),
        num(cm.from),
        num(cm.to),
    ];
    for i in 0..path.len().min(12) {
        let landed = if i + 1 < 12 { cm.path[i + 1] } else { cm.to };
        fields.extend([num(landed), num(cm.del[i]), cm.delpiece[i].to_string()]);
    }
    fields.join(",")
}

/// `set gamehist FEN MOVE...`: the game since its last capture or man move, kept for the
/// next `getmove`.
fn gamehist(session: &mut Session, words: &[&str]) -> Reply {
    let Some((fen_text, moves)) = words.split_first() else {
        session.set_gamehist(None);
        return no("set gamehist needs a FEN and the moves after it");
    };
    let pos = match cb_fen(fen_text) {
        Ok(p) => p,
        Err(e) => {
            session.set_gamehist(None);
            return no(format!("gamehist refused: {e}"));
        }
    };
    let mut game = Game::from_position(Variant::Italian, pos);
    for text in moves {
        if let Err(e) = game.play_text(text) {
            session.set_gamehist(None);
            return no(format!(
                "gamehist refused at {}: {e}",
                dama_rules::quote(text)
            ));
        }
    }
    let n = game.moves().len();
    session.set_gamehist(Some(game));
    ok(format!("gamehist set: {n} moves"))
}

/// `islegal`: the legal move from `from` to `to` (square numbers) on `board`, if any.
pub fn islegal(
    board_cells: &board::CbBoard,
    color: i32,
    from: i32,
    to: i32,
) -> Option<board::CbMove> {
    let turn: Color = board::color_of(color).ok()?;
    let pos = board::position(board_cells, turn).ok()?;
    let game = Game::from_position(Variant::Italian, pos);
    let m = game
        .sorted_legal_moves()
        .iter()
        .copied()
        .find(|m| i32::from(m.from().number()) == from && i32::from(m.to().number()) == to)?;
    let paths = pos.capture_paths::<Italian>(m);
    let path = paths.first().map_or(&[][..], Vec::as_slice);
    Some(board::cb_move(&pos, m, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(s: &mut Session, c: &str) -> Reply {
        run(s, c)
    }

    #[test]
    fn identity_questions() {
        let mut s = Session::new();
        assert_eq!(ask(&mut s, "get gametype"), ok("22"));
        assert_eq!(ask(&mut s, "get protocolversion"), ok("2"));
        assert!(ask(&mut s, "name").text.starts_with("dama "));
        assert!(ask(&mut s, "about").text.contains("Italian"));
        assert!(!ask(&mut s, "help").handled);
    }

    #[test]
    fn movelist_answers_checkerboards_examples() {
        let mut s = Session::new();
        assert_eq!(ask(&mut s, "get movelist B:W1:B"), ok("movelist 0"));
        assert_eq!(
            ask(&mut s, "get movelist B:W31:B3"),
            ok("movelist 2,0,6,6,3,6;0,6,6,3,7;")
        );
        let r = ask(&mut s, "get movelist B:W11,13,19,21:B6,9");
        assert!(r.text.starts_with("movelist 2,"), "{}", r.text);
        assert!(r.text.contains("2,6,6,9,25,18,13,5,25,21,5;"), "{}", r.text);
        assert!(r.text.contains("2,6,6,6,22,15,11,5,22,19,5;"), "{}", r.text);
    }

    #[test]
    fn options_are_set_and_read_back() {
        let mut s = Session::new();
        assert!(ask(&mut s, "set hashsize 8").handled);
        assert_eq!(ask(&mut s, "get hashsize").text, "8");
        assert!(ask(&mut s, "set level easy").handled);
        assert_eq!(ask(&mut s, "get level").text, "easy");
        assert!(ask(&mut s, "set level max").handled);
        assert_eq!(ask(&mut s, "get level").text, "max");
        assert!(ask(&mut s, "set book 0").handled);
        assert_eq!(ask(&mut s, "get book").text, "0");
        assert!(ask(&mut s, "set searchthreads 2").handled);
        assert!(ask(&mut s, "set dbpath C:\\tables").handled);
        assert_eq!(ask(&mut s, "get dbpath").text, "C:\\tables");
    }

    #[test]
    fn bad_values_and_unknown_commands_are_refused_with_a_reason() {
        let mut s = Session::new();
        let r = ask(&mut s, "set hashsize lots");
        assert!(!r.handled && r.text.contains("lots"), "{}", r.text);
        assert!(!ask(&mut s, "set hashsize 0").handled);
        assert!(ask(&mut s, "set level grandmaster")
            .text
            .contains("grandmaster"));
        let r = ask(&mut s, "fly me to the moon");
        assert!(
            !r.handled && r.text.contains("unknown command"),
            "{}",
            r.text
        );
        assert!(!ask(&mut s, "").handled);
        assert!(!ask(&mut s, "get colour").handled);
        assert!(!ask(&mut s, "set allscores 1").handled);
    }

    #[test]
    fn get_replies_fit_checkerboards_path_buffers() {
        let mut s = Session::new();
        let long = format!("set dbpath C:\\{}", "d".repeat(300));
        assert!(ask(&mut s, &long).handled);
        assert_eq!(ask(&mut s, "get dbpath"), no(""));
        let r = ask(&mut s, "get bookfile");
        assert!(!r.handled && r.text.len() < SHORT_REPLY_SIZE, "{}", r.text);
        let r = ask(&mut s, &format!("set {}", "x".repeat(400)));
        assert!(!r.handled && r.text.len() < SHORT_REPLY_SIZE, "{}", r.text);
        assert!(ask(&mut s, "about").text.len() < REPLY_SIZE);
        let r = ask(&mut s, "set check_wld_dir /no/such/folder");
        assert!(r.handled && r.text.contains("egtb build"), "{}", r.text);
    }

    #[test]
    fn gamehist_is_read_and_refused_when_wrong() {
        let mut s = Session::new();
        let r = ask(&mut s, "set gamehist W:WK22,30:BK3,10 22-18 3-7");
        assert_eq!(r, ok("gamehist set: 2 moves"));
        let r = ask(&mut s, "set gamehist W:WK22:BK3 22-5");
        assert!(!r.handled && r.text.contains("22-5"), "{}", r.text);
    }

    #[test]
    fn islegal_finds_a_capture() {
        let pos = fen::parse("W:W22,29:B18,9").unwrap();
        let b = board::board(&pos);
        let m = islegal(&b, board::CB_WHITE, 22, 13).unwrap();
        assert_eq!(m.jumps, 1);
        assert_eq!(islegal(&b, board::CB_WHITE, 29, 25), None);
    }
}
