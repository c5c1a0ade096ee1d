//! Table files: what is built can be read back exactly, a resumed build equals an
//! uninterrupted one, and damaged files are refused.

use std::path::{Path, PathBuf};

use dama_egtb::{build, file, solve::build_order, variant_dir, Error, Material, Memory, Tables};
use dama_rules::variant::Italian;
use dama_rules::{Position, Variant};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dama-egtb-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn checksums(dir: &Path) -> Vec<(Material, u64)> {
    let tables = Tables::open(dir).unwrap();
    build_order(3)
        .into_iter()
        .flat_map(|m| [m, m.flip()])
        .map(|m| {
            let (h, _) = tables.header(Variant::Italian, m).unwrap().unwrap();
            (m, h.checksum)
        })
        .collect()
}

#[test]
fn files_agree_with_memory_and_verify() {
    let dir = temp_dir("agree");
    build(Variant::Italian, 3, &dir, 2, |_| {}).unwrap();
    let tables = Tables::open(&dir).unwrap();
    assert_eq!(tables.max_pieces(Variant::Italian), 3);
    assert_eq!(tables.max_pieces(Variant::Spanish), 0);
    let memory = Memory::<Italian>::new(3);
    for m in build_order(3).into_iter().flat_map(|m| [m, m.flip()]) {
        assert!(tables.verify(Variant::Italian, m).unwrap() > 0);
        // Every position, either side to move, probes as in memory.
        for i in 0..m.len() {
            let Some(p) = m.placement(i) else { continue };
            let pos = p.position();
            for pos in [pos, pos.flip()] {
                assert_eq!(
                    tables.probe(Variant::Italian, &pos).unwrap(),
                    memory.probe(&pos),
                    "{pos:?}"
                );
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_resumed_build_gives_the_same_files() {
    let whole = temp_dir("whole");
    build(Variant::Italian, 3, &whole, 1, |_| {}).unwrap();
    let resumed = temp_dir("resumed");
    // A build stopped after the 2-piece classes: their files are there, the rest not.
    build(Variant::Italian, 2, &resumed, 1, |_| {}).unwrap();
    // A half-written file of the next class, as a kill would leave it.
    let vdir = variant_dir(&resumed, Variant::Italian);
    std::fs::write(vdir.join("KK-K.egtb.tmp"), b"DAMAEGTB\x01").unwrap();
    let mut resumed_classes = 0;
    build(Variant::Italian, 3, &resumed, 2, |e| {
        if let dama_egtb::BuildEvent::Finished { resumed: true, .. } = e {
            resumed_classes += 1;
        }
    })
    .unwrap();
    assert_eq!(resumed_classes, build_order(2).len());
    assert_eq!(checksums(&whole), checksums(&resumed));
    std::fs::remove_dir_all(&whole).unwrap();
    std::fs::remove_dir_all(&resumed).unwrap();
}

fn expect_corrupt(dir: &Path, pos: &Position, what: &str) {
    let tables = Tables::open(dir).unwrap();
    match tables.probe(Variant::Italian, pos) {
        Err(Error::Corrupt { why, .. }) => assert!(why.contains(what), "{why}"),
        other => panic!("{what}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn damaged_files_are_refused() {
    let dir = temp_dir("damaged");
    build(Variant::Italian, 3, &dir, 1, |_| {}).unwrap();
    let path = variant_dir(&dir, Variant::Italian).join(file::file_name("KK-K".parse().unwrap()));
    let good = std::fs::read(&path).unwrap();
    let pos: Position = "W:WK1,K3:BK29".parse().unwrap();
    assert!(Tables::open(&dir)
        .unwrap()
        .probe(Variant::Italian, &pos)
        .unwrap()
        .is_some());
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 7]).unwrap();
    expect_corrupt(&dir, &pos, "truncated");
    std::fs::write(&path, &good[..20]).unwrap();
    expect_corrupt(&dir, &pos, "header");
    // A flipped bit in the data.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 10] ^= 0x10;
    std::fs::write(&path, &bad).unwrap();
    expect_corrupt(&dir, &pos, "checksum");
    // A flipped bit in the header.
    let mut bad = good.clone();
    bad[13] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    expect_corrupt(&dir, &pos, "");
    // Not a table at all; another version.
    std::fs::write(&path, b"hello").unwrap();
    expect_corrupt(&dir, &pos, "header");
    let mut bad = good.clone();
    bad[8] = 9;
    std::fs::write(&path, &bad).unwrap();
    expect_corrupt(&dir, &pos, "version 9");
    // The good file again.
    std::fs::write(&path, &good).unwrap();
    assert!(Tables::open(&dir)
        .unwrap()
        .probe(Variant::Italian, &pos)
        .unwrap()
        .is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}
