//! The process allocator (the memory ceiling over the huge-page arena and the system allocator),
//! installed here as the binary installs it, under the kinds of use a render and an inject make:
//! growing and shrinking buffers, maps, and blocks handed between threads.

use std::collections::BTreeMap;

#[global_allocator]
static ALLOCATOR: meshchart::limits::CappedAllocator = meshchart::limits::CappedAllocator;

/// As the binary starts it: the region reserved, paged in and opened by the helper thread
/// while the tests' first blocks come from the arena's early buffer.
fn start() {
    meshchart::arena::reserve();
    if !meshchart::parallel::ahead(meshchart::arena::page_in_and_open) {
        meshchart::arena::open();
    }
}

#[test]
fn blocks_taken_before_the_region_opens_are_the_arenas_and_are_reused_after() {
    meshchart::arena::reserve();
    let before: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 48 + i]).collect();
    assert!(before
        .iter()
        .all(|block| meshchart::arena::owns(block.as_ptr().cast_mut())));
    meshchart::arena::page_in_and_open();
    let after: Box<[u8]> = Box::new([7u8; 48]);
    assert!(meshchart::arena::owns(after.as_ptr().cast_mut()));
    assert!(before
        .iter()
        .enumerate()
        .all(|(i, block)| block.iter().all(|&b| b == i as u8)));
    drop(before);
    let reused: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 48 + i]).collect();
    assert!(reused
        .iter()
        .all(|block| meshchart::arena::owns(block.as_ptr().cast_mut())));
}

#[test]
fn buffers_keep_their_bytes_as_they_grow_past_every_size_class_and_shrink_back() {
    start();
    let mut buffer: Vec<u8> = Vec::new();
    // Grows one byte at a time through the arena's classes, into the system allocator's sizes.
    for i in 0..(meshchart::arena::LARGEST_BLOCK * 3) {
        buffer.push((i % 251) as u8);
    }
    assert!(buffer
        .iter()
        .enumerate()
        .all(|(i, &b)| b == (i % 251) as u8));
    for keep in [40_000, 20_000, 700, 33, 1] {
        buffer.truncate(keep);
        buffer.shrink_to_fit();
        assert!(buffer
            .iter()
            .enumerate()
            .all(|(i, &b)| b == (i % 251) as u8));
    }
}

#[test]
fn zeroed_blocks_are_zero_even_when_reused() {
    start();
    for round in 0..50 {
        let dirty = vec![0xAB_u8; 64 + round];
        drop(dirty);
        let clean = vec![0_u8; 64 + round];
        assert!(clean.iter().all(|&b| b == 0));
    }
}

#[test]
fn maps_built_on_one_thread_and_dropped_on_another_stay_intact() {
    start();
    let (send, receive) = std::sync::mpsc::channel::<BTreeMap<String, Vec<String>>>();
    let consumer = std::thread::spawn(move || {
        let mut seen = 0;
        for map in receive {
            for (key, values) in &map {
                assert!(values.iter().all(|v| v.starts_with(key.as_str())));
            }
            seen += map.len();
        }
        seen
    });
    for round in 0..100 {
        let map: BTreeMap<String, Vec<String>> = (0..50)
            .map(|i| {
                let key = format!("k{round}-{i}");
                let values = (0..i % 7)
                    .map(|j| format!("{key}-{j:0>width$}", width = j * 9))
                    .collect();
                (key, values)
            })
            .collect();
        send.send(map).expect("consumer");
        // Meanwhile, this thread reuses what comes back through the arena's pool.
        let scratch: Vec<String> = (0..200).map(|i| "x".repeat(i)).collect();
        assert!(scratch.iter().enumerate().all(|(i, s)| s.len() == i));
    }
    drop(send);
    assert_eq!(consumer.join().expect("consumer"), 100 * 50);
}

#[test]
fn large_blocks_come_from_the_system_once_the_region_is_past_its_share_for_them() {
    start();
    // Small blocks, kept, carry the region past the point where large ones stop coming from it.
    let small: Vec<Vec<u8>> = (0..(meshchart::arena::LARGE_BLOCKS_FROM_REGION_UNTIL / 1024 + 512))
        .map(|i| vec![(i % 251) as u8; 2000])
        .collect();
    assert!(small
        .iter()
        .all(|block| meshchart::arena::owns(block.as_ptr().cast_mut())));
    // A block freed on another thread may come back from the arena's shared pools: most must not.
    let large: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 200 << 10]).collect();
    let from_the_arena = large
        .iter()
        .filter(|block| meshchart::arena::owns(block.as_ptr().cast_mut()))
        .count();
    assert!(
        from_the_arena <= 8,
        "{from_the_arena} of 64 large blocks came from the arena"
    );
    assert!(large
        .iter()
        .enumerate()
        .all(|(i, block)| block.iter().all(|&b| b == i as u8)));
}
