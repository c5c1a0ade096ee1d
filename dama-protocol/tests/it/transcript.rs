//! Transcript tests: the engine loop on in-memory input and output, line by line, including
//! bad input and commands that arrive during a search.

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dama_protocol::lexer::lex;
use dama_rules::notation::hub;
use dama_rules::Game;

/// Input the test writes line by line; dropping the sender is the end of input.
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            match self.rx.recv() {
                Ok(data) => {
                    self.buf = data;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Output split into lines for the test.
struct ChannelWriter {
    tx: Sender<String>,
    partial: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(data);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i]).to_string();
            let _ = self.tx.send(text);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Session {
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<String>,
    engine: Option<JoinHandle<Result<(), dama_protocol::Error>>>,
}

const WAIT: Duration = Duration::from_secs(30);

impl Session {
    fn start() -> Session {
        let (in_tx, in_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        let reader = ChannelReader {
            rx: in_rx,
            buf: Vec::new(),
            at: 0,
        };
        let writer = ChannelWriter {
            tx: out_tx,
            partial: Vec::new(),
        };
        let engine = std::thread::spawn(move || dama_protocol::run(reader, writer));
        Session {
            input: Some(in_tx),
            output: out_rx,
            engine: Some(engine),
        }
    }

    /// A session after `hub` and `init`.
    fn ready() -> Session {
        let s = Session::start();
        s.send("hub");
        s.until("wait");
        // The kings-only tables are built at `init` in the test of that (here, on first need).
        s.send("set-param name=egtb-init value=false");
        s.send("init");
        s.expect("ready");
        // Only the in-memory tables: the default directory is the user's cache, where the
        // engine would build the 5-piece tables.
        s.send(r#"set-param name=egtb-dir value="""#);
        s
    }

    fn send(&self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    fn send_bytes(&self, data: &[u8]) {
        self.input
            .as_ref()
            .expect("input open")
            .send(data.to_vec())
            .expect("engine reads");
    }

    fn recv(&self) -> String {
        match self.output.recv_timeout(WAIT) {
            Ok(line) => line,
            Err(e) => panic!("no output line: {e:?}"),
        }
    }

    /// The next line, which must start with `prefix`.
    fn expect(&self, prefix: &str) -> String {
        let line = self.recv();
        assert!(
            line.starts_with(prefix),
            "expected {prefix:?}, got {line:?}"
        );
        line
    }

    /// Lines up to and including the first starting with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.recv();
            let last = line.starts_with(prefix);
            lines.push(line);
            if last {
                return lines;
            }
        }
    }

    /// Asserts that nothing is printed for `d`, except lines starting with `allowed`.
    fn quiet_for(&self, d: Duration, allowed: &str) {
        let end = Instant::now() + d;
        loop {
            match self
                .output
                .recv_timeout(end.saturating_duration_since(Instant::now()))
            {
                Ok(line) => assert!(line.starts_with(allowed), "unexpected {line:?}"),
                Err(RecvTimeoutError::Timeout) => return,
                Err(e) => panic!("{e:?}"),
            }
        }
    }

    /// Closes the input; the engine must end, and its remaining output is returned.
    fn close(mut self) -> Vec<String> {
        self.input = None;
        let handle = self.engine.take().expect("running");
        handle.join().expect("no panic").expect("run ends well");
        self.output.try_iter().collect()
    }
}

/// The move of a `done` line.
fn done_move(line: &str) -> Option<String> {
    lex(line)
        .unwrap()
        .unwrap()
        .value("move")
        .map(str::to_string)
}

fn assert_done_with_legal_move(line: &str, game: &Game) {
    let m = done_move(line).unwrap_or_else(|| panic!("no move in {line:?}"));
    let mut g = game.clone();
    g.play_text(&m)
        .unwrap_or_else(|e| panic!("{m} is not legal: {e}"));
}

fn check_info(line: &str) {
    let lexed = lex(line).unwrap().unwrap();
    assert_eq!(lexed.command, "info");
    for t in &lexed.tokens {
        let v = t
            .value
            .as_deref()
            .unwrap_or_else(|| panic!("bare token in {line:?}"));
        match t.name.as_str() {
            "depth" | "nodes" | "nps" | "multipv" => {
                v.parse::<u64>().unwrap();
            }
            "score" | "time" => {
                v.parse::<f64>().unwrap();
            }
            "pv" => assert!(!v.is_empty()),
            other => panic!("unexpected key {other}"),
        }
    }
}

/// Sends `line` and returns the `done` line that answers it, which must come within `limit`.
fn done_within(s: &Session, line: &str, limit: Duration) -> String {
    let t = Instant::now();
    s.send(line);
    let done = s.until("done").pop().unwrap();
    assert!(t.elapsed() < limit, "{line}: {:?}", t.elapsed());
    done
}

#[test]
fn hub_declares_id_parameters_then_wait() {
    let s = Session::start();
    s.send("hub");
    let lines = s.until("wait");
    assert!(lines[0].starts_with("id name=dama version="));
    let params: Vec<&String> = lines.iter().filter(|l| l.starts_with("param ")).collect();
    let names: Vec<String> = params
        .iter()
        .map(|l| lex(l).unwrap().unwrap().value("name").unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "variant",
            "level",
            "hash",
            "threads",
            "seed",
            "multipv",
            "egtb-dir",
            "egtb-init",
            "book",
            "book-margin",
            "contempt",
            "book-file",
            "eval-file"
        ]
    );
    for i in [7, 8] {
        let p = lex(params[i]).unwrap().unwrap();
        assert_eq!(p.value("type"), Some("bool"));
        assert_eq!(p.value("value"), Some("true"));
    }
    let egtb = lex(params[6]).unwrap().unwrap();
    assert_eq!(egtb.value("type"), Some("string"));
    let variant = lex(params[0]).unwrap().unwrap();
    assert_eq!(variant.value("type"), Some("enum"));
    let values: Vec<&str> = variant.value("values").unwrap().split(' ').collect();
    let all: Vec<&str> = dama_rules::Variant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(values, all);
    let level = lex(params[1]).unwrap().unwrap();
    assert_eq!(level.value("value"), Some("hard"));
    assert_eq!(
        level.value("values"),
        Some("novice easy normal strong hard")
    );
    for p in &params[2..6] {
        let p = lex(p).unwrap().unwrap();
        assert_eq!(p.value("type"), Some("int"));
        assert!(p.value("min").is_some() && p.value("max").is_some());
    }
    // Every token of every line is key=value (pydraughts splits them so).
    for l in &lines[..lines.len() - 1] {
        assert!(lex(l)
            .unwrap()
            .unwrap()
            .tokens
            .iter()
            .all(|t| t.value.is_some()));
    }
    s.send("set-param name=egtb-init value=false");
    s.send("init");
    s.expect("ready");
    s.send("ping");
    s.expect("pong");
    assert!(s.close().is_empty());
}

#[test]
fn lines_after_init_are_answered_after_ready() {
    // With `egtb-init` (the default) `ready` waits for the kings-only tables (here they may be
    // built already, by another test: the tables are the process's); a line sent meanwhile
    // is answered after it, as by an engine reading one line at a time.
    let s = Session::start();
    s.send("hub");
    s.until("wait");
    s.send(r#"set-param name=egtb-dir value="""#);
    s.send("init");
    s.send("ping");
    s.send("set-param name=bogus value=1");
    s.send("ping");
    s.expect("ready");
    s.expect("pong");
    s.expect("error message=");
    s.expect("pong");
    s.send("init");
    s.send("init");
    s.send("ping");
    s.send("quit");
    s.expect("ready");
    s.expect("ready");
    s.expect("pong");
    assert!(s.close().is_empty());
}

#[test]
fn set_param_accepts_good_values_refuses_bad_values() {
    let s = Session::ready();
    for ok in [
        "set-param name=hash value=2",
        "set-param name=threads value=2",
        "set-param name=seed value=7",
        "set-param name=multipv value=2",
        "set-param name=level value=easy",
        "set-param name=level value=5",
        "set-param name=variant value=spanish",
        "set-param name=book value=true",
        "set-param name=egtb-init value=off",
    ] {
        s.send(ok);
    }
    s.send("ping");
    s.expect("pong");
    for (bad, quoted) in [
        ("set-param name=hash value=0", "'0'"),
        ("set-param name=hash value=huge", "'huge'"),
        ("set-param name=threads value=-1", "'-1'"),
        ("set-param name=level value=expert", "'expert'"),
        ("set-param name=variant value=frisian", "'frisian'"),
        ("set-param name=multipv value=1.5", "'1.5'"),
        ("set-param name=hash", "missing value"),
        ("set-param name=egtb-init value=maybe", "'maybe'"),
    ] {
        s.send(bad);
        let e = s.expect("error message=\"");
        assert!(e.contains(quoted), "{e}");
    }
    s.close();
}

#[test]
fn set_param_of_an_unknown_name_is_ignored_with_an_error_naming_the_known_ones() {
    let s = Session::start();
    s.send("hub");
    let declared: Vec<String> = s
        .until("wait")
        .iter()
        .filter_map(|l| l.strip_prefix("param name="))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(declared.len(), 13, "{declared:?}");
    for (line, quoted) in [
        ("set-param name=bogus value=1", "'bogus'"),
        (
            "set-param name=\"some thing\" value=\"a b\"",
            "'some thing'",
        ),
    ] {
        s.send(line);
        let e = s.expect("error message=\"set-param: unknown parameter");
        assert!(e.contains(quoted), "{e}");
        for name in &declared {
            assert!(e.contains(name.as_str()), "{name} missing: {e}");
        }
    }
    // Ignored: the engine goes on as before.
    s.send("set-param name=egtb-init value=false");
    s.send("init");
    s.expect("ready");
    s.close();
}

#[test]
fn go_in_a_finished_game_where_a_side_has_no_piece_gets_error_and_a_bare_done() {
    let s = Session::ready();
    // Black has no piece: the game is over whoever is to move.
    for fen in ["W:W21,22:B", "B:W21,22:B", "W:W:B1,2"] {
        let pos = dama_rules::notation::fen::parse(fen).unwrap();
        s.send(&format!("pos pos={}", hub::write(&pos)));
        s.send("level depth=2");
        s.send("go think");
        let e = s.expect("error message=\"go: no legal move");
        assert!(e.contains("has no piece left"), "{fen}: {e}");
        assert_eq!(s.recv(), "done", "{fen}");
    }
    s.close();
}

#[test]
fn pos_with_moves_is_searched() {
    let s = Session::ready();
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("level depth=3");
    s.send("go think");
    let lines = s.until("done");
    let done = lines.last().unwrap();
    // A capture is compulsory and there is only one.
    assert_eq!(done_move(done).as_deref(), Some("18x11x14"));
    for l in &lines[..lines.len() - 1] {
        check_info(l);
    }
    s.close();
}

#[test]
fn pos_from_a_hub_string_and_the_side_to_move() {
    let s = Session::ready();
    // White king on 22 and man on 29; black men on 18 and 9: 22x13x18 is the shot.
    let pos = dama_rules::notation::fen::parse("W:W22,29:B18,9").unwrap();
    s.send(&format!("pos pos={}", hub::write(&pos)));
    s.send("level depth=6");
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("22x13x18"));
    s.close();
}

#[test]
fn bad_positions_and_moves_are_explained_and_leave_no_position() {
    let s = Session::ready();
    // The position in force: White must capture 18x11x14.
    s.send(r#"pos start moves="22-18 11-14""#);
    let cases: [(&str, &[&str]); 9] = [
        ("pos pos=Wbbbb", &["33 characters", "Wbbbb"]),
        (
            "pos pos=Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww",
            &["side to move 'X'"],
        ),
        (
            "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwz",
            &["square 32 has 'z'"],
        ),
        (
            r#"pos start moves="22-18 11-15 18-22""#,
            &["move 3 of 3", "18-22"],
        ),
        (
            r#"pos start moves="22-18 99-14""#,
            &["move 2 of 2", "not a move"],
        ),
        (
            r#"pos start moves="22-18 11-14 21-17""#,
            &["move 3 of 3", "21-17", "compulsory"],
        ),
        (
            r#"pos start moves="22-18 11-14 18x11x15""#,
            &["move 3 of 3", "18x11x15"],
        ),
        ("pos moves=22-18", &["pos: missing pos"]),
        (r#"pos start moves="22-18"#, &["no closing"]),
    ];
    for (line, wanted) in cases {
        s.send(line);
        let e = s.expect("error message=\"");
        for w in wanted {
            assert!(e.contains(w), "{line}: {e} lacks {w}");
        }
    }
    // After a refused pos there is nothing to search, until a valid pos.
    s.send("level depth=2");
    s.send("go think");
    s.expect("error message=\"go: no position to search");
    assert_eq!(s.recv(), "done");
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("18x11x14"));
    s.close();
}

#[test]
fn go_after_a_refused_pos_gets_an_error_until_a_valid_position_arrives() {
    let s = Session::ready();
    s.send("level depth=2");
    s.send(r#"pos start moves="22-18""#);
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    assert!(done_move(&done).is_some(), "{done}");
    // The position before is no answer to a refused one, however it was refused.
    let man_on_1 = format!("pos pos=Bw{}", "e".repeat(31));
    for refused in [
        "pos pos=garbage",
        "pos start moves=\"22-18 22-18\"",
        &man_on_1,
    ] {
        s.send(refused);
        s.expect("error message=\"pos");
        for _ in 0..2 {
            s.send("go think");
            let e = s.expect("error message=\"go: no position to search");
            assert!(e.contains("the last pos was refused"), "{e}");
            assert_eq!(s.recv(), "done");
        }
        s.send("go analyze");
        s.expect("error message=\"go: no position to search");
        assert_eq!(s.recv(), "done");
    }
    // new-game is a valid position (the start), and so is a new variant's start.
    s.send("pos pos=garbage");
    s.expect("error");
    s.send("new-game");
    assert_done_with_legal_move(&done_within(&s, "go think", WAIT), &Game::new());
    s.send("pos pos=garbage");
    s.expect("error");
    s.send("set-param name=variant value=spanish");
    assert!(done_move(&done_within(&s, "go think", WAIT)).is_some());
    s.send("set-param name=variant value=italian");
    s.send("pos pos=garbage");
    s.expect("error");
    s.send("pos start");
    assert_done_with_legal_move(&done_within(&s, "go think", WAIT), &Game::new());
    s.close();
}

#[test]
fn ambiguous_capture_is_reported_with_its_candidates() {
    // The man on 18 takes two men landing on 2 by two routes: "18x2" names both.
    let pos = dama_rules::notation::fen::parse("W:W18:B5,6,13,14").unwrap();
    let s = Session::ready();
    s.send(&format!("pos pos={} moves=\"18x2\"", hub::write(&pos)));
    let e = s.expect("error message=\"");
    assert!(e.contains("move 1 of 1"), "{e}");
    assert!(e.contains("ambiguous"), "{e}");
    assert!(e.contains("18x2x5x13") && e.contains("18x2x6x14"), "{e}");
    s.send(&format!("pos pos={} moves=\"18x2x14x6\"", hub::write(&pos)));
    s.send("ping");
    s.expect("pong");
    s.close();
}

#[test]
fn every_level_form_is_accepted_and_bad_ones_refused() {
    let s = Session::ready();
    for ok in [
        "level depth=3",
        "level nodes=2000",
        "level move-time=0.05",
        "level time=0.5",
        "level time=10 inc=0.1",
        "level moves=20 time=30 inc=1",
        "level time=-2.5 inc=0.05",
        "level infinite",
        "level depth=4 nodes=100000",
    ] {
        s.send(ok);
    }
    s.send("ping");
    s.expect("pong");
    for bad in [
        "level",
        "level depth=-1",
        "level nodes=lots",
        "level time=soon",
        "level move-time=",
    ] {
        s.send(bad);
        s.expect("error message=\"level");
    }
    s.close();
}

#[test]
fn a_negative_clock_still_gets_a_quick_legal_move() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level time=-1.5 inc=0");
    let done = done_within(&s, "go think", Duration::from_secs(2));
    assert_done_with_legal_move(&done, &Game::new());
    s.close();
}

#[test]
fn go_without_a_level_thinks_about_a_second() {
    let s = Session::ready();
    // Out of the opening book (the start position is in it, and answered at once).
    s.send("set-param name=book value=false");
    s.send("pos start");
    let t = Instant::now();
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    let took = t.elapsed();
    assert!(
        took > Duration::from_millis(500) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert_done_with_legal_move(&done, &Game::new());
    s.close();
}

#[test]
fn go_without_a_legal_move_gets_error_and_a_bare_done() {
    let s = Session::ready();
    // White to move with no piece able to move: black men block the lone white man on 29.
    let pos = dama_rules::notation::fen::parse("W:W29:B25,26,21,22").unwrap();
    let game = Game::from_position(dama_rules::Variant::Italian, pos);
    assert!(game.legal_moves().is_empty(), "{:?}", game.legal_moves());
    s.send(&format!("pos pos={}", hub::write(&pos)));
    s.send("go think");
    s.expect("error message=\"go: no legal move");
    assert_eq!(s.recv(), "done");
    s.close();
}

#[test]
fn unreadable_go_still_gets_done() {
    let s = Session::ready();
    s.send("go sideways");
    s.expect("error message=\"go:");
    assert_eq!(s.recv(), "done");
    s.close();
}

#[test]
fn garbage_unknown_commands_and_long_lines_get_errors() {
    let s = Session::ready();
    s.send("fly me to the moon");
    s.expect("error message=\"unknown command 'fly'");
    s.send_bytes(b"\xff\xfe\x00garbage\n");
    s.expect("error message=\"unknown command");
    s.send("ping =1");
    s.expect("error message=\"malformed line");
    let mut long = vec![b'x'; 200_000];
    long.push(b'\n');
    s.send_bytes(&long);
    let e = s.expect("error message=\"line of 200000 bytes refused");
    assert!(e.len() < 200);
    s.send("");
    s.send("   ");
    s.send("ping");
    s.expect("pong");
    s.close();
}

#[test]
fn analysis_streams_info_and_answers_only_after_stop() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level depth=1");
    s.send("go analyze");
    // Info lines arrive; no done however long the analysis runs.
    let first = s.expect("info ");
    check_info(&first);
    s.quiet_for(Duration::from_millis(300), "info ");
    s.send("ping");
    s.until("pong");
    let done = done_within(&s, "stop", Duration::from_millis(500));
    assert_done_with_legal_move(&done, &Game::new());
    s.close();
}

#[test]
fn infinite_level_holds_done_even_when_the_search_ends_by_itself() {
    let s = Session::ready();
    // One legal move: the search ends at once, but `done` waits for `stop`.
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("level infinite");
    s.send("go think");
    s.quiet_for(Duration::from_millis(200), "info ");
    s.send("stop");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("18x11x14"));
    s.close();
}

#[test]
fn ponder_waits_for_ponder_hit_then_the_clock_applies() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level move-time=0.1");
    s.send("go ponder");
    // Far past the move time: still pondering.
    s.quiet_for(Duration::from_millis(400), "info ");
    s.send("ping");
    s.until("pong");
    // The move time counts from the search's start: it is over, the answer comes at once.
    let done = done_within(&s, "ponder-hit", Duration::from_millis(500));
    assert_done_with_legal_move(&done, &Game::new());
    s.close();
}

#[test]
fn ponder_that_ends_by_itself_answers_at_ponder_hit() {
    let s = Session::ready();
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("level depth=2");
    s.send("go ponder");
    s.quiet_for(Duration::from_millis(200), "info ");
    s.send("ponder-hit");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("18x11x14"));
    s.close();
}

#[test]
fn stop_ends_a_ponder_search() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level time=60");
    s.send("go ponder");
    std::thread::sleep(Duration::from_millis(100));
    s.send("stop");
    let done = s.until("done").pop().unwrap();
    assert_done_with_legal_move(&done, &Game::new());
    // A stray stop or ponder-hit without a search does nothing.
    s.send("stop");
    s.send("ponder-hit");
    s.send("ping");
    s.expect("pong");
    s.close();
}

#[test]
fn ping_is_answered_during_a_search() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level infinite");
    s.send("go think");
    std::thread::sleep(Duration::from_millis(50));
    for _ in 0..3 {
        let t = Instant::now();
        s.send("ping");
        s.until("pong");
        assert!(
            t.elapsed() < Duration::from_millis(200),
            "{:?}",
            t.elapsed()
        );
    }
    s.send("stop");
    s.until("done");
    s.close();
}

#[test]
fn commands_during_a_search_apply_to_the_next_one() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level infinite");
    s.send("go think");
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("level depth=2");
    s.send("set-param name=hash value=4");
    s.send("bogus");
    s.expect_skipping_info("error message=\"unknown command");
    s.send("stop");
    let done = s.until("done").pop().unwrap();
    // The running search was on the start position.
    assert_done_with_legal_move(&done, &Game::new());
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("18x11x14"));
    s.close();
}

impl Session {
    fn expect_skipping_info(&self, prefix: &str) -> String {
        loop {
            let line = self.recv();
            if !line.starts_with("info ") {
                assert!(
                    line.starts_with(prefix),
                    "expected {prefix:?}, got {line:?}"
                );
                return line;
            }
        }
    }
}

#[test]
fn go_during_a_search_answers_both_in_order() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level infinite");
    s.send("go analyze");
    s.send("go think");
    s.send("go think");
    // The analysis is stopped by the next go, which is stopped by the one after; the last
    // one is infinite and waits for stop.
    let mut dones = 0;
    while dones < 2 {
        let line = s.recv();
        if line.starts_with("done") {
            assert_done_with_legal_move(&line, &Game::new());
            dones += 1;
        }
    }
    s.quiet_for(Duration::from_millis(100), "info ");
    s.send("stop");
    s.until("done");
    s.close();
}

#[test]
fn stop_sent_before_a_queued_go_starts_still_ends_it() {
    // Found by the torture test: `go` during an analysis queues the new search behind the
    // running one, and a `stop` that came before the running one had answered was spent on
    // it, so the queued analysis then waited for a `stop` the GUI had already sent: its
    // `done` never came.
    let s = Session::ready();
    s.send("pos start");
    s.send("go analyze");
    s.send("go analyze");
    s.send("stop");
    let mut dones = 0;
    while dones < 2 {
        dones += usize::from(s.recv().starts_with("done"));
    }
    s.close();
}

#[test]
fn ponder_hit_sent_before_a_queued_ponder_starts_applies_to_it() {
    // The same for `ponder-hit`: it is for the search the GUI asked for last.
    let s = Session::ready();
    s.send("pos start");
    // Time limits wait for `ponder-hit`: the first search is still running when the second
    // `go` comes.
    s.send("level move-time=0.2");
    s.send("go ponder");
    s.send("go ponder");
    s.send("ponder-hit");
    let mut dones = 0;
    while dones < 2 {
        dones += usize::from(s.recv().starts_with("done"));
    }
    s.close();
}

#[test]
fn new_game_stops_the_search_and_resets_the_position() {
    let s = Session::ready();
    s.send(r#"pos start moves="22-18 11-14""#);
    s.send("level infinite");
    s.send("go think");
    s.send("new-game");
    let done = s.until("done").pop().unwrap();
    assert_eq!(done_move(&done).as_deref(), Some("18x11x14"));
    s.send("level depth=1");
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    assert_done_with_legal_move(&done, &Game::new());
    s.close();
}

#[test]
fn quit_ends_the_loop_even_mid_search() {
    let s = Session::ready();
    s.send("pos start");
    s.send("go analyze");
    s.expect("info ");
    let t = Instant::now();
    s.send("quit");
    let rest = s.close();
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    assert!(rest.iter().all(|l| l.starts_with("info ")), "{rest:?}");
}

#[test]
fn end_of_input_ends_the_loop_mid_search() {
    let s = Session::ready();
    s.send("pos start");
    s.send("level infinite");
    s.send("go think");
    s.expect("info ");
    let t = Instant::now();
    s.close();
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn multipv_reports_several_lines() {
    let s = Session::ready();
    s.send("set-param name=multipv value=3");
    s.send("set-param name=book value=false");
    s.send("pos start");
    s.send("level depth=4");
    s.send("go think");
    let lines = s.until("done");
    for l in &lines[..lines.len() - 1] {
        check_info(l);
    }
    assert!(lines.iter().any(|l| l.contains(" multipv=3 ")));
    s.close();
}

#[test]
fn levels_are_reproducible_for_a_seed_and_report_one_info() {
    let play = || {
        let s = Session::ready();
        s.send("set-param name=level value=novice");
        s.send("set-param name=seed value=42");
        s.send("new-game");
        let mut game = Game::new();
        let mut moves = Vec::new();
        for _ in 0..6 {
            let list: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
            s.send(&format!(
                "pos pos={} moves=\"{}\"",
                hub::write(game.start()),
                list.join(" ")
            ));
            s.send("level move-time=5");
            s.send("go think");
            let lines = s.until("done");
            assert_eq!(lines.len(), 2, "{lines:?}");
            check_info(&lines[0]);
            let m = done_move(&lines[1]).unwrap();
            game.play_text(&m).unwrap();
            moves.push(m);
        }
        s.close();
        moves
    };
    assert_eq!(play(), play());
}

#[test]
fn variant_parameter_changes_the_rules() {
    let s = Session::ready();
    s.send("set-param name=variant value=russian");
    // In Russian draughts men capture backwards: white 18 takes black 22 backwards.
    let pos = dama_rules::notation::fen::parse("W:W18:B22,1").unwrap();
    s.send(&format!("pos pos={}", hub::write(&pos)));
    s.send("level depth=2");
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    let m = done_move(&done).unwrap();
    assert!(m.contains('x'), "{m}");
    s.close();
}

#[test]
fn a_game_drawn_by_dama_count_that_the_gui_plays_on_still_gets_moves() {
    // Kings shuffling: 80 plies without progress draw an Italian game; the GUI goes on.
    let start = dama_rules::notation::fen::parse("W:WK29:BK4").unwrap();
    let mut game = Game::from_position(dama_rules::Variant::Italian, start);
    while game.outcome().is_none() {
        let n = game.moves().len();
        let m = if n >= 2 && n % 4 >= 2 {
            let back = game.moves()[n - 2];
            *game
                .legal_moves()
                .iter()
                .find(|m| m.from() == back.to() && m.to() == back.from())
                .unwrap()
        } else {
            game.legal_moves()[0]
        };
        game.play(m).unwrap();
    }
    let mut moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
    let s = Session::ready();
    s.send(&format!(
        "pos pos={} moves=\"{}\"",
        hub::write(&start),
        moves.join(" ")
    ));
    s.send("level depth=2");
    s.send("go think");
    let done = s.until("done").pop().unwrap();
    let m = done_move(&done).unwrap();
    moves.push(m);
    s.send(&format!(
        "pos pos={} moves=\"{}\"",
        hub::write(&start),
        moves.join(" ")
    ));
    s.send("go think");
    s.until("done");
    s.close();
}

#[test]
fn go_analyze_searches_a_single_legal_move_and_go_think_plays_it_at_once() {
    let s = Session::ready();
    // Black's only legal move is 13x22.
    let pos = dama_rules::notation::fen::parse(
        "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,11,12,13",
    )
    .unwrap();
    s.send(&format!("pos pos={}", hub::write(&pos)));
    s.send("go analyze");
    // Iterations go on past depth 1 until stopped.
    loop {
        let line = s.recv();
        check_info(&line);
        let lexed = lex(&line).unwrap().unwrap();
        let depth: u32 = lexed.value("depth").unwrap().parse().unwrap();
        if depth >= 6 {
            break;
        }
    }
    s.send("stop");
    let done = s.until("done").pop().unwrap();
    let analysed = done_move(&done).unwrap();
    assert!(analysed.starts_with("13x22"), "{done}");
    // A game search answers the forced move without iterating.
    s.send("level depth=12");
    s.send("go think");
    let lines = s.until("done");
    assert_eq!(done_move(lines.last().unwrap()), Some(analysed));
    for line in &lines[..lines.len() - 1] {
        let lexed = lex(line).unwrap().unwrap();
        assert!(lexed.value("depth").is_none_or(|d| d == "1"), "{line}");
    }
    s.close();
}

#[test]
fn hard_answers_from_the_book_at_the_start_and_searches_with_the_book_off() {
    let s = Session::ready();
    s.send("level move-time=0.05");
    s.send("go think");
    let lines = s.until("done");
    // One info of depth 0 (the book), then the move, at once.
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info depth=0 "), "{lines:?}");
    let book_moves: Vec<String> = dama_search::Book::embedded()
        .moves(Game::new().position())
        .iter()
        .map(|m| m.mv.hub().to_string())
        .collect();
    let mv = lex(&lines[1])
        .unwrap()
        .unwrap()
        .value("move")
        .unwrap()
        .to_string();
    assert!(book_moves.contains(&mv), "{mv} not in {book_moves:?}");
    s.send("set-param name=book value=false");
    s.send("go think");
    let lines = s.until("done");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth=1 ")),
        "{lines:?}"
    );
    s.send("set-param name=book value=maybe");
    let e = s.expect("error");
    assert!(e.contains("maybe") && e.contains("true or false"), "{e}");
    assert!(s.close().is_empty());
}

#[test]
fn a_bad_book_file_is_refused_and_the_book_stays() {
    let dir = std::env::temp_dir().join(format!("dama-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.book");
    std::fs::write(&bad, b"DAMABOOK not really").unwrap();
    let s = Session::ready();
    s.send(&format!(
        "set-param name=book-file value=\"{}\"",
        bad.display()
    ));
    let e = s.expect("error");
    assert!(e.contains("not a dama opening book"), "{e}");
    s.send("set-param name=book-file value=/no/such/file.book");
    let e = s.expect("error");
    assert!(e.contains("/no/such/file.book"), "{e}");
    s.send("level move-time=0.05");
    s.send("go think");
    let lines = s.until("done");
    assert!(lines[0].starts_with("info depth=0 "), "{lines:?}");
    assert!(s.close().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_eval_file_replaces_the_weights_and_a_bad_one_is_refused() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dama-search/src");
    let s = Session::ready();
    // A king and two men against four men: the files value a king differently.
    let pos = dama_rules::notation::fen::parse("W:WK22,30,31:B2,3,4,12").unwrap();
    let score = || {
        s.send(&format!("pos pos={}", hub::write(&pos)));
        s.send("level depth=4");
        s.send("go think");
        let lines = s.until("done");
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info"))
            .expect("an info line");
        lex(info)
            .unwrap()
            .unwrap()
            .value("score")
            .unwrap()
            .to_string()
    };
    let built_in = score();
    s.send(&format!(
        "set-param name=eval-file value=\"{}\"",
        src.join("spanish.weights").display()
    ));
    let other = score();
    assert_ne!(other, built_in);
    // A file that is not weights is refused, naming it, and the weights in use stay.
    s.send("set-param name=eval-file value=/no/such.weights");
    let e = s.expect("error");
    assert!(
        e.contains("/no/such.weights") && e.contains("weights file"),
        "{e}"
    );
    assert_eq!(score(), other);
    // The file of the built-in evaluation (the network) plays as it does; nothing goes back
    // to it.
    s.send(&format!(
        "set-param name=eval-file value=\"{}\"",
        src.join("italian.nnue").display()
    ));
    assert_eq!(score(), built_in);
    s.send("set-param name=eval-file value=\"\"");
    assert_eq!(score(), built_in);
    assert!(s.close().is_empty());
}

/// A table-won ending given with a history in which the position has occurred once already:
/// the engine, told the game by `pos ... moves=`, plays it out against the tables' longest
/// defence without a position coming back a third time (or at all after its moves), and wins
/// in the perfect number of plies (the DTW of the position). Today's engine (15c0bdd) played
/// a move that keeps the win but repeats, into a threefold repetition.
fn converts_after_a_repetition(start: &str, cycle: &str, winner: dama_rules::Color, perfect: u32) {
    use dama_egtb::{Memory, Value};
    use dama_rules::variant::Italian;
    let tables = Memory::<Italian>::new(4).with_kings_only(5).dtw();
    let start: dama_rules::Position = start.parse().unwrap();
    assert_eq!(
        tables.probe(&start).map(|v| v.wdl() == dama_egtb::Wdl::Win),
        Some(start.turn() == winner)
    );
    let mut game = Game::from_position(dama_rules::Variant::Italian, start);
    for m in cycle.split(' ') {
        game.play_text(m).unwrap();
    }
    assert_eq!(game.position(), &start, "the cycle comes back");
    let s = Session::ready();
    // One search to a depth first: it waits for the in-memory tables (DTW included) that a
    // move on the clock would only start building.
    s.send(&format!("pos pos={}", hub::write(&start)));
    s.send("level depth=2");
    done_within(&s, "go think", Duration::from_secs(60));
    s.send("level move-time=0.2");
    let from = game.moves().len();
    while game.outcome().is_none() && game.moves().len() < from + 200 {
        let pos = *game.position();
        let m = if pos.turn() == winner {
            let text: Vec<String> = game.moves().iter().map(|m| m.hub().to_string()).collect();
            s.send(&format!(
                "pos pos={} moves=\"{}\"",
                hub::write(&start),
                text.join(" ")
            ));
            let done = done_within(&s, "go think", Duration::from_secs(5));
            let m = done_move(&done).unwrap_or_else(|| panic!("no move in {done:?}"));
            game.play_text(&m).unwrap_or_else(|e| panic!("{m}: {e}"));
            let key = game.position().hash();
            let seen = game.keys().iter().filter(|&&k| k == key).count();
            assert_eq!(seen, 1, "{m} after {} comes back to a position", pos.fen());
            continue;
        } else {
            tables.best_move(&pos).unwrap()
        };
        game.play(m).unwrap();
    }
    assert_eq!(game.outcome(), Some(dama_rules::Outcome::Win(winner)));
    let plies = (game.moves().len() - from) as u32;
    assert_eq!(plies, perfect, "{:?}", game.moves());
    assert_eq!(
        tables.probe(&start).and_then(Value::distance),
        Some(perfect)
    );
    s.close();
}

#[test]
fn a_table_win_is_converted_after_a_repetition_three_kings_against_one() {
    // Black to move; White wins.
    converts_after_a_repetition(
        "B:WK1,K2,K12:BK4",
        "4-8 12-16 8-4 16-12",
        dama_rules::Color::White,
        14,
    );
}

/// About 17 s in the test profile: the test's own tables of five kings (the loser's perfect
/// defence) are built by dama-egtb's generic solver instantiated in this crate, without
/// optimisation. Optimising this crate's tests would cost as much compile time as it saves.
#[test]
fn a_table_win_is_converted_after_a_repetition_three_kings_against_two() {
    // White to move; Black wins.
    converts_after_a_repetition(
        "W:WK8,K28:BK7,K22,K27",
        "28-32 7-3 32-28 3-7",
        dama_rules::Color::Black,
        26,
    );
}
