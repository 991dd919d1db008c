//! The `<string.h>` built-ins (listed in [`super::libc::EXTERNALS`]).
//!
//! Semantics are C's, with glibc's choices where C leaves one: comparisons return the
//! difference of the first differing bytes (as unsigned chars); `memcpy` with overlapping
//! ranges behaves like `memmove`; `strncpy` pads with NUL bytes up to `n`; `strndup` and
//! `strdup` allocate from the heap like `malloc`. Reading stops where C's does: the
//! `n`-bounded functions (`strncmp`, `strnlen`, `strncpy`, `strncat`, `strndup`, `memchr`)
//! never read past `n` bytes or the first NUL, so an unterminated array within its bounds
//! is fine; any byte read outside a live region is a fault naming the call. Cost: linear in
//! the bytes read and written, plus O(log regions) per byte for the bounded reads.

use super::exec::{Interpreter, Pc};
use super::externals::{Call, ExtResult};
use super::libc::Str;
use super::InterpError;

/// The difference of the first differing bytes of `x` and `y` (0 when equal).
fn difference(x: &[u8], y: &[u8]) -> i128 {
    x.iter()
        .zip(y)
        .find(|(p, q)| p != q)
        .map_or(0, |(p, q)| *p as i128 - *q as i128)
}

impl Interpreter<'_> {
    /// The bytes of the C string at `addr` before its NUL, reading at most `max` bytes.
    fn bounded_string(&self, pc: Pc, addr: u64, max: u64) -> Result<Vec<u8>, InterpError> {
        // The common case, a terminated string in one region, in one lookup.
        if let Ok(s) = self.mem.c_string(addr) {
            return Ok(s[..(s.len() as u64).min(max) as usize].to_vec());
        }
        let mut out = Vec::new();
        for i in 0..max {
            let b = self.fault(pc, self.mem.read(addr.wrapping_add(i), 1))?[0];
            if b == 0 {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }

    /// The C string at `addr`, without its NUL.
    fn string(&self, pc: Pc, addr: u64) -> Result<Vec<u8>, InterpError> {
        Ok(self.fault(pc, self.mem.c_string(addr))?.to_vec())
    }

    /// `data` followed by a NUL at `addr`.
    fn put_string(&mut self, pc: Pc, addr: u64, data: &[u8]) -> Result<(), InterpError> {
        let mut bytes = Vec::with_capacity(data.len() + 1);
        bytes.extend_from_slice(data);
        bytes.push(0);
        self.put_bytes(pc, addr, &bytes)
    }

    /// A new heap copy of `data` with a NUL after it (`strdup`).
    fn heap_string(&mut self, pc: Pc, data: &[u8]) -> Result<u64, InterpError> {
        let a = self.heap_alloc(pc, data.len() as u64 + 1)?;
        self.put_string(pc, a, data)?;
        Ok(a)
    }

    /// The `<string.h>` family.
    pub(super) fn string_external(&mut self, c: &Call, f: Str) -> Result<ExtResult, InterpError> {
        let pc = c.pc;
        // A pointer `k` bytes into the string at `base`, or null.
        let at = |base: u64, k: Option<usize>| k.map_or(0, |k| base + k as u64);
        match f {
            Str::Memcpy | Str::Memmove => {
                let (d, s, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_ptr(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let r = self.mem.copy(d, s, n);
                self.fault(pc, r)?;
                self.ret_ptr(c, d)
            }
            Str::Memset => {
                let (d, v, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_int(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let r = self.mem.write(d, n).map(|m| m.fill(v.as_u128() as u8));
                self.fault(pc, r)?;
                self.ret_ptr(c, d)
            }
            Str::Memcmp => {
                let (a, b, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_ptr(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let x = self.fault(pc, self.mem.read(a, n))?;
                let y = self.fault(pc, self.mem.read(b, n))?;
                self.ret_int(c, difference(x, y))
            }
            Str::Memchr => {
                let (s, v, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_int(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let want = v.as_u128() as u8;
                for i in 0..n {
                    let b = self.fault(pc, self.mem.read(s.wrapping_add(i), 1))?[0];
                    if b == want {
                        return self.ret_ptr(c, s + i);
                    }
                }
                self.ret_ptr(c, 0)
            }
            Str::Strlen => {
                let n = self
                    .fault(pc, self.mem.c_string(self.arg_ptr(c, 0)?))?
                    .len();
                self.ret_int(c, n as i128)
            }
            Str::Strnlen => {
                let (s, n) = (self.arg_ptr(c, 0)?, self.arg_size(c, 1)?);
                let len = self.bounded_string(pc, s, n)?.len();
                self.ret_int(c, len as i128)
            }
            Str::Strcmp | Str::Strncmp => {
                let n = match f {
                    Str::Strcmp => u64::MAX,
                    _ => self.arg_size(c, 2)?,
                };
                let mut x = self.bounded_string(pc, self.arg_ptr(c, 0)?, n)?;
                let mut y = self.bounded_string(pc, self.arg_ptr(c, 1)?, n)?;
                // Compare including the terminating NUL, within the first `n` bytes.
                x.push(0);
                y.push(0);
                let k = (n.min(x.len().max(y.len()) as u64)) as usize;
                let d = difference(&x[..k.min(x.len())], &y[..k.min(y.len())]);
                self.ret_int(c, d)
            }
            Str::Strcpy | Str::Strcat => {
                let (d, s) = (self.arg_ptr(c, 0)?, self.arg_ptr(c, 1)?);
                let data = self.string(pc, s)?;
                let end = match f {
                    Str::Strcat => d + self.string(pc, d)?.len() as u64,
                    _ => d,
                };
                self.put_string(pc, end, &data)?;
                self.ret_ptr(c, d)
            }
            Str::Strncpy => {
                let (d, s, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_ptr(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let mut data = self.bounded_string(pc, s, n)?;
                let fill = n - data.len() as u64;
                let r = self
                    .mem
                    .write(d + data.len() as u64, fill)
                    .map(|m| m.fill(0));
                self.fault(pc, r)?;
                data.truncate(n as usize);
                self.put_bytes(pc, d, &data)?;
                self.ret_ptr(c, d)
            }
            Str::Strncat => {
                let (d, s, n) = (
                    self.arg_ptr(c, 0)?,
                    self.arg_ptr(c, 1)?,
                    self.arg_size(c, 2)?,
                );
                let data = self.bounded_string(pc, s, n)?;
                let end = d + self.string(pc, d)?.len() as u64;
                self.put_string(pc, end, &data)?;
                self.ret_ptr(c, d)
            }
            Str::Strchr | Str::Strrchr => {
                let (s, v) = (self.arg_ptr(c, 0)?, self.arg_int(c, 1)?);
                let mut data = self.string(pc, s)?;
                // The terminating NUL is part of the string: strchr(s, 0) finds it.
                data.push(0);
                let want = v.as_u128() as u8;
                let k = match f {
                    Str::Strchr => data.iter().position(|&b| b == want),
                    _ => data.iter().rposition(|&b| b == want),
                };
                self.ret_ptr(c, at(s, k))
            }
            Str::Strstr => {
                let (h, n) = (self.arg_ptr(c, 0)?, self.arg_ptr(c, 1)?);
                let (hay, needle) = (self.string(pc, h)?, self.string(pc, n)?);
                let k = if needle.is_empty() {
                    Some(0)
                } else {
                    hay.windows(needle.len()).position(|w| w == needle)
                };
                self.ret_ptr(c, at(h, k))
            }
            Str::Strspn | Str::Strcspn | Str::Strpbrk => {
                let (s, set) = (self.arg_ptr(c, 0)?, self.arg_ptr(c, 1)?);
                let (data, set) = (self.string(pc, s)?, self.string(pc, set)?);
                let accept = f == Str::Strspn;
                let k = data.iter().position(|b| set.contains(b) != accept);
                match f {
                    Str::Strpbrk => self.ret_ptr(c, at(s, k)),
                    _ => self.ret_int(c, k.unwrap_or(data.len()) as i128),
                }
            }
            Str::Strdup | Str::Strndup => {
                let s = self.arg_ptr(c, 0)?;
                let n = match f {
                    Str::Strdup => u64::MAX,
                    _ => self.arg_size(c, 1)?,
                };
                let data = self.bounded_string(pc, s, n)?;
                let a = self.heap_string(pc, &data)?;
                self.ret_ptr(c, a)
            }
        }
    }
}
