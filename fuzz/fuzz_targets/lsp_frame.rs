//! The language server's input: arbitrary bytes through the bounded reader
//! (`lsp::frame::Bounded`) and lsp-server's `Message::read`, as anything
//! that writes to the server's stdin may send them. No panic; every read
//! makes progress, so the input's end is reached; and no allocation is
//! ever near what a `Content-Length` claims: the limit is small here, and
//! the largest single allocation of a run is checked against it.
#![no_main]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use libfuzzer_sys::fuzz_target;
use yttcheck::lsp::frame::{Bounded, Next, MAX_HEADER_LINE};

/// The largest frame read in this target.
const LIMIT: u64 = 4096;

/// The system's allocator, keeping the size of the largest allocation.
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

fuzz_target!(|data: &[u8]| {
    // a small buffer: frames and header lines cross its edges
    let mut input = Bounded::new(std::io::BufReader::with_capacity(16, data), LIMIT);
    LARGEST.store(0, Ordering::Relaxed);
    let mut ended = false;
    // each read takes at least a byte, or ends
    for _ in 0..data.len() + 2 {
        match input.read_next() {
            Next::Message(_) | Next::Invalid(_) => {}
            Next::End => {
                ended = true;
                break;
            }
        }
    }
    assert!(ended, "the reader did not reach the end of its input");
    // a frame, a header line, the messages made of them (a parse error
    // quotes its frame), with room to spare
    let bound = 16 * (LIMIT as usize + MAX_HEADER_LINE) + (1 << 16);
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(largest <= bound, "an allocation of {largest} bytes");
});
