-- The screenshot of docs/editors.md: Neovim's built-in LSP client on
-- homeflow.pdl with a misspelled risk, its diagnostic shown as the
-- client shows it (sign, underline, virtual text). Writes $SHOT_READY
-- once the diagnostic is on screen; TestScreenshot captures the pane.
local bin, ready = vim.env.PILOTAGE_BIN, vim.env.SHOT_READY
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.wrap = false
vim.o.shortmess = vim.o.shortmess .. 'F'
vim.cmd('syntax off')
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({ cmd = { bin, 'lsp', '--stdio' }, root_dir = vim.fn.getcwd() })
vim.lsp.buf_attach_client(buf, id)
local l
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if line:find('entry "lights.set" kind=device risk=write {', 1, true) then l = i - 1 end
end
vim.api.nvim_buf_set_lines(buf, l, l + 1, false, { 'entry "lights.set" kind=device risk=wirte {' })
vim.bo.modified = false
vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
vim.api.nvim_win_set_cursor(0, { l + 1, 0 })
vim.cmd('normal! zz')
vim.cmd('redraw!')
vim.cmd('echo ""')
vim.fn.writefile({ 'ready' }, ready)
