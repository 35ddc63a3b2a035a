//! The daemon's request decoder: a request line as a client (or anything
//! else of the same user) may send it, and the typed check request it
//! carries, which must survive a round trip unchanged (what the daemon runs
//! is what the client asked).
#![no_main]
use libfuzzer_sys::fuzz_target;
use yttcheck::daemon::protocol::Request;

fuzz_target!(|data: &[u8]| {
    if let Ok(Request::Check(call)) = serde_json::from_slice::<Request>(data) {
        let again = serde_json::to_vec(&call.request).expect("a request serializes");
        let back: yttcheck::app::CheckRequest =
            serde_json::from_slice(&again).expect("a request reads back");
        // NaN budgets are not equal to themselves: compare what is comparable
        if call.request.budget.timeout.is_none_or(|t| !t.is_nan()) {
            assert_eq!(back, call.request);
        }
    }
});
