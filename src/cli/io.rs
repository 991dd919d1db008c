//! Reading inputs and writing outputs so that faults lose nothing.
//!
//! Input ([`read_source`]): a file, or standard input for `-`, read in 64 KiB chunks up to
//! [`MAX_INPUT_BYTES`]. A NUL byte ends the read at once with an error naming its offset
//! (neither `.sir` nor `.ll` text contains one, so `strata verify /dev/zero` fails on the first
//! chunk instead of filling memory). Text must be UTF-8; for `.sir` an invalid byte is an
//! error naming its byte offset, line and column. For `.ll` the rule is LLVM's: its lexer works
//! on bytes, so a non-UTF-8 byte in a comment or inside a quoted string or name is accepted.
//! Such bytes are rewritten to the `\XX` escape LLVM itself uses in strings (same meaning,
//! same line numbers; in a comment the escape is ignored); a non-UTF-8 byte anywhere else is
//! an error naming its offset, as in LLVM.
//!
//! Output ([`write_output`]): standard output is written with every error checked (a full
//! disk, `/dev/full`, a closed pipe: exit 4 with the OS error). A file named by `-o`/`--json`
//! is written atomically: the text goes to a temporary file in the target's directory, which is
//! synced and renamed over the target only when complete (the `tempfile` crate). On any error
//! the temporary file is removed and the previous target is untouched. The target keeps its
//! permissions (a new one gets `0666 & !umask`); a symbolic link is followed and the file it
//! names is replaced; a target that exists and is not a regular file (`/dev/null`, a FIFO) is
//! written in place, every write checked.
//!
//! Cost: linear in the bytes read or written; one extra pass over the input to find NUL bytes.

use super::{exit, CliError, InputFormat};
use std::io::{Read, Write};
use std::path::Path;

/// The largest input accepted, in bytes (1 GiB; the largest corpus module is about 10 MB).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads the whole of `reader` (named `name` in errors), failing with exit 1 on a NUL byte or
/// when more than `limit` bytes arrive, and with exit 4 on a read error.
pub fn read_limited(reader: impl Read, name: &str, limit: u64) -> Result<Vec<u8>, CliError> {
    read_limited_sized(reader, name, limit, 0)
}

/// [`read_limited`] into a buffer sized for `expected` bytes (a file's length), so that a
/// file is read without regrowing (and copying) the buffer: the input is the largest single
/// allocation of a compile, and each doubling on the way left the previous buffer to the
/// allocator.
fn read_limited_sized(
    mut reader: impl Read,
    name: &str,
    limit: u64,
    expected: u64,
) -> Result<Vec<u8>, CliError> {
    // One byte more than expected, so reading a file of the expected length ends without
    // growing the buffer to see the end.
    let mut data = Vec::with_capacity(expected.min(limit) as usize + 1);
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(data),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CliError::new(exit::IO, format!("{name}: {e}"))),
        };
        if let Some(k) = chunk[..n].iter().position(|&b| b == 0) {
            return Err(CliError::new(
                exit::INPUT,
                format!(
                    "{name}: byte offset {}: NUL byte: not a text file",
                    data.len() + k
                ),
            ));
        }
        if (data.len() + n) as u64 > limit {
            return Err(CliError::new(
                exit::INPUT,
                format!("{name}: input larger than the limit of {limit} bytes"),
            ));
        }
        data.extend_from_slice(&chunk[..n]);
    }
}

/// The display name of an input path (`<stdin>` for `-`).
pub fn input_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads `path` (standard input for `-`) as text of `format`; see the module doc.
pub fn read_source(path: &Path, format: InputFormat) -> Result<String, CliError> {
    decode(read_bytes(path)?, &input_name(path), format)
}

/// The bytes of `path` (standard input for `-`), checked as [`read_limited`] does.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    let name = input_name(path);
    if path.as_os_str() == "-" {
        read_limited(std::io::stdin().lock(), &name, MAX_INPUT_BYTES)
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| CliError::new(exit::IO, format!("{name}: {e}")))?;
        // The length is only a hint (a device or FIFO has none, a file may grow).
        let expected = file.metadata().map_or(0, |m| m.len());
        read_limited_sized(file, &name, MAX_INPUT_BYTES, expected)
    }
}

/// The format a path's extension names: `.ll` or `.sir`, else `None`.
pub fn format_of_extension(path: &Path) -> Option<InputFormat> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ll") => Some(InputFormat::Ll),
        Some("sir") => Some(InputFormat::Sir),
        _ => None,
    }
}

/// The format `bytes` look like, from the first line that is neither blank nor a `;` comment
/// (a `; ModuleID` comment is LLVM's): LLVM's top-level words (`source_filename`, `target`,
/// `define`, `declare`, `attributes`, `module asm`) and sigils (`@`, `%`, `!`, `$`) mean `.ll`;
/// strata's (`func`, `extern`, `global`, `const`, `internal`) mean `.sir`; anything else (a
/// placement problem, an empty file) is `None`. Reads at most the first 64 KiB.
pub fn sniff_format(bytes: &[u8]) -> Option<InputFormat> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]);
    for line in head.lines() {
        let t = line.trim_start();
        if t.starts_with("; ModuleID") {
            return Some(InputFormat::Ll);
        }
        if t.is_empty() || t.starts_with(';') {
            continue;
        }
        if t.starts_with(['@', '%', '!', '$']) {
            return Some(InputFormat::Ll);
        }
        let word = t
            .split(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        return match word {
            "source_filename" | "target" | "define" | "declare" | "attributes" | "module" => {
                Some(InputFormat::Ll)
            }
            "func" | "extern" | "global" | "const" | "internal" => Some(InputFormat::Sir),
            _ => None,
        };
    }
    None
}

/// `bytes` as text of `format` (see the module doc): invalid UTF-8 is an error with exit 1
/// naming the byte offset, except inside `.ll` comments, strings and quoted names.
pub fn decode(bytes: Vec<u8>, name: &str, format: InputFormat) -> Result<String, CliError> {
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => return Ok(s),
        Err(e) => e.into_bytes(),
    };
    match format {
        InputFormat::Sir => {
            let offset = std::str::from_utf8(&bytes)
                .err()
                .map_or(0, |e| e.valid_up_to());
            Err(invalid_utf8(name, &bytes, offset))
        }
        InputFormat::Ll => escape_ll_bytes(&bytes, name),
    }
}

fn invalid_utf8(name: &str, bytes: &[u8], offset: usize) -> CliError {
    let before = &bytes[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    CliError::new(
        exit::INPUT,
        format!(
            "{name}:{line}:{col}: invalid UTF-8 at byte offset {offset} (byte {:#04x})",
            bytes[offset]
        ),
    )
}

/// Rewrites non-UTF-8 bytes in `.ll` comments, strings and quoted names as `\XX`.
fn escape_ll_bytes(bytes: &[u8], name: &str) -> Result<String, CliError> {
    #[derive(PartialEq)]
    enum State {
        Code,
        Quoted,
        Comment,
    }
    let mut state = State::Code;
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            state = match (state, b) {
                (State::Code, b'"') => State::Quoted,
                (State::Code, b';') => State::Comment,
                (State::Quoted, b'"') | (State::Comment, b'\n') => State::Code,
                (s, _) => s,
            };
            out.push(b);
            i += 1;
            continue;
        }
        // A valid multi-byte character is kept as it is, wherever it is.
        let width = match b {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 1,
        };
        let end = (i + width).min(bytes.len());
        if width > 1 && std::str::from_utf8(&bytes[i..end]).is_ok() {
            out.extend_from_slice(&bytes[i..end]);
            i = end;
            continue;
        }
        if state == State::Code {
            return Err(invalid_utf8(name, bytes, i));
        }
        out.extend_from_slice(format!("\\{b:02X}").as_bytes());
        i += 1;
    }
    Ok(String::from_utf8(out).expect("every non-UTF-8 byte was escaped"))
}

fn io_error(path: &Path, e: std::io::Error) -> CliError {
    CliError::new(exit::IO, format!("{}: {e}", path.display()))
}

/// Writes `text` to `path`, or to standard output when `None`, checking every write; a file
/// is replaced atomically (see the module doc). Errors exit 4 naming the path and the OS error.
pub fn write_output(path: Option<&Path>, text: &str) -> Result<(), CliError> {
    write_bytes(path, text.as_bytes())
}

/// [`write_output`] for bytes that need not be UTF-8 (a program's output).
pub fn write_bytes(path: Option<&Path>, bytes: &[u8]) -> Result<(), CliError> {
    match path {
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| CliError::new(exit::IO, format!("<stdout>: {e}")))
        }
        Some(p) if p.as_os_str() == "-" => write_bytes(None, bytes),
        Some(p) => write_file(p, bytes),
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    // Follow a symbolic link to the file it names, so the link survives.
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| io_error(path, e))?
        }
        _ => path.to_path_buf(),
    };
    let existing = std::fs::metadata(&target).ok();
    if let Some(m) = &existing {
        if m.is_dir() {
            return Err(CliError::new(
                exit::IO,
                format!("{}: is a directory", path.display()),
            ));
        }
        if !m.is_file() {
            // A device or FIFO: it cannot be replaced, only written.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| io_error(path, e))?;
            return f
                .write_all(bytes)
                .and_then(|()| f.flush())
                .map_err(|e| io_error(path, e));
        }
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".strata-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| {
        CliError::new(
            exit::IO,
            format!(
                "{}: cannot create a temporary file in {}: {e}",
                path.display(),
                dir.display()
            ),
        )
    })?;
    if let Some(m) = &existing {
        tmp.as_file()
            .set_permissions(m.permissions())
            .map_err(|e| io_error(path, e))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.flush())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| io_error(path, e))?;
    tmp.persist(&target).map_err(|e| io_error(path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_byte_and_size_limit_stop_reading() {
        let e = read_limited(&b"abc\0def"[..], "x", 100).unwrap_err();
        assert_eq!(e.code, exit::INPUT);
        assert!(e.message.contains("byte offset 3"), "{}", e.message);
        let e = read_limited(&b"abcdef"[..], "x", 4).unwrap_err();
        assert!(e.message.contains("limit of 4 bytes"), "{}", e.message);
        assert_eq!(read_limited(&b"abcd"[..], "x", 4).unwrap(), b"abcd");
        // An endless reader (like /dev/zero) stops at the first chunk.
        let e = read_limited(std::io::repeat(0), "zero", MAX_INPUT_BYTES).unwrap_err();
        assert!(e.message.contains("byte offset 0"), "{}", e.message);
    }

    #[test]
    fn formats_are_recognised_from_content() {
        let ll = InputFormat::Ll;
        let sir = InputFormat::Sir;
        assert_eq!(
            sniff_format(b"; ModuleID = 'x.c'\nsource_filename"),
            Some(ll)
        );
        assert_eq!(sniff_format(b"\n; comment\ndefine i32 @f() {"), Some(ll));
        assert_eq!(sniff_format(b"%struct.S = type { i32 }"), Some(ll));
        assert_eq!(sniff_format(b"target triple = \"x86_64\""), Some(ll));
        assert_eq!(
            sniff_format(b"; a .sir file\nfunc @main() -> i32 {"),
            Some(sir)
        );
        assert_eq!(sniff_format(b"internal const @s size 1 align 1"), Some(sir));
        assert_eq!(sniff_format(b"targets a b\nblock x 1"), None);
        assert_eq!(sniff_format(b""), None);
    }

    #[test]
    fn invalid_utf8_is_located() {
        let e = decode(b"ab\ncd\xe9f".to_vec(), "f.sir", InputFormat::Sir).unwrap_err();
        assert_eq!(e.code, exit::INPUT);
        assert!(
            e.message
                .starts_with("f.sir:2:3: invalid UTF-8 at byte offset 5"),
            "{}",
            e.message
        );
        // LLVM accepts a Latin-1 byte in a comment and in a string, not in code.
        let ll = decode(
            b"; caf\xe9\n@s = constant [1 x i8] c\"\xe9\"\n".to_vec(),
            "f.ll",
            InputFormat::Ll,
        )
        .unwrap();
        assert_eq!(ll, "; caf\\E9\n@s = constant [1 x i8] c\"\\E9\"\n");
        let e = decode(b"define \xe9".to_vec(), "f.ll", InputFormat::Ll).unwrap_err();
        assert!(e.message.contains("byte offset 7"), "{}", e.message);
        assert_eq!(
            decode("; é\n".as_bytes().to_vec(), "f.ll", InputFormat::Ll).unwrap(),
            "; é\n"
        );
    }
}
