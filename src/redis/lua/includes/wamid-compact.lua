--[[
  A row's message ID, stored small: the row is kept for the retention period, and Meta's IDs
  (src/cloud-api/wamid-shape.ts) are `wamid.` and the standard base64 of a record that holds
  the recipient's digits and a short hex ID, 54–66 characters for what 18 identify. When the
  ID is exactly what the row's phone (its digits, without the `+`) and that hex ID rebuild,
  the row keeps the hex ID alone as `m`; any other ID (another shape, other digits, a base64
  that is not the one encoding of its bytes) stays as it is, as `w`. A row has one of the two.
  A hex ID of upper-case digits whose length is a multiple of 6 (Meta's have 18) is kept as
  `~` and the base64url of its bytes (13 characters for 18); any other as it is. Readers rebuild
  the ID from `p` and `m` (src/redis/ledger/row-codec.ts, stored-row.ts); nothing else reads `m`.

  Defines: setRowWamid(rec, wamid); packedHexId(hex) → what `m` keeps; B64URL_DIGITS, hexScratch; rowHasWamid(rec) → true when the row has a message ID; for
    those: metaHexId(wamid, phone) → the hex ID, or nil; base64Bytes(text) → bytes, or nil;
    B64_VALUE, decoded; RECORD_START, AFTER_DIGITS, RECORD_END, MAX_HEX_ID, MAX_WAMID
]]
-- Each character's byte → its value in the standard alphabet (A–Z, a–z, 0–9, +, /), written out: a table
-- built in a loop cost every script that includes this 3.5 µs a call, written out 0.7.
local B64_VALUE = {
  [65] = 0, [66] = 1, [67] = 2, [68] = 3, [69] = 4, [70] = 5, [71] = 6, [72] = 7,
  [73] = 8, [74] = 9, [75] = 10, [76] = 11, [77] = 12, [78] = 13, [79] = 14, [80] = 15,
  [81] = 16, [82] = 17, [83] = 18, [84] = 19, [85] = 20, [86] = 21, [87] = 22, [88] = 23,
  [89] = 24, [90] = 25, [97] = 26, [98] = 27, [99] = 28, [100] = 29, [101] = 30, [102] = 31,
  [103] = 32, [104] = 33, [105] = 34, [106] = 35, [107] = 36, [108] = 37, [109] = 38, [110] = 39,
  [111] = 40, [112] = 41, [113] = 42, [114] = 43, [115] = 44, [116] = 45, [117] = 46, [118] = 47,
  [119] = 48, [120] = 49, [121] = 50, [122] = 51, [48] = 52, [49] = 53, [50] = 54, [51] = 55,
  [52] = 56, [53] = 57, [54] = 58, [55] = 59, [56] = 60, [57] = 61, [43] = 62, [47] = 63,
}
-- The record's first bytes (1C 18) in base64, its fixed bytes after the digits (a message the
-- business sent), and its end.
local RECORD_START, AFTER_DIGITS, RECORD_END = 'wamid.HBg', '\21\2\0\17\24', '\0'
-- A hex ID of up to 64 characters for up to 127 digits: a record of at most 201 bytes, 268 in
-- base64; longer IDs are kept as they came without decoding (string.byte's results are bounded).
local MAX_HEX_ID, MAX_WAMID = 64, 274

-- The bytes of a standard base64 string, or nil unless it is the one encoding of them (padded,
-- the bits the padding leaves over zero): then the ID rebuilt from them is the same string.
-- The byte values go into one table kept for the script's run; the text is read four characters
-- at a time, with no table of its own (this runs for every message a settle keeps).
local decoded = {}
local function base64Bytes(text)
  local length = #text
  if length == 0 or length % 4 ~= 0 then return nil end
  local pad = 0
  if string.byte(text, length) == 61 then
    pad = 1
    if string.byte(text, length - 1) == 61 then pad = 2 end
  end
  local o = 0
  for i = 1, length, 4 do
    local a, b, c, d = string.byte(text, i, i + 3)
    -- The padding reads as 'A' (zero bits); an '=' anywhere else is no base64.
    if i + 3 == length and pad > 0 then
      d = 65
      if pad == 2 then c = 65 end
    end
    a, b, c, d = B64_VALUE[a], B64_VALUE[b], B64_VALUE[c], B64_VALUE[d]
    if not (a and b and c and d) then return nil end
    decoded[o + 1] = a * 4 + (b - b % 16) / 16
    decoded[o + 2] = (b % 16) * 16 + (c - c % 4) / 4
    decoded[o + 3] = (c % 4) * 64 + d
    o = o + 3
  end
  if pad > 0 and decoded[o - pad + 1] ~= 0 then return nil end
  if pad == 2 and decoded[o] ~= 0 then return nil end
  return string.char(unpack(decoded, 1, o - pad))
end

-- The hex ID of `wamid` when it is exactly Meta's ID for these digits and that hex ID, else nil.
local function metaHexId(wamid, phone)
  if #wamid > MAX_WAMID or string.sub(wamid, 1, #RECORD_START) ~= RECORD_START or type(phone) ~= 'string' then return nil end
  local digits = phone
  if string.sub(digits, 1, 1) == '+' then digits = string.sub(digits, 2) end
  if not string.find(digits, '^%d+$') or #digits > 127 then return nil end
  local encoded = string.sub(wamid, 7)
  local record = base64Bytes(encoded)
  if not record then return nil end
  local head = '\28\24' .. string.char(#digits) .. digits .. AFTER_DIGITS
  if string.sub(record, 1, #head) ~= head then return nil end
  local size = string.byte(record, #head + 1) or 0
  if size < 1 or size > MAX_HEX_ID or #record ~= #head + 1 + size + #RECORD_END then return nil end
  local hex = string.sub(record, #head + 2, #head + 1 + size)
  if string.sub(record, -#RECORD_END) ~= RECORD_END or not string.find(hex, '^[0-9A-Za-z]+$') then return nil end
  return hex
end

local B64URL_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

-- Six hex digits are 24 bits, four base64url characters; the bytes gathered in a scratch table
-- and made a string once (this runs for every message a settle keeps).
local hexScratch = {}
local function packedHexId(hex)
  if #hex % 6 ~= 0 or string.find(hex, '[^0-9A-F]') then return hex end
  local out, k = hexScratch, 1
  out[1] = 126
  for i = 1, #hex, 6 do
    local n = tonumber(string.sub(hex, i, i + 5), 16)
    local d = n % 64
    n = (n - d) / 64
    local c = n % 64
    n = (n - c) / 64
    local b = n % 64
    out[k + 1], out[k + 2], out[k + 3], out[k + 4] = string.byte(B64URL_DIGITS, (n - b) / 64 + 1), string.byte(B64URL_DIGITS, b + 1),
      string.byte(B64URL_DIGITS, c + 1), string.byte(B64URL_DIGITS, d + 1)
    k = k + 4
  end
  return string.char(unpack(out, 1, k))
end

local function setRowWamid(rec, wamid)
  local hex = metaHexId(wamid, rec.p)
  if hex then
    rec.m = packedHexId(hex)
    rec.w = nil
  else
    rec.w = wamid
    rec.m = nil
  end
end

local function rowHasWamid(rec)
  return (rec.w ~= nil and rec.w ~= '') or rec.m ~= nil
end
