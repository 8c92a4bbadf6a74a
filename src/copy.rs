//! The process's byte copies (`memcpy`, `memmove`) in the static musl executable
//! `bench/build-dist.sh` builds, in place of musl's.
//!
//! Why musl: glibc runs about a hundred `cpuid` instructions before `main` to size the caches,
//! and on a virtual machine each one exits to the hypervisor (6.4 us each on ours: a static
//! glibc process that does nothing took 0.68 ms, one with no C library 0.10 ms). musl's start
//! does none of that. Why these copies: musl's x86_64 `memcpy` moves a byte at a time up to an
//! 8-byte boundary and then starts a `rep movsq`, which costs tens of cycles before it moves
//! anything, and its `memmove` is a C loop; Rust copies many short strings and values, and in a
//! control-plane render musl's two took 14% of the process's time where glibc's took 3% (perf,
//! 300 renders each).
//!
//! Copies of up to 64 bytes load everything before storing anything, so they serve `memmove`
//! too; longer ones are one `rep movsb`, which every x86_64 processor since 2012 runs at full
//! speed (ERMS). A longer `memmove` onto an overlapping higher address copies backwards. No loop
//! here is one the compiler could turn back into a call to `memcpy`.

/// Copies `len` bytes from `src` to `dst`, as C's `memmove`: the ranges may overlap.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing `len` bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn move_bytes(dst: *mut u8, src: *const u8, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    // SAFETY (each block): every offset read or written is below `len`, which the caller
    // vouches for; all loads of a block happen before its first store.
    unsafe {
        if len <= 16 {
            if len >= 8 {
                let head = src.cast::<u64>().read_unaligned();
                let tail = src.add(len - 8).cast::<u64>().read_unaligned();
                dst.cast::<u64>().write_unaligned(head);
                dst.add(len - 8).cast::<u64>().write_unaligned(tail);
            } else if len >= 4 {
                let head = src.cast::<u32>().read_unaligned();
                let tail = src.add(len - 4).cast::<u32>().read_unaligned();
                dst.cast::<u32>().write_unaligned(head);
                dst.add(len - 4).cast::<u32>().write_unaligned(tail);
            } else if len >= 2 {
                let head = src.cast::<u16>().read_unaligned();
                let tail = src.add(len - 2).cast::<u16>().read_unaligned();
                dst.cast::<u16>().write_unaligned(head);
                dst.add(len - 2).cast::<u16>().write_unaligned(tail);
            } else if len == 1 {
                dst.write(src.read());
            }
            return;
        }
        let load = |at: usize| _mm_loadu_si128(src.add(at).cast::<__m128i>());
        let store = |at: usize, v| _mm_storeu_si128(dst.add(at).cast::<__m128i>(), v);
        if len <= 32 {
            let (a, b) = (load(0), load(len - 16));
            store(0, a);
            store(len - 16, b);
            return;
        }
        if len <= 64 {
            let (a, b, c, d) = (load(0), load(16), load(len - 32), load(len - 16));
            store(0, a);
            store(16, b);
            store(len - 32, c);
            store(len - 16, d);
            return;
        }
        let overlaps_above = (dst as usize).wrapping_sub(src as usize) < len;
        if overlaps_above {
            // From the last byte down, so that every byte is read before it is overwritten.
            std::arch::asm!(
                "std",
                "rep movsb",
                "cld",
                inout("rcx") len => _,
                inout("rsi") src.add(len - 1) => _,
                inout("rdi") dst.add(len - 1) => _,
                options(nostack, preserves_flags)
            );
        } else {
            std::arch::asm!(
                "rep movsb",
                inout("rcx") len => _,
                inout("rsi") src => _,
                inout("rdi") dst => _,
                options(nostack, preserves_flags)
            );
        }
    }
}

/// The static musl executable's `memcpy` (see the module's comment).
///
/// # Safety
/// As C's `memcpy`.
#[cfg(all(target_arch = "x86_64", target_env = "musl"))]
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller's, as memcpy's; overlapping ranges are fine here besides.
    unsafe { move_bytes(dst, src, len) };
    dst
}

/// The static musl executable's `memmove` (see the module's comment).
///
/// # Safety
/// As C's `memmove`.
#[cfg(all(target_arch = "x86_64", target_env = "musl"))]
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller's.
    unsafe { move_bytes(dst, src, len) };
    dst
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::move_bytes;

    /// `len` bytes from `from` to `to` within one buffer, by `move_bytes` and from a copy of it.
    fn both_ways(buffer: &[u8], from: usize, to: usize, len: usize) -> (Vec<u8>, Vec<u8>) {
        let mut ours = buffer.to_vec();
        // SAFETY: both ranges lie inside `ours` (the callers keep them there).
        unsafe {
            let base = ours.as_mut_ptr();
            move_bytes(base.add(to), base.add(from), len);
        }
        let original = buffer.to_vec();
        let mut expected = buffer.to_vec();
        expected[to..to + len].copy_from_slice(&original[from..from + len]);
        (ours, expected)
    }

    fn pattern(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + 3) as u8).collect()
    }

    #[test]
    fn copies_between_separate_ranges_keep_every_byte_and_touch_nothing_else() {
        let buffer = pattern(1_200);
        for len in (0..=300).chain([511, 512, 513, 555]) {
            for (from, to) in [(0, 600), (1, 617), (13, 640), (600, 3), (615, 0)] {
                let (ours, expected) = both_ways(&buffer, from, to, len);
                assert!(ours == expected, "len {len} from {from} to {to}");
            }
        }
    }

    #[test]
    fn moves_onto_overlapping_ranges_above_and_below_read_before_they_write() {
        let buffer = pattern(700);
        for len in (0..=300).chain([400, 555]) {
            for shift in [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100] {
                let (up, expected_up) = both_ways(&buffer, 10, 10 + shift, len);
                assert!(up == expected_up, "len {len} up by {shift}");
                let (down, expected_down) = both_ways(&buffer, 10 + shift, 10, len);
                assert!(down == expected_down, "len {len} down by {shift}");
            }
        }
    }
}
