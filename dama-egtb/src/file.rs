//! The table file: one material class, compressed in blocks.
//!
//! ```text
//! offset  size  field (little-endian)
//!      0     8  magic "DAMAEGTB"
//!      8     2  format version (1)
//!     10     1  variant (PDN GameType number: 22 Italian, 24 Spanish, 29 Czech, ...)
//!     11     1  metric (1 = MTC, plies to the next capture or man move)
//!     12     4  white men, white kings, black men, black kings
//!     16     4  positions per block
//!     20     4  number of blocks
//!     24     8  number of indices (positions and holes, see `index`)
//!     32     8  checksum of bytes 0..32 and the block index
//!     40  16·n  block index: per block, the end of its data (from the data start) and the
//!               checksum of its compressed bytes
//!      …        the blocks, each a raw deflate stream of one byte per index (`Value::encode`)
//! ```
//!
//! A probe reads one block. Positions whose side to move must capture are not stored (their
//! byte repeats the one before, which compresses better): a probe values them by searching
//! the captures. Files are written under a temporary name and renamed, so a half-written file
//! is never read; a file whose header, block index or block checksum does not match, or whose
//! length is not what its index says, is refused with [`Error::Corrupt`], never read as values.
//!
//! [`Error::Corrupt`]: crate::Error::Corrupt

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use dama_rules::Variant;

use crate::index::Material;
use crate::Error;

/// The first bytes of every table file.
pub const MAGIC: &[u8; 8] = b"DAMAEGTB";
/// The format version this code reads and writes.
pub const VERSION: u16 = 1;
/// The metric byte of MTC tables.
pub const METRIC_MTC: u8 = 1;
/// Positions per block.
pub const BLOCK: usize = 1 << 15;
/// Bytes of the fixed header.
const HEADER: usize = 40;

/// A 64-bit checksum (a multiply-rotate hash over 8-byte words, then the tail).
pub fn checksum(data: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = 0xCBF2_9CE4_8422_2325u64 ^ data.len() as u64;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    h ^ h >> 31
}

/// The file name of a class's table: `KKM-K.egtb`.
pub fn file_name(m: Material) -> String {
    format!("{m}.egtb")
}

/// What the header says.
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub struct Header {
    /// The rule set.
    pub variant: Variant,
    /// The class.
    pub material: Material,
    /// Positions per block.
    pub block: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Number of indices.
    pub len: u64,
    /// The checksum of the header and block index (the file's checksum: the index holds the
    /// checksum of every block).
    pub checksum: u64,
}

/// Writes the table `values` of class `m` to `path` (through a temporary file and a rename).
/// `skip(i)` marks indices whose byte is not stored (holes, positions with a capture).
///
/// # Errors
/// [`Error::Io`] when writing fails.
pub fn write(
    path: &Path,
    variant: Variant,
    m: Material,
    values: &[u8],
    mut skip: impl FnMut(usize) -> bool,
) -> Result<Header, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let blocks = values.len().div_ceil(BLOCK);
    let mut index = Vec::with_capacity(blocks * 16);
    let mut data = Vec::new();
    let mut buf = Vec::with_capacity(BLOCK);
    for (b, chunk) in values.chunks(BLOCK).enumerate() {
        buf.clear();
        let mut last = 0u8;
        for (j, &v) in chunk.iter().enumerate() {
            if !skip(b * BLOCK + j) {
                last = v;
            }
            buf.push(last);
        }
        let packed = miniz_oxide::deflate::compress_to_vec(&buf, 6);
        index.extend_from_slice(&((data.len() + packed.len()) as u64).to_le_bytes());
        index.extend_from_slice(&checksum(&packed).to_le_bytes());
        data.extend_from_slice(&packed);
    }
    let mut head = Vec::with_capacity(HEADER);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.push(variant.game_type() as u8);
    head.push(METRIC_MTC);
    head.extend_from_slice(&[m.white_men, m.white_kings, m.black_men, m.black_kings]);
    head.extend_from_slice(&(BLOCK as u32).to_le_bytes());
    head.extend_from_slice(&(blocks as u32).to_le_bytes());
    head.extend_from_slice(&(values.len() as u64).to_le_bytes());
    let sum = checksum(&[&head[..], &index[..]].concat());
    head.extend_from_slice(&sum.to_le_bytes());
    let tmp: PathBuf = path.with_extension("egtb.tmp");
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(&head).map_err(io)?;
    f.write_all(&index).map_err(io)?;
    f.write_all(&data).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(Header {
        variant,
        material: m,
        block: BLOCK as u32,
        blocks: blocks as u32,
        len: values.len() as u64,
        checksum: sum,
    })
}

/// An open table file.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    header: Header,
    /// Per block: start and end in the file, checksum.
    blocks: Vec<(u64, u64, u64)>,
    file: Mutex<File>,
}

impl TableFile {
    /// Opens and checks the header and block index of `path`.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Corrupt`] when it is not a valid table.
    pub fn open(path: &Path) -> Result<TableFile, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let mut head = [0u8; HEADER];
        file.read_exact(&mut head)
            .map_err(|_| corrupt(path, "shorter than its header"))?;
        let header = parse_header(path, &head)?;
        let index_len = header.blocks as u64 * 16;
        if HEADER as u64 + index_len > size {
            return Err(corrupt(path, "truncated in its block index"));
        }
        let mut index = vec![0u8; index_len as usize];
        file.read_exact(&mut index).map_err(io)?;
        if checksum(&[&head[..32], &index[..]].concat()) != header.checksum {
            return Err(corrupt(path, "the header checksum does not match"));
        }
        let data_start = HEADER as u64 + index_len;
        let mut blocks = Vec::with_capacity(header.blocks as usize);
        let mut start = data_start;
        for e in index.chunks_exact(16) {
            let end = data_start + u64::from_le_bytes(e[..8].try_into().unwrap_or([0; 8]));
            let sum = u64::from_le_bytes(e[8..].try_into().unwrap_or([0; 8]));
            if end < start {
                return Err(corrupt(path, "the block index is not in order"));
            }
            blocks.push((start, end, sum));
            start = end;
        }
        if start != size {
            return Err(corrupt(
                path,
                &format!("{size} bytes where its index says {start}: truncated or extended"),
            ));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            blocks,
            file: Mutex::new(file),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The size of the file in bytes.
    pub fn size(&self) -> u64 {
        self.blocks.last().map_or(HEADER as u64, |b| b.1)
    }

    /// The decompressed bytes of block `b` (checked against its checksum and length).
    ///
    /// # Errors
    /// [`Error::Corrupt`] or [`Error::Io`].
    pub fn block(&self, b: usize) -> Result<Vec<u8>, Error> {
        let &(start, end, sum) = self
            .blocks
            .get(b)
            .ok_or_else(|| corrupt(&self.path, "a block past the end"))?;
        let mut packed = vec![0u8; (end - start) as usize];
        {
            let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
            f.seek(SeekFrom::Start(start))
                .and_then(|_| f.read_exact(&mut packed))
                .map_err(|source| Error::Io {
                    path: self.path.clone(),
                    source,
                })?;
        }
        if checksum(&packed) != sum {
            return Err(corrupt(
                &self.path,
                &format!("block {b} does not match its checksum"),
            ));
        }
        let want = BLOCK.min(self.header.len as usize - b * BLOCK);
        let out = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, want)
            .map_err(|_| corrupt(&self.path, &format!("block {b} does not decompress")))?;
        if out.len() != want {
            return Err(corrupt(
                &self.path,
                &format!("block {b} holds {} values, expected {want}", out.len()),
            ));
        }
        Ok(out)
    }

    /// Every value of the table.
    ///
    /// # Errors
    /// As [`TableFile::block`].
    pub fn read_all(&self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(self.header.len as usize);
        for b in 0..self.blocks.len() {
            out.extend_from_slice(&self.block(b)?);
        }
        Ok(out)
    }
}

fn corrupt(path: &Path, why: &str) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

fn parse_header(path: &Path, h: &[u8; HEADER]) -> Result<Header, Error> {
    if &h[..8] != MAGIC {
        return Err(corrupt(path, "it does not start with DAMAEGTB"));
    }
    let version = u16::from_le_bytes([h[8], h[9]]);
    if version != VERSION {
        return Err(corrupt(
            path,
            &format!("format version {version}, this program reads version {VERSION}"),
        ));
    }
    let variant = Variant::from_game_type(u32::from(h[10]))
        .ok_or_else(|| corrupt(path, &format!("unknown variant {}", h[10])))?;
    if h[11] != METRIC_MTC {
        return Err(corrupt(path, &format!("unknown metric {}", h[11])));
    }
    let material = Material::new(h[12], h[13], h[14], h[15]);
    if !material.is_table() {
        return Err(corrupt(path, "not a material class"));
    }
    let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    let block = word(16);
    let blocks = word(20);
    let len = u64::from_le_bytes(h[24..32].try_into().unwrap_or([0; 8]));
    let checksum = u64::from_le_bytes(h[32..40].try_into().unwrap_or([0; 8]));
    if block as usize != BLOCK {
        return Err(corrupt(
            path,
            &format!("{block} positions a block, expected {BLOCK}"),
        ));
    }
    if len != material.len() as u64 {
        return Err(corrupt(
            path,
            &format!("{len} positions, class {material} has {}", material.len()),
        ));
    }
    if u64::from(blocks) != len.div_ceil(BLOCK as u64) {
        return Err(corrupt(
            path,
            "the number of blocks does not fit the positions",
        ));
    }
    Ok(Header {
        variant,
        material,
        block,
        blocks,
        len,
        checksum,
    })
}
