//! Hub protocol lines fed to the engine loop, `dama_protocol::run`: never a panic, a hang or
//! an unreadable answer; each line alone goes through the command parser and the lexer.
//!
//! Searches stay tiny: the session starts with a 1 MiB table and a small level, any `level`
//! line is capped by a node and depth limit, and the end of the input stops the search.
//! `set-param` of `hash` and `threads` is kept to small values (a fuzzed 4 GiB table or 64
//! threads per run would measure the machine, not the engine), and `egtb-init` stays off (the
//! tables it builds at `init` take seconds).
#![no_main]

use dama_protocol::lexer;
use dama_protocol::Command;
use libfuzzer_sys::fuzz_target;

/// Every line the engine may write starts with one of these words.
const ANSWERS: [&str; 8] = [
    "id", "param", "wait", "ready", "pong", "info", "done", "error",
];

fn tame(line: &str) -> String {
    match Command::parse(line) {
        // Values read first win: the caps go in front of the line's own limits.
        Ok(Some(Command::Level(_))) => {
            let rest = line.trim_start().strip_prefix("level").unwrap_or("");
            format!("level depth=3 nodes=300 {rest}")
        }
        Ok(Some(Command::SetParam { name, .. })) if name == "hash" => {
            "set-param name=hash value=1".into()
        }
        Ok(Some(Command::SetParam { name, .. })) if name == "threads" => {
            "set-param name=threads value=2".into()
        }
        Ok(Some(Command::SetParam { name, .. })) if name == "egtb-init" => {
            "set-param name=egtb-init value=false".into()
        }
        _ => line.to_string(),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        let _ = Command::parse(line).map_err(|e| e.to_string());
        let _ = lexer::lex(line);
    }
    let mut session = String::from(
        "set-param name=hash value=1\nset-param name=egtb-init value=false\n\
         level depth=2 nodes=300\n",
    );
    for line in text.lines() {
        let line = tame(line);
        session.push_str(&line);
        session.push('\n');
    }
    let mut out = Vec::new();
    dama_protocol::run(std::io::Cursor::new(session.into_bytes()), &mut out)
        .expect("writing to memory cannot fail");
    let out = String::from_utf8(out).expect("the engine writes UTF-8");
    let gos = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some("go"))
        .count();
    let mut dones = 0;
    for line in out.lines() {
        let word = line.split(' ').next().unwrap_or("");
        assert!(ANSWERS.contains(&word), "unexpected answer {line:?}");
        assert!(
            lexer::lex(line).is_ok(),
            "the engine wrote a line its own lexer refuses: {line:?}"
        );
        dones += usize::from(word == "done");
    }
    assert!(dones <= gos, "{dones} done for {gos} go");
});
