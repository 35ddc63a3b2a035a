//! The `yttcheck` binary.

/// Evaluation recurses (YAML trees, Starlark): give it a deep stack.
const STACK_SIZE: usize = 64 * 1024 * 1024;

fn main() {
    let code = std::thread::Builder::new()
        .name("yttcheck".into())
        .stack_size(STACK_SIZE)
        .spawn(yttcheck::cli::main)
        .expect("spawn main thread")
        .join()
        .unwrap_or(70);
    std::process::exit(code);
}

/// The check allocates many small, short-lived values (YAML trees, Starlark
/// heaps): mimalloc is measurably faster than the system allocator here
/// (see the README's performance section).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
