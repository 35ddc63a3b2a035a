"""yttcheck lsp, driven by a real LSP client (pytest-lsp, over stdio).

Run by tests/it/lsp.rs with YTTCHECK_BIN set to the built binary.
"""

import os
import pathlib
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

BIN = os.environ["YTTCHECK_BIN"]

SCHEMA = """#@data/values-schema
---
#@schema/validation min=1
replicas: 1
#@schema/deprecated "use replicas"
instances: 0
"""

TEMPLATE = """#@ load("@ytt:data", "data")
---
kind: Deployment
spec:
  replicas: #@ data.values.replicas
"""


def make_repo(root: pathlib.Path) -> pathlib.Path:
    (root / "libs/web").mkdir(parents=True)
    (root / "libs/web/schema.yml").write_text(SCHEMA)
    (root / "libs/web/deploy.yml").write_text(TEMPLATE)
    for env, replicas in [("dev", 2), ("prod", 0)]:
        (root / "envs" / env).mkdir(parents=True)
        (root / "envs" / env / "web.yml").write_text(f"replicas: {replicas}\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def uri(path: pathlib.Path) -> str:
    return path.resolve().as_uri()


def codes(client: LanguageClient, path: pathlib.Path) -> list:
    return sorted(d.code for d in client.diagnostics.get(uri(path), []))


async def next_diagnostics(client: LanguageClient, path: pathlib.Path, want):
    """Waits for published diagnostics until `want(codes)` holds."""
    for _ in range(20):
        if want(codes(client, path)):
            return
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    raise AssertionError(f"diagnostics of {path} never satisfied the test: {codes(client, path)}")


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BIN, "lsp"]))
async def client(lsp_client: LanguageClient, repo):
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(),
        workspace_folders=[types.WorkspaceFolder(uri=uri(repo), name="repo")],
    )
    result = await lsp_client.initialize_session(params)
    assert result.server_info.name == "yttcheck"
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_findings_of_files_not_open_are_published(client: LanguageClient, repo):
    prod = repo / "envs/prod/web.yml"
    await next_diagnostics(client, prod, lambda c: c == ["validation/min"])
    d = client.diagnostics[uri(prod)][0]
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.source == "yttcheck"
    assert d.range.start.line == 0
    assert d.message.endswith("[prod]"), d.message
    assert d.code_description.href.endswith("docs/rules.md")
    related = d.related_information[0]
    assert related.location.uri == uri(repo / "libs/web/schema.yml")
    assert related.location.range.start.line == 2
    # a clean environment has no diagnostics at all
    assert codes(client, repo / "envs/dev/web.yml") == []


@pytest.mark.asyncio
async def test_files_changed_outside_the_editor_are_checked_again(client: LanguageClient, repo):
    # this client cannot watch files: the server's own watcher sees the change
    prod = repo / "envs/prod/web.yml"
    await next_diagnostics(client, prod, lambda c: c == ["validation/min"])
    prod.write_text("replicas: 3\n")
    await next_diagnostics(client, prod, lambda c: c == [])
    prod.write_text("replicaz: 3\n")
    await next_diagnostics(client, prod, lambda c: c == ["schema/undeclared-key"])


@pytest.mark.asyncio
async def test_workspace_folders_added_and_removed_after_start(client: LanguageClient, repo, tmp_path):
    other = make_repo(tmp_path / "other")
    prod = other / "envs/prod/web.yml"
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=uri(other), name="other")], removed=[]
            )
        )
    )
    await next_diagnostics(client, prod, lambda c: c == ["validation/min"])
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[types.WorkspaceFolder(uri=uri(other), name="other")]
            )
        )
    )
    await next_diagnostics(client, prod, lambda c: c == [])


@pytest.mark.asyncio
async def test_unsaved_edits_are_checked_and_fixed_findings_cleared(client: LanguageClient, repo):
    prod = repo / "envs/prod/web.yml"
    await next_diagnostics(client, prod, lambda c: c == ["validation/min"])
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(prod), language_id="yaml", version=1, text="replicas: 0\n"
            )
        )
    )
    # fixed in the buffer, not on disk: the finding goes
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(prod), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="replicas: 3\n")],
        )
    )
    await next_diagnostics(client, prod, lambda c: c == [])
    assert prod.read_text() == "replicas: 0\n", "the server never writes the user's files"
    # a misspelt key, still unsaved: its finding is at the buffer's line 2
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(prod), version=3),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text="replicas: 3\nreplicaz: 4\n")
            ],
        )
    )
    await next_diagnostics(client, prod, lambda c: c == ["schema/undeclared-key"])
    d = client.diagnostics[uri(prod)][0]
    assert d.range.start.line == 1
    # a deprecated value is tagged so editors strike it through
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(prod), version=4),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text="replicas: 3\ninstances: 2\n")
            ],
        )
    )
    await next_diagnostics(client, prod, lambda c: c == ["values/deprecated"])
    assert list(client.diagnostics[uri(prod)][0].tags) == [types.DiagnosticTag.Deprecated]
    # closing the buffer: the file on disk is what counts again
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri(prod)))
    )
    await next_diagnostics(client, prod, lambda c: c == ["validation/min"])


@pytest.mark.asyncio
async def test_a_broken_template_is_a_diagnostic_and_the_server_goes_on(client: LanguageClient, repo):
    template = repo / "libs/web/deploy.yml"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(template),
                language_id="yaml",
                version=1,
                text=TEMPLATE.replace("data.values.replicas", "data.values.replicas +"),
            )
        )
    )
    await next_diagnostics(client, template, lambda c: "template/error" in c)
    # and it answers the next edit
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(template), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=TEMPLATE)],
        )
    )
    await next_diagnostics(client, template, lambda c: c == [])


@pytest.mark.asyncio
async def test_hover_shows_the_final_value_in_every_environment(client: LanguageClient, repo):
    schema = repo / "libs/web/schema.yml"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(schema)),
            position=types.Position(line=3, character=2),
        )
    )
    text = hover.contents.value
    assert "`replicas`" in text, text
    assert "default `1`" in text, text
    assert "| `web@dev` | `2` | `envs/dev/web.yml:1` |" in text, text
    assert "| `web@prod` | `0` | `envs/prod/web.yml:1` |" in text, text
    # on `data.values.replicas` in the template, edited and unsaved: the
    # same values, and an unsaved values buffer counts
    prod = repo / "envs/prod/web.yml"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(prod), language_id="yaml", version=1, text="replicas: 7\n"
            )
        )
    )
    template = repo / "libs/web/deploy.yml"
    line = TEMPLATE.splitlines()[4]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(template)),
            position=types.Position(line=4, character=line.rindex("replicas") + 2),
        )
    )
    text = hover.contents.value
    assert "| `web@prod` | `7` | `envs/prod/web.yml:1` |" in text, text
    assert "| `web@dev` | `2` |" in text, text
    # nowhere in particular: no hover
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(template)),
            position=types.Position(line=1, character=0),
        )
    )
    assert hover is None


@pytest.mark.asyncio
async def test_completion_offers_the_schema_s_keys(client: LanguageClient, repo):
    prod = repo / "envs/prod/web.yml"
    # a new line in a values file: the keys not written yet, with their type
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(prod), language_id="yaml", version=1, text="replicas: 0\n\n"
            )
        )
    )
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(prod)),
            position=types.Position(line=1, character=0),
        )
    )
    items = {i.label: i for i in result}
    assert sorted(items) == ["instances"], sorted(items)
    assert items["instances"].detail == "integer"
    assert items["instances"].deprecated is True
    # after `data.values.` in a template
    template = repo / "libs/web/deploy.yml"
    text = TEMPLATE + "  other: #@ data.values.\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(template), language_id="yaml", version=1, text=text
            )
        )
    )
    line = len(text.splitlines()) - 1
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(template)),
            position=types.Position(line=line, character=len(text.splitlines()[line])),
        )
    )
    assert sorted(i.label for i in result) == ["instances", "replicas"], result


@pytest.mark.asyncio
async def test_completion_of_annotation_names_and_validation_rules(client: LanguageClient, repo):
    schema = repo / "libs/web/schema.yml"
    text = SCHEMA + "#@schema/va\nport: 1\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri(schema), language_id="yaml", version=1, text=text)
        )
    )
    line = len(SCHEMA.splitlines())
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(schema)),
            position=types.Position(line=line, character=len("#@schema/va")),
        )
    )
    items = result if isinstance(result, list) else result.items
    labels = [i.label for i in items]
    assert "schema/validation" in labels and "overlay/match" in labels, labels
    # inside @schema/validation: the named rules
    text = SCHEMA + "#@schema/validation min=1, \nport: 1\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(schema), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(schema)),
            position=types.Position(line=line, character=len("#@schema/validation min=1, ")),
        )
    )
    items = result if isinstance(result, list) else result.items
    assert "max_len=" in [i.insert_text for i in items], items


@pytest.mark.asyncio
async def test_definition_leads_to_the_schema(client: LanguageClient, repo):
    template = repo / "libs/web/deploy.yml"
    line = TEMPLATE.splitlines()[4]
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(template)),
            position=types.Position(line=4, character=line.rindex("replicas") + 1),
        )
    )
    assert result.uri == uri(repo / "libs/web/schema.yml"), result
    assert result.range.start.line == 3, result
    # from a values file's key too
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(repo / "envs/dev/web.yml")),
            position=types.Position(line=0, character=1),
        )
    )
    assert result.uri == uri(repo / "libs/web/schema.yml"), result
    assert result.range.start.line == 3, result


@pytest.mark.asyncio
async def test_document_symbols_outline_the_keys(client: LanguageClient, repo):
    schema = repo / "libs/web/schema.yml"
    result = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri(schema)))
    )
    assert [s.name for s in result] == ["replicas", "instances"], result
    assert result[0].kind == types.SymbolKind.Number
    assert result[0].range.start.line == 3
    # an unsaved buffer is what is outlined
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(schema), language_id="yaml", version=1,
                text=SCHEMA + "db:\n  host: x\n",
            )
        )
    )
    result = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri(schema)))
    )
    assert [s.name for s in result] == ["replicas", "instances", "db"], result
    assert [c.name for c in result[2].children] == ["host"]


@pytest.mark.asyncio
async def test_references_of_a_value_are_its_declaration_settings_and_reads(client: LanguageClient, repo):
    schema = repo / "libs/web/schema.yml"
    result = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri(schema)),
            position=types.Position(line=3, character=1),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    got = sorted((r.uri, r.range.start.line) for r in result)
    want = sorted([
        (uri(schema), 3),
        (uri(repo / "envs/dev/web.yml"), 0),
        (uri(repo / "envs/prod/web.yml"), 0),
        (uri(repo / "libs/web/deploy.yml"), 4),
    ])
    assert got == want, result
    read = [r for r in result if r.uri == uri(repo / "libs/web/deploy.yml")][0]
    line = TEMPLATE.splitlines()[4]
    assert read.range.start.character == line.index("data.values.replicas")
    # from the template's read, without the declaration
    result = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri(repo / "libs/web/deploy.yml")),
            position=types.Position(line=4, character=line.rindex("replicas") + 1),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert (uri(schema), 3) not in [(r.uri, r.range.start.line) for r in result], result
    assert (uri(repo / "envs/prod/web.yml"), 0) in [(r.uri, r.range.start.line) for r in result]


@pytest.mark.asyncio
async def test_code_actions_fix_a_misspelt_key_or_ignore_it(client: LanguageClient, repo):
    prod = repo / "envs/prod/web.yml"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri(prod), language_id="yaml", version=1, text="replicas: 3\nreplicaz: 4\n"
            )
        )
    )
    await next_diagnostics(client, prod, lambda c: c == ["schema/undeclared-key"])
    d = client.diagnostics[uri(prod)][0]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(prod)),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    titles = [a.title for a in actions]
    assert titles[0] == "rename 'replicaz' to 'replicas'", titles
    fix = actions[0].edit.changes[uri(prod)][0]
    assert fix.new_text == "replicas"
    assert (fix.range.start.line, fix.range.start.character, fix.range.end.character) == (1, 0, 8)
    ignore = actions[1].edit.changes[uri(prod)][0]
    assert ignore.new_text == "#! yttcheck: ignore[schema/undeclared-key] REASON\n"
    assert ignore.range.start.line == 1
