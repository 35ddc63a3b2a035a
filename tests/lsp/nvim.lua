-- Neovim's built-in LSP client against `yttcheck lsp`, headless: opens a
-- values file, waits for its diagnostics, edits the buffer (unsaved) and
-- waits for them to clear, hovers on a schema key, and writes what it saw
-- to $OUT, one fact per line. Run by tests/it/lsp.rs:
--   YTTCHECK_BIN=... REPO=... OUT=... nvim --headless -u NONE -c 'luafile tests/lsp/nvim.lua'
local bin, root, out = os.getenv("YTTCHECK_BIN"), os.getenv("REPO"), os.getenv("OUT")
local seen = {}
local function note(s) table.insert(seen, s) end
local function finish()
  local f = io.open(out, "w")
  f:write(table.concat(seen, "\n") .. "\n")
  f:close()
  vim.cmd("qa!")
end

local id = vim.lsp.start_client({
  name = "yttcheck",
  cmd = { bin, "lsp" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "repo" } },
})
if not id then
  note("no client")
  finish()
end

vim.cmd("edit " .. root .. "/envs/prod/web.yml")
local prod = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(prod, id)
if vim.wait(20000, function() return #vim.diagnostic.get(prod) > 0 end, 20) then
  for _, d in ipairs(vim.diagnostic.get(prod)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
    note("diagnostic " .. code .. " line " .. d.lnum .. " severity " .. d.severity)
  end
else
  note("no diagnostics")
end

-- an unsaved edit that fixes it
vim.api.nvim_buf_set_lines(prod, 0, -1, false, { "replicas: 3" })
if vim.wait(20000, function() return #vim.diagnostic.get(prod) == 0 end, 20) then
  note("cleared after edit")
else
  note("not cleared")
end
note("on disk: " .. vim.fn.readfile(root .. "/envs/prod/web.yml")[1])

vim.cmd("edit " .. root .. "/libs/web/schema.yml")
local schema = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(schema, id)
local client = vim.lsp.get_client_by_id(id)
vim.wait(5000, function() return client.initialized end, 20)
local reply = client.request_sync("textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(schema) },
  position = { line = 3, character = 2 },
}, 20000, schema)
if reply and reply.result and reply.result.contents then
  for line in reply.result.contents.value:gmatch("[^\n]+") do
    note("hover " .. line)
  end
else
  note("no hover: " .. vim.inspect(reply))
end
finish()
