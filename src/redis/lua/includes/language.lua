--[[
  A template language as one key: Meta writes `en_US` in its lists and sends and `en-US` in
  some template webhooks, one translation either way (src/templates/language-code.ts holds the
  same rule for the rest of the code).

  Defines: languageKey(code)
]]
local function languageKey(code)
  return (string.gsub(code or '', '-', '_'))
end
