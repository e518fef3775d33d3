--[[
  A row's message ID, stored small: the row is kept for the retention period, and Meta's IDs
  (src/cloud-api/wamid-shape.ts) are `wamid.` and the standard base64 of a record that holds
  the recipient's digits and a short hex ID, 54–66 characters for what 18 identify. The script
  that records an ID is given, beside it, the digits of that shape and the hex ID as the row
  keeps it (src/redis/ledger/wamid-compact.ts decodes them, natively: in Lua the decode
  would take Redis about 17 µs a sent row), or two empty strings for an ID of any other
  shape. When those digits are the row's own phone (its digits, with or without the `+`), the
  row keeps the hex ID alone as `m`; any other ID stays as it is, as `w`. A row has one of the two. Readers rebuild the ID
  from `p` and `m` (src/redis/ledger/row-codec.ts, stored-row.ts); nothing else reads `m`.

  Defines: setRowWamid(rec, wamid, digits, m); rowHasWamid(rec) → true when the row has a message ID
]]

local function setRowWamid(rec, wamid, digits, m)
  local phone = rec.p
  if m ~= '' and digits ~= '' and (phone == '+' .. digits or phone == digits) then
    rec.m = m
    rec.w = nil
  else
    rec.w = wamid
    rec.m = nil
  end
end

local function rowHasWamid(rec)
  return (rec.w ~= nil and rec.w ~= '') or rec.m ~= nil
end
