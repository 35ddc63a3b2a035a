//! The `yttcheck` binary.

/// Evaluation recurses (YAML trees, Starlark): give it a deep stack.
const STACK_SIZE: usize = 64 * 1024 * 1024;

fn main() {
    // `RUST_BACKTRACE=1` (a Rust developer's shell, some CI setups) would
    // also make every Starlark `fail()` and assertion capture a backtrace
    // for its error value, which no report shows: a quarter of a check
    // whose rules fail by the thousand. Panics still print theirs; an
    // explicit `RUST_LIB_BACKTRACE` is kept. Set before any thread starts.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        std::env::set_var("RUST_LIB_BACKTRACE", "0");
    }
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
