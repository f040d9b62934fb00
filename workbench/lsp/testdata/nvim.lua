-- Drives `pilotage lsp` through Neovim's built-in LSP client (0.7+):
-- opens a PDL file, introduces a misspelled risk and a bad layout, waits
-- for the diagnostics, asks for hover, completion and formatting, opens
-- the broken pilotage.yaml $SETTINGS_FILE and waits for its diagnostics,
-- and writes what the client received as JSON to $LSP_OUT.
local out, bin, file = vim.env.LSP_OUT, vim.env.PILOTAGE_BIN, vim.env.PDL_FILE
local results = {}
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)
local diags, settings
local id = vim.lsp.start_client({
  cmd = { bin, 'lsp', '--stdio' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      if #result.diagnostics == 0 then return end
      if result.uri == uri then diags = result.diagnostics end
      if result.uri:sub(-#'/pilotage.yaml') == '/pilotage.yaml' then settings = result.diagnostics end
    end,
  },
})
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)
local function find(pat)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local c = l:find(pat, 1, true)
    if c then return i - 1, c - 1 end
  end
end
local l = find('entry "lights.set" kind=device risk=write {')
vim.api.nvim_buf_set_lines(buf, l, l + 1, false, { 'entry   "lights.set" kind=device risk=wirte {' })
vim.wait(20000, function() return diags ~= nil end, 20)
results.diagnostics = diags or {}
local function req(method, params)
  local resp = client.request_sync(method, params, 20000, buf)
  if not resp then return { error = 'timeout' } end
  return resp.err and { error = resp.err } or { result = resp.result }
end
local hl, hc = find('entry "sensors.read"')
results.hover = req('textDocument/hover', { textDocument = { uri = uri }, position = { line = hl, character = hc + 8 } })
local cl, cc = find('kind=device risk=safe')
results.completion = req('textDocument/completion', { textDocument = { uri = uri }, position = { line = cl, character = cc + #'kind=device risk=' } })
results.formatting = req('textDocument/formatting', { textDocument = { uri = uri }, options = { tabSize = 2, insertSpaces = true } })
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.SETTINGS_FILE))
vim.lsp.buf_attach_client(vim.api.nvim_get_current_buf(), id)
vim.wait(20000, function() return settings ~= nil end, 20)
results.settings = settings or {}
local f = io.open(out, 'w')
f:write(vim.fn.json_encode(results))
f:close()
client.stop()
vim.cmd('qa!')
