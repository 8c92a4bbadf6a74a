//! A huge-page arena for the process's small blocks: one page fault per 2 MiB instead of one per
//! 4 KiB, and allocation without locks.
//!
//! A whole-process render lives for a few milliseconds and allocates about 4.5 MB in 12,000
//! blocks, 1.3 MB of it live at most. On the system allocator every fresh 4 KiB page of heap is a
//! page fault (about 1.8 µs each on our CI machine, some 350 per render: a tenth of its time).
//! [`start`] reserves one region and asks the kernel for transparent huge pages on it; blocks come
//! from per-thread free lists by size class, so there are no locks and no headers, and a freed
//! block is reused by the next allocation of its class on that thread.
//!
//! The arena only serves blocks up to [`LARGEST_BLOCK`] with at most 16-byte alignment, and only
//! while the region lasts; the caller ([`crate::limits::CappedAllocator`]) hands everything else
//! to the system allocator and tells the two apart by address ([`owns`]).
//!
//! A block freed on another thread than the one that carved it joins the freeing thread's list.
//! When a list grows past twice its batch (about 32 KiB of blocks), one batch moves to a shared
//! pool, from which a thread whose list is empty takes a batch before carving fresh memory: so in
//! a stream where one thread allocates what others free (inject reads documents on one thread and
//! transforms them on the others), memory goes round instead of piling up on the freeing side.

use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once, PoisonError};

/// The largest block the arena serves; larger ones go to the system allocator.
///
/// Up to 1 MiB: a template's output, a rendered stream and a chart's files are tens to hundreds
/// of kilobytes, and from the system allocator each fresh 4 KiB page of them was a page fault
/// (two thirds of the 500 faults of a CRD render, half of them as such buffers doubled).
pub const LARGEST_BLOCK: usize = 1 << 20;

/// Virtual address space reserved; only the pages touched become resident, 2 MiB at a time.
const REGION_BYTES: usize = 32 << 20;
const HUGE_PAGE: usize = 2 << 20;
/// What a thread takes from the region at once, to carve blocks from without atomics.
const CHUNK_BYTES: usize = 128 << 10;
const BLOCK_ALIGN: usize = 16;
/// Classes: 16-byte steps up to 512 bytes (32), then four per doubling up to 1 MiB (44).
const CLASSES: usize = 76;
/// Blocks larger than this are carved straight from the region, not from a thread's chunk,
/// whose unused rest they would otherwise leave behind.
const LARGEST_CARVED_FROM_CHUNK: usize = 32 << 10;
/// How much of the region may be handed out before blocks larger than
/// [`LARGEST_CARVED_FROM_CHUNK`] are no longer carved from it (one already freed is still
/// reused). A Linkerd render takes at most 3 MB, so its buffers stay on huge pages; a big
/// Helm chart carves megabytes of file texts and outputs, and a freed one only ever serves its
/// own size class again: from the system allocator, which gives freed blocks back,
/// kube-prometheus-stack's peak RSS fell from 31.7 to 27.3 MiB with no change in its time.
pub const LARGE_BLOCKS_FROM_REGION_UNTIL: usize = 4 << 20;

/// The region's start once the arena serves from it ([`open`]); zero before.
static START: AtomicUsize = AtomicUsize::new(0);
/// The region's start once it is reserved.
static RESERVED: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
static NEXT_CHUNK: AtomicUsize = AtomicUsize::new(0);

/// Per class, a stack of batches threads gave up: each batch's first block holds, in its second
/// word, the next batch.
static POOLS: [Mutex<usize>; CLASSES] = [const { Mutex::new(0) }; CLASSES];
/// Per class, how many batches its pool holds, read without the lock: a thread whose list is
/// empty (every allocation of a growing heap) looks here before locking. A batch given at that
/// moment may be missed; the block is then carved fresh, which is only less thrifty.
static POOLED: [AtomicUsize; CLASSES] = [const { AtomicUsize::new(0) }; CLASSES];

struct ThreadHeap {
    /// Heads of singly linked lists of free blocks; a free block holds the next one's address.
    free: [usize; CLASSES],
    /// How many blocks each list holds.
    count: [u16; CLASSES],
    /// The unused rest of this thread's current chunk.
    carve_from: usize,
    carve_end: usize,
}

thread_local! {
    // Constant-initialised and without a destructor: no allocation or registration on first use,
    // so the allocator can use it.
    static HEAP: UnsafeCell<ThreadHeap> = const {
        UnsafeCell::new(ThreadHeap {
            free: [0; CLASSES],
            count: [0; CLASSES],
            carve_from: 0,
            carve_end: 0,
        })
    };
}

/// Reserves the region and serves from it; until this runs (or if the kernel refuses), the
/// arena serves nothing. Calling it again, from any thread, does nothing: one region for the
/// whole process.
pub fn start() {
    reserve();
    open();
}

/// Reserves the region without serving from it yet: small blocks come from a static buffer
/// (the first 1 MiB, see `EARLY_BYTES`) until [`open`] (or [`page_in_and_open`]) runs.
pub fn reserve() {
    // A second region would leave the first one's blocks unrecognised by [`owns`].
    static RESERVE: Once = Once::new();
    RESERVE.call_once(reserve_region);
}

/// Serves from the reserved region from now on (if it was reserved).
pub fn open() {
    let start = RESERVED.load(Ordering::Relaxed);
    // Published last: whoever sees START also sees END and NEXT_CHUNK.
    START.store(start, Ordering::Release);
}

/// How much of the region [`page_in_and_open`] touches: the first two huge pages, which cover
/// a CRD render (1.4 to 2.1 MB) and most of a control plane's (2.7 MB).
const PAGED_IN_AHEAD: usize = HUGE_PAGE;

/// Pages in the start of the reserved region, then [`open`]s it: for a thread on another core,
/// at start-up. The kernel zeroes a huge page as it is first touched, about 250 us on our CI
/// machine; done here, the main thread's first blocks come from the static early buffer
/// meanwhile instead of waiting for that.
pub fn page_in_and_open() {
    let start = RESERVED.load(Ordering::Relaxed);
    if start != 0 {
        let end = END.load(Ordering::Relaxed);
        let mut page = start;
        while page < end && page < start + PAGED_IN_AHEAD {
            // SAFETY: inside the region, which nothing serves yet; one write faults the page in
            // and leaves it zero again.
            unsafe { std::ptr::write_volatile(page as *mut u8, 0) };
            page += HUGE_PAGE;
        }
    }
    open();
}

/// How much of the early buffer [`populate_early`] maps: about what a CRD render's start takes
/// from it before the region opens (some 450 KiB). A control plane given certificate files
/// takes the whole buffer, but mapping 1.5 MiB of a larger one delayed the helper's other work
/// more than it saved (a CRD render 1.06x the time, a control plane 1.03x).
const EARLY_POPULATED: usize = 640 << 10;

/// Maps the early buffer's pages ahead of their use, in one call: for a thread on another
/// core, first thing at start-up. Each 4 KiB page of the buffer first touched by a write costs
/// a page fault (about 1.8 us on a virtual machine, some 120 of them at a render's start); the
/// kernel maps a range asked for at once for a fraction of that. Pages another thread reaches
/// first are left as they are. Mapped by the main thread before it starts the others, the
/// same pages made a render slower (1.08x a CRD render), so the helper does it. Without a
/// reserved region the buffer serves nothing, and nothing is mapped.
pub fn populate_early() {
    if RESERVED.load(Ordering::Relaxed) == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on our own static buffer; populating writes nothing into it. A kernel
    // without MADV_POPULATE_WRITE (before 5.14) refuses it, and the pages fault in as usual.
    unsafe {
        libc::madvise(
            EARLY.start() as *mut libc::c_void,
            EARLY_POPULATED,
            libc::MADV_POPULATE_WRITE,
        );
    }
}

fn reserve_region() {
    // SAFETY: a fresh anonymous private mapping; we only ever touch addresses inside it.
    unsafe {
        let mapping = libc::mmap(
            std::ptr::null_mut(),
            REGION_BYTES + HUGE_PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if mapping == libc::MAP_FAILED {
            return;
        }
        // Huge pages need 2 MiB alignment; the slack before and after stays untouched.
        let start = (mapping as usize + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
        // Advice only: without transparent huge pages the arena still works, on 4 KiB pages.
        libc::madvise(
            start as *mut libc::c_void,
            REGION_BYTES,
            libc::MADV_HUGEPAGE,
        );
        END.store(start + REGION_BYTES, Ordering::Relaxed);
        NEXT_CHUNK.store(start, Ordering::Relaxed);
        RESERVED.store(start, Ordering::Release);
    }
}

/// The size class of a block of `size` bytes: its index and the bytes it really gets.
fn class_of(size: usize) -> (usize, usize) {
    let size = size.max(1);
    if size <= 512 {
        let index = size.div_ceil(16) - 1;
        return (index, (index + 1) * 16);
    }
    let power = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let step = 1 << (power - 2);
    let quarter = (size - 1 - (1 << power)) >> (power - 2);
    (
        32 + (power - 9) * 4 + quarter,
        (1 << power) + (quarter + 1) * step,
    )
}

fn serves(layout: Layout) -> bool {
    layout.size() <= LARGEST_BLOCK && layout.align() <= BLOCK_ALIGN
}

/// Whether `ptr` came from the arena (and so must go back to it).
pub fn owns(ptr: *mut u8) -> bool {
    let address = ptr as usize;
    let start = START.load(Ordering::Acquire);
    (start != 0 && address >= start && address < END.load(Ordering::Relaxed))
        || EARLY.holds(address)
}

/// What the arena serves between [`reserve`] and [`open`] (while the helper pages the region
/// in), carved from a static buffer: so that those blocks do not come from the system
/// allocator, whose first use on each thread maps memory and may unmap some again (musl's
/// gives back every block it maps on its own; each unmapping interrupts the process's other
/// cores). Freed, they join the free lists like any block of the region.
const EARLY_BYTES: usize = 1 << 20;

#[repr(C, align(4096))]
struct Early(UnsafeCell<[u8; EARLY_BYTES]>);

// SAFETY: each byte of the buffer is handed out once ([`EARLY_NEXT`] is an atomic bump), and
// from then on belongs to the block's owner.
unsafe impl Sync for Early {}

impl Early {
    fn start(&self) -> usize {
        self.0.get() as usize
    }

    fn holds(&self, address: usize) -> bool {
        address >= self.start() && address < self.start() + EARLY_BYTES
    }

    /// `bytes` (a multiple of 16) carved from the buffer, or null once it is used up.
    fn carve(&self, bytes: usize) -> *mut u8 {
        match EARLY_NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
            (next + bytes <= EARLY_BYTES).then_some(next + bytes)
        }) {
            Ok(offset) => (self.start() + offset) as *mut u8,
            Err(_) => std::ptr::null_mut(),
        }
    }
}

static EARLY: Early = Early(UnsafeCell::new([0; EARLY_BYTES]));
static EARLY_NEXT: AtomicUsize = AtomicUsize::new(0);

/// A block for `layout`, or null when the arena does not serve it (not started, too large,
/// over-aligned, region used up).
pub fn alloc(layout: Layout) -> *mut u8 {
    if !serves(layout) {
        return std::ptr::null_mut();
    }
    if START.load(Ordering::Acquire) == 0 {
        if RESERVED.load(Ordering::Relaxed) == 0 {
            return std::ptr::null_mut();
        }
        return EARLY.carve(class_of(layout.size()).1);
    }
    let (class, bytes) = class_of(layout.size());
    HEAP.try_with(|heap| {
        // SAFETY: the heap is this thread's own, and nothing below re-enters the allocator.
        let heap = unsafe { &mut *heap.get() };
        if heap.free[class] == 0 {
            match take_batch(class) {
                Some(batch) => {
                    heap.free[class] = batch;
                    heap.count[class] = batch_len(bytes);
                }
                None => return heap.carve(bytes),
            }
        }
        let head = heap.free[class];
        // SAFETY: a free block of this class holds the address of the next one.
        heap.free[class] = unsafe { *(head as *const usize) };
        heap.count[class] -= 1;
        head as *mut u8
    })
    .unwrap_or(std::ptr::null_mut())
}

/// Whether growing or shrinking a block from `old` to `new` bytes can keep it where it is.
pub fn fits_in_place(old: usize, new: usize) -> bool {
    new <= LARGEST_BLOCK && class_of(old).0 == class_of(new).0
}

/// Returns an arena block (one [`owns`] says is ours) to the calling thread's free list.
///
/// # Safety
/// `ptr` must have come from [`alloc`] with a layout of the same size, and not be used again.
pub unsafe fn free(ptr: *mut u8, layout: Layout) {
    let (class, bytes) = class_of(layout.size());
    // Without this thread's heap (it is being torn down) the block is simply not reused.
    let _ = HEAP.try_with(|heap| {
        // SAFETY: as in `alloc`; the block is at least 16 bytes, room for the links.
        unsafe {
            let heap = &mut *heap.get();
            *(ptr as *mut usize) = heap.free[class];
            heap.free[class] = ptr as usize;
            heap.count[class] += 1;
            let batch = batch_len(bytes);
            if heap.count[class] >= 2 * batch {
                heap.give_batch(class, batch);
            }
        }
    });
}

/// How many blocks of `bytes` move between a thread and the pool at once: about 32 KiB, and
/// at least two.
fn batch_len(bytes: usize) -> u16 {
    // At most 64, so the cast is exact.
    ((32 << 10) / bytes).clamp(2, 64) as u16
}

/// A batch of free blocks of `class` from the shared pool, if there is one.
fn take_batch(class: usize) -> Option<usize> {
    if POOLED[class].load(Ordering::Relaxed) == 0 {
        return None;
    }
    let mut pool = POOLS[class].lock().unwrap_or_else(PoisonError::into_inner);
    let batch = *pool;
    if batch == 0 {
        return None;
    }
    POOLED[class].fetch_sub(1, Ordering::Relaxed);
    // SAFETY: a pooled batch's first block holds the next batch in its second word.
    *pool = unsafe { *((batch + size_of::<usize>()) as *const usize) };
    Some(batch)
}

impl ThreadHeap {
    /// Moves the first `batch` blocks of list `class` to the shared pool.
    ///
    /// # Safety
    /// The list must hold at least `batch` blocks.
    unsafe fn give_batch(&mut self, class: usize, batch: u16) {
        let first = self.free[class];
        let mut last = first;
        // SAFETY: the list's blocks link to each other; it has at least `batch` of them.
        unsafe {
            for _ in 1..batch {
                last = *(last as *const usize);
            }
            self.free[class] = *(last as *const usize);
            *(last as *mut usize) = 0;
        }
        self.count[class] -= batch;
        let mut pool = POOLS[class].lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: the block is at least 16 bytes; its second word links the pool's batches.
        unsafe { *((first + size_of::<usize>()) as *mut usize) = *pool };
        *pool = first;
        POOLED[class].fetch_add(1, Ordering::Relaxed);
    }

    fn carve(&mut self, bytes: usize) -> *mut u8 {
        if bytes > LARGEST_CARVED_FROM_CHUNK {
            let used = NEXT_CHUNK.load(Ordering::Relaxed) - START.load(Ordering::Relaxed);
            if used > LARGE_BLOCKS_FROM_REGION_UNTIL {
                return std::ptr::null_mut();
            }
            return take_from_region(bytes);
        }
        if self.carve_end - self.carve_from < bytes {
            let end = END.load(Ordering::Relaxed);
            let taken = NEXT_CHUNK.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
                (next + CHUNK_BYTES <= end).then_some(next + CHUNK_BYTES)
            });
            let Ok(chunk) = taken else {
                return std::ptr::null_mut();
            };
            // The rest of the old chunk (smaller than this block) is left unused.
            self.carve_from = chunk;
            self.carve_end = chunk + CHUNK_BYTES;
        }
        let block = self.carve_from;
        self.carve_from += bytes;
        block as *mut u8
    }
}

/// `bytes` (a multiple of the block alignment) straight from the region; null when it is used up.
fn take_from_region(bytes: usize) -> *mut u8 {
    let end = END.load(Ordering::Relaxed);
    NEXT_CHUNK
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
            (next + bytes <= end).then_some(next + bytes)
        })
        .map_or(std::ptr::null_mut(), |block| block as *mut u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_gets_a_class_at_least_as_large_in_16_byte_multiples() {
        let mut previous = class_of(1);
        for size in 1..=LARGEST_BLOCK {
            let (class, bytes) = class_of(size);
            assert!(
                bytes >= size && bytes % BLOCK_ALIGN == 0,
                "size {size}: {bytes}"
            );
            assert!(class < CLASSES, "size {size}: class {class}");
            assert!(class >= previous.0 && (class > previous.0 || bytes == previous.1));
            previous = (class, bytes);
        }
        assert_eq!(class_of(LARGEST_BLOCK), (CLASSES - 1, LARGEST_BLOCK));
    }

    #[test]
    fn classes_waste_at_most_a_quarter_past_512_bytes() {
        for size in 513..=LARGEST_BLOCK {
            let (_, bytes) = class_of(size);
            assert!(bytes - size < size / 4 + 1, "size {size}: {bytes}");
        }
    }

    #[test]
    fn a_freed_block_is_reused_by_the_next_allocation_of_its_class() {
        start();
        let layout = Layout::from_size_align(40, 8).expect("layout");
        let first = alloc(layout);
        assert!(owns(first));
        // SAFETY: from `alloc` with this layout, not used again.
        unsafe { free(first, layout) };
        assert_eq!(
            alloc(Layout::from_size_align(48, 16).expect("layout")),
            first
        );
    }

    #[test]
    fn large_or_over_aligned_blocks_are_left_to_the_system_allocator() {
        start();
        assert!(alloc(Layout::from_size_align(LARGEST_BLOCK + 1, 8).expect("layout")).is_null());
        assert!(alloc(Layout::from_size_align(64, 64).expect("layout")).is_null());
        assert!(!owns(std::ptr::null_mut()));
    }

    #[test]
    fn a_block_larger_than_a_chunk_comes_from_the_region_and_is_reused() {
        start();
        // A class no other test here uses (see below).
        let layout = Layout::from_size_align(600_000, 8).expect("layout");
        let block = alloc(layout);
        assert!(owns(block));
        // SAFETY: the block has 600,000 bytes and is ours until freed below.
        unsafe { std::ptr::write_bytes(block, 7, layout.size()) };
        // SAFETY: from `alloc` with this layout, not used again.
        unsafe { free(block, layout) };
        assert_eq!(alloc(layout), block);
    }

    #[test]
    fn blocks_freed_on_another_thread_come_back_through_the_pool() {
        start();
        // A class no other test here uses: they run at the same time and share the pool.
        let layout = Layout::from_size_align(20_000, 8).expect("layout");
        let batch = usize::from(batch_len(class_of(20_000).1));
        // One thread allocates, another frees: the freeing side gives batches to the pool...
        let blocks: Vec<usize> = (0..4 * batch).map(|_| alloc(layout) as usize).collect();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                for &block in &blocks {
                    // SAFETY: each from `alloc` with this layout, freed once.
                    unsafe { free(block as *mut u8, layout) };
                }
            });
        });
        // ...and the allocating side takes them back instead of carving new memory.
        let again: Vec<usize> = (0..2 * batch).map(|_| alloc(layout) as usize).collect();
        assert!(again.iter().all(|block| blocks.contains(block)));
    }

    #[test]
    fn blocks_keep_their_contents_while_threads_allocate_and_free_each_others_blocks() {
        start();
        // Each block is filled with a byte naming it; a block handed out twice, or a link
        // written into a block in use, shows as a wrong byte.
        fn fill(block: usize, size: usize, tag: u8) {
            // SAFETY: an arena block of at least `size` bytes, owned by the caller.
            unsafe { std::ptr::write_bytes(block as *mut u8, tag, size) };
        }
        fn intact(block: usize, size: usize, tag: u8) -> bool {
            // SAFETY: as in `fill`.
            unsafe { std::slice::from_raw_parts(block as *const u8, size) }
                .iter()
                .all(|&b| b == tag)
        }
        let (to_other, from_other) = std::sync::mpsc::channel::<Vec<(usize, usize, u8)>>();
        std::thread::scope(|scope| {
            let producer = scope.spawn(move || {
                let mut kept = Vec::new();
                for round in 0..200usize {
                    let mut batch = Vec::new();
                    for i in 0..64usize {
                        let size = (round * 131 + i * 17) % 5000 + 1;
                        let tag = (round + i) as u8;
                        let block =
                            alloc(Layout::from_size_align(size, 8).expect("layout")) as usize;
                        assert_ne!(block, 0);
                        fill(block, size, tag);
                        if i % 4 == 0 {
                            kept.push((block, size, tag))
                        } else {
                            batch.push((block, size, tag))
                        }
                    }
                    to_other.send(batch).expect("consumer");
                    // Free some of our own, in a different order than allocated.
                    while kept.len() > 32 {
                        let (block, size, tag) = kept.swap_remove(round % kept.len());
                        assert!(intact(block, size, tag), "a kept block changed");
                        // SAFETY: from `alloc` with this size, freed once.
                        unsafe {
                            free(
                                block as *mut u8,
                                Layout::from_size_align(size, 8).expect("layout"),
                            )
                        };
                    }
                }
                kept
            });
            let consumer = scope.spawn(move || {
                for batch in from_other {
                    for (block, size, tag) in batch {
                        assert!(intact(block, size, tag), "a block changed on its way");
                        // SAFETY: from `alloc` on the other thread with this size, freed once.
                        unsafe {
                            free(
                                block as *mut u8,
                                Layout::from_size_align(size, 8).expect("layout"),
                            )
                        };
                    }
                    // And allocate for ourselves meanwhile, from what came back through the pool.
                    let mine = alloc(Layout::from_size_align(100, 8).expect("layout")) as usize;
                    fill(mine, 100, 0xEE);
                    assert!(intact(mine, 100, 0xEE));
                    // SAFETY: just allocated with this size.
                    unsafe {
                        free(
                            mine as *mut u8,
                            Layout::from_size_align(100, 8).expect("layout"),
                        )
                    };
                }
            });
            for (block, size, tag) in producer.join().expect("producer") {
                assert!(intact(block, size, tag), "a kept block changed at the end");
            }
            consumer.join().expect("consumer");
        });
    }

    #[test]
    fn blocks_in_use_never_overlap_across_threads() {
        start();
        let blocks: Vec<(usize, usize)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|worker| {
                    scope.spawn(move || {
                        (1..200)
                            .map(|i| {
                                let size = (i * 37 + worker * 11) % 3000 + 1;
                                let layout = Layout::from_size_align(size, 8).expect("layout");
                                (alloc(layout) as usize, size)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("worker"))
                .collect()
        });
        let mut sorted = blocks;
        sorted.sort_unstable();
        for pair in sorted.windows(2) {
            assert!(
                pair[0].0 != 0 && pair[0].0 + pair[0].1 <= pair[1].0,
                "{pair:?}"
            );
        }
    }
}
