//! The GitHub Actions runner's reading of a step's output, after
//! actions/runner (`ActionCommandManager`, `ActionCommand.TryParseV2` and
//! `TryParse`): lines end at LF, CRLF or a lone CR; `::name props::data`
//! is a command when the line, less its leading white space, starts with
//! `::`; the legacy `##[name props]data` is one anywhere in a line;
//! `::stop-commands::TOKEN` stops every command until one named TOKEN.
//! Characters a culture-aware comparison ignores are dropped first (the
//! runner searches with .NET's culture-sensitive `IndexOf`).
//!
//! Shared by the hostile pull request test and the CI printers' fuzz
//! target (`fuzz/fuzz_targets/ci_printers.rs` includes this file).

/// The commands the Actions runner knows (actions/runner's
/// `ActionCommandManager` and its extensions).
const REGISTERED: &[&str] = &[
    "stop-commands",
    "set-env",
    "set-output",
    "save-state",
    "add-path",
    "add-mask",
    "add-matcher",
    "remove-matcher",
    "warning",
    "error",
    "notice",
    "debug",
    "group",
    "endgroup",
    "echo",
];

/// A command the runner would run: its name, properties and data.
#[derive(Debug, Clone)]
struct RunnerCommand {
    name: String,
    props: String,
    data: String,
}

/// The runner's reading of one stream.
#[derive(Default)]
struct Runner {
    stopped: Option<String>,
    commands: Vec<RunnerCommand>,
}

/// Characters a culture-aware comparison ignores (the runner finds `::`
/// and `##[` with .NET's culture-sensitive `IndexOf`): dropped before
/// parsing, so that `:\u{200b}:` counts as `::` here.
fn ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00ad | 0x034f | 0x180e | 0x200b..=0x200f | 0x202a..=0x202e
        | 0x2060..=0x2064 | 0xfe00..=0xfe0f | 0xfeff)
}

fn split_header(info: &str, data: &str) -> RunnerCommand {
    let (name, props) = info.split_once(' ').unwrap_or((info, ""));
    RunnerCommand {
        name: name.to_string(),
        props: props.to_string(),
        data: data.to_string(),
    }
}

/// `::name props::data`, after leading white space.
fn parse_v2(line: &str) -> Option<RunnerCommand> {
    let t = line.trim_start();
    let rest = t.strip_prefix("::")?;
    let end = rest.find("::")?;
    Some(split_header(&rest[..end], &rest[end + 2..]))
}

/// `##[name props]data`, anywhere in the line.
fn parse_legacy(line: &str) -> Option<RunnerCommand> {
    let i = line.find("##[")?;
    let rest = &line[i + 3..];
    let end = rest.find(']')?;
    Some(split_header(&rest[..end], &rest[end + 1..]))
}

impl Runner {
    fn read(stream: &str) -> Runner {
        let mut r = Runner::default();
        let normalized = stream.replace("\r\n", "\n").replace('\r', "\n");
        for line in normalized.split('\n') {
            let line: String = line.chars().filter(|c| !ignorable(*c)).collect();
            r.line(&line);
        }
        r
    }

    fn line(&mut self, line: &str) {
        if !line.contains("::") && !line.contains("##[") {
            return;
        }
        let parsed = [parse_v2(line), parse_legacy(line)];
        if let Some(token) = self.stopped.clone() {
            if parsed
                .iter()
                .flatten()
                .any(|c| c.name.eq_ignore_ascii_case(&token))
            {
                self.stopped = None;
                self.commands.push(RunnerCommand {
                    name: "(resume)".into(),
                    props: String::new(),
                    data: token,
                });
            }
            return;
        }
        let known = |c: &RunnerCommand| REGISTERED.iter().any(|r| r.eq_ignore_ascii_case(&c.name));
        let Some(cmd) = parsed.into_iter().flatten().find(known) else {
            return;
        };
        if cmd.name.eq_ignore_ascii_case("stop-commands") {
            self.stopped = Some(cmd.data.clone());
        }
        self.commands.push(cmd);
    }
}

/// Fails on any command yttcheck does not emit: groups of its report, its
/// own stop-commands blocks (resumed by their token), and annotations it
/// titled.
pub fn assert_only_our_commands(what: &str, stream: &str) {
    let r = Runner::read(stream);
    assert!(
        r.stopped.is_none(),
        "{what}: commands left stopped:\n{stream}"
    );
    let mut open_token: Option<String> = None;
    for c in &r.commands {
        let ok = match c.name.as_str() {
            "group" => c.data == "yttcheck report",
            "endgroup" => c.data.is_empty(),
            "stop-commands" => {
                open_token = Some(c.data.clone());
                c.data.starts_with("yttcheck-") && c.data.len() == 41
            }
            "(resume)" => open_token.take().as_deref() == Some(c.data.as_str()),
            "error" | "warning" | "notice" => c
                .props
                .split(',')
                .any(|p| p == "title=yttcheck" || p.starts_with("title=yttcheck ")),
            _ => false,
        };
        assert!(
            ok,
            "{what}: a command yttcheck did not mean: {c:?}\n{stream}"
        );
    }
}
