//! The daemon's request decoder: a request line as a client (or anything
//! else of the same user) may send it, and the check arguments it carries.
#![no_main]
use libfuzzer_sys::fuzz_target;
use yttcheck::daemon::protocol::Request;

fuzz_target!(|data: &[u8]| {
    if let Ok(Request::Check(call)) = serde_json::from_slice::<Request>(data) {
        let _ = yttcheck::cli::daemon::parse_check_args(&call.argv);
    }
});
